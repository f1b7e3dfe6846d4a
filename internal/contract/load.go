package contract

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"

	"github.com/contractcheck/contractcheck/internal/safeio"
)

// Error is a contract-model error with the CUE positions it concerns.
type Error struct {
	// Msg is the error text, each line prefixed with file:line:col where CUE knows it.
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Load reads every .cue file directly under root in fsys as one CUE package, checks it against the
// closed definitions, decodes it and checks the cross-references CUE cannot (a task's atoms exist, a
// fixture's tasks and family exist, …). display prefixes file names in messages (e.g. "contracts").
func Load(fsys fs.FS, root, display string) (*Model, error) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("load contracts: %w", err)
	}
	inst := build.NewContext().NewInstance(display, nil)
	n := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".cue") {
			continue
		}
		src, err := safeio.ReadFile(fsys, path.Join(root, e.Name()), safeio.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("load contracts: %w", err)
		}
		name := path.Join(display, e.Name())
		f, err := parser.ParseFile(name, src, parser.ParseComments)
		if err != nil {
			return nil, cueError(err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return nil, cueError(err)
		}
		n++
	}
	if n == 0 {
		return nil, &Error{Msg: fmt.Sprintf("%s: no .cue files", display)}
	}
	v := cuecontext.New().BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, cueError(err)
	}
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, cueError(err)
	}
	var m Model
	if err := v.Decode(&m); err != nil {
		return nil, cueError(err)
	}
	if err := m.check(v); err != nil {
		return nil, err
	}
	return &m, nil
}

// cueError formats CUE errors as "file:line:col: path: message", one per line, the way compilers
// and OPA print them, so an editor can jump to each.
func cueError(err error) error {
	var lines []string
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		if p := strings.Join(e.Path(), "."); p != "" {
			msg = p + ": " + msg
		}
		positions := cueerrors.Positions(e)
		if len(positions) == 0 {
			lines = append(lines, msg)
			continue
		}
		for _, pos := range positions {
			lines = append(lines, pos.String()+": "+msg)
		}
	}
	sort.Strings(lines)
	return &Error{Msg: strings.Join(compact(lines), "\n")}
}

func compact(lines []string) []string {
	out := lines[:0]
	for i, l := range lines {
		if i == 0 || l != lines[i-1] {
			out = append(out, l)
		}
	}
	return out
}

// check verifies the references between parts of the model, naming the CUE position of the referrer.
func (m *Model) check(v cue.Value) error {
	var errs []string
	at := func(p ...string) string {
		sel := make([]cue.Selector, len(p))
		for i, s := range p {
			sel[i] = cue.Str(s)
		}
		if pos := v.LookupPath(cue.MakePath(sel...)).Pos(); pos.IsValid() {
			return pos.String() + ": "
		}
		return ""
	}
	for _, id := range sortedKeys(m.Tasks) {
		for _, a := range m.Tasks[id].Atoms {
			if _, ok := m.Atoms[a]; !ok {
				errs = append(errs, fmt.Sprintf("%stasks.%s: unknown atom %q", at("tasks", id, "atoms"), id, a))
			}
		}
	}
	for _, id := range sortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		if _, ok := m.Families[f.Family]; !ok {
			errs = append(errs, fmt.Sprintf("%sfixtures.%s: unknown family %q", at("fixtures", id, "family"), id, f.Family))
		}
		for _, t := range f.Tasks {
			if _, ok := m.Tasks[t]; !ok {
				errs = append(errs, fmt.Sprintf("%sfixtures.%s: unknown task %q", at("fixtures", id, "tasks"), id, t))
			}
		}
	}
	for _, id := range sortedKeys(m.Lanes) {
		l := m.Lanes[id]
		if len(l.Configurations) == 0 {
			errs = append(errs, fmt.Sprintf("%slanes.%s: no configurations", at("lanes", id), id))
		}
		for _, st := range sortedKeys(l.Stages) {
			sd := l.Stages[st]
			if sd.SharedWith != "" {
				other, ok := l.Stages[sd.SharedWith]
				if !ok || StageIndex(sd.SharedWith) >= StageIndex(st) || other.Exposure != Observed {
					errs = append(errs, fmt.Sprintf("%slanes.%s.stages.%s: sharedWith %q must name an earlier observed stage", at("lanes", id, "stages", st, "sharedWith"), id, st, sd.SharedWith))
				}
			}
			if sd.Exposure == Observed && len(sd.Compartments) == 0 {
				errs = append(errs, fmt.Sprintf("%slanes.%s.stages.%s: an observed stage binds no compartment", at("lanes", id, "stages", st), id, st))
			}
		}
	}
	for _, id := range sortedKeys(m.Profiles) {
		p := m.Profiles[id]
		for _, t := range p.Tasks {
			if _, ok := m.Tasks[t]; !ok {
				errs = append(errs, fmt.Sprintf("%sprofiles.%s: unknown task %q", at("profiles", id, "tasks"), id, t))
			}
		}
		for _, r := range p.Require {
			for _, l := range r.Lanes {
				if _, ok := m.Lanes[l]; !ok && l != "*" {
					errs = append(errs, fmt.Sprintf("%sprofiles.%s: requirement names unknown lane %q", at("profiles", id, "require"), id, l))
				}
			}
			for _, t := range r.Tasks {
				if _, ok := m.Tasks[t]; !ok && t != "*" {
					errs = append(errs, fmt.Sprintf("%sprofiles.%s: requirement names unknown task %q", at("profiles", id, "require"), id, t))
				}
			}
		}
	}
	if len(errs) > 0 {
		return &Error{Msg: strings.Join(errs, "\n")}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SortedKeys returns the keys of a map in byte order: the model's maps are iterated this way
// wherever order reaches output.
func SortedKeys[V any](m map[string]V) []string { return sortedKeys(m) }

func sortStrings(s []string) { sort.Strings(s) }
