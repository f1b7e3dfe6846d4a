package contract

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

// Package is the CUE package every contract file belongs to: all layers unify as one package.
const Package = "contracts"

// Error is a contract-model error with the CUE positions it concerns.
type Error struct {
	// Msg is the error text, each line prefixed with file:line:col where CUE knows it.
	Msg string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// topLevel lists the fields a contract file may define at the top level. Hidden fields (_x) and
// definitions (#X) are a layer's own helpers and are allowed.
var topLevel = []string{"atoms", "tasks", "families", "fixtures", "lanes", "profiles", "revisions", "visibility"}

// Load reads the .cue files directly under each layer's directory as one CUE package, checks it
// against the closed definitions, decodes it and checks the cross-references CUE cannot (a task's
// atoms exist, a fixture's tasks and family exist, a requirement selects known lanes, …). Every
// error names the file, line and column of the value at fault, in the layer that wrote it.
func Load(layers []layer.Dir) (*Model, error) {
	srcs, err := ReadLayers(layers)
	if err != nil {
		return nil, err
	}
	return Evaluate(srcs)
}

// Source is one .cue file of a contract layer: its display name, its layer's index and its bytes.
type Source struct {
	Name  string
	Layer int
	Data  []byte
}

// ReadLayers reads the .cue files directly under each layer's directory, in layer order and, within
// a layer, in name order. A user layer that does not exist, or holds no .cue file, is an error.
func ReadLayers(layers []layer.Dir) ([]Source, error) {
	if len(layers) == 0 {
		return nil, &Error{Msg: "no contract layers (--no-builtin needs at least one --contracts directory)"}
	}
	var out []Source
	for i, d := range layers {
		if err := d.Check("--contracts"); err != nil {
			return nil, &Error{Msg: err.Error()}
		}
		entries, err := fs.ReadDir(d.FS, d.Root)
		if err != nil {
			return nil, &Error{Msg: fmt.Sprintf("%s: %v", d.Display, safeio.PathCause(err))}
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".cue") {
				continue
			}
			p, name := d.Path(e.Name())
			src, err := safeio.ReadFile(d.FS, p, safeio.MaxFileBytes)
			if err != nil {
				return nil, &Error{Msg: fmt.Sprintf("%s: %v", name, safeio.PathCause(err))}
			}
			out = append(out, Source{Name: name, Layer: i, Data: src})
			n++
		}
		if n == 0 {
			return nil, &Error{Msg: fmt.Sprintf("%s: no .cue files", d.Display)}
		}
	}
	return out, nil
}

// Evaluate unifies the sources as one CUE package, checks it against the closed definitions,
// decodes it and checks the cross-references CUE cannot.
func Evaluate(srcs []Source) (*Model, error) {
	v, order, files, err := instance(srcs)
	if err != nil {
		return nil, err
	}
	if err := checkTopLevel(v, order); err != nil {
		return nil, err
	}
	if err := v.Validate(cue.Concrete(true)); err != nil {
		return nil, concreteError(err, &referrer{v: v, order: order})
	}
	// The model is decoded from its JSON: cue.Value.Decode walks the same value by reflection at
	// a seventh more of Evaluate's time (BenchmarkEvaluate), and CUE has checked every type the
	// model's Go types hold (model.cue's closed definitions) before.
	// With user layers on the embedded built-in one, the built-in entries no user file writes are
	// decoded from the embedded model rather than exported again (overlay.go).
	var m Model
	data, err := marshalModel(v, srcs, files)
	if err != nil {
		return nil, cueError(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decode the contract model: %w", err)
	}
	ref := &referrer{v: v, order: order}
	m.locate(ref)
	if err := m.check(ref); err != nil {
		return nil, err
	}
	return &m, nil
}

// marshalModel is v's JSON, assembled from the embedded built-in model and the entries the user
// layers write when overlayOf allows it, else exported whole.
func marshalModel(v cue.Value, srcs []Source, files []parsed) ([]byte, error) {
	if o, p, ok := overlayOf(srcs, files); ok {
		if data, ok := o.marshal(v, p); ok {
			return data, nil
		}
	}
	return v.MarshalJSON()
}

// instance parses the sources, checks their package and the layer guard, and evaluates them as
// one CUE package.
func instance(srcs []Source) (cue.Value, map[string]int, []parsed, error) {
	inst := build.NewContext().NewInstance(Package, nil)
	order := map[string]int{} // file display name → layer index
	files := make([]parsed, 0, len(srcs))
	for _, src := range srcs {
		f, err := parser.ParseFile(src.Name, src.Data, parser.ParseComments)
		if err != nil {
			return cue.Value{}, nil, nil, cueError(err)
		}
		if pkg := f.PackageName(); pkg != Package {
			return cue.Value{}, nil, nil, &Error{Msg: fmt.Sprintf("%s: package %q, want package %s (every contract layer is one CUE package)", src.Name, pkg, Package)}
		}
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, nil, nil, cueError(err)
		}
		order[src.Name] = src.Layer
		files = append(files, parsed{file: f, layer: src.Layer})
	}
	if err := guardLayers(files); err != nil {
		return cue.Value{}, nil, nil, err
	}
	v := cuecontext.New().BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cue.Value{}, nil, nil, cueError(err)
	}
	return v, order, files, nil
}

// checkTopLevel rejects a regular top-level field the model does not know (a misspelt `profile:`
// would otherwise load and be ignored).
func checkTopLevel(v cue.Value, order map[string]int) error {
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return cueError(err)
	}
	var errs []string
	for it.Next() {
		name := it.Selector().String()
		if !it.Selector().IsString() || slices.Contains(topLevel, name) {
			continue
		}
		if name == "source" {
			errs = append(errs, fmt.Sprintf("%ssource: the source binding belongs to a revision: write revisions: \"<revision>\": source: {…} for the revision your sources are in (docs/writing-a-contract.md)", prefix(pick(positions(it.Value()), order))))
			continue
		}
		errs = append(errs, fmt.Sprintf("%s%s: unknown top-level field (a contract file defines %s)", prefix(pick(positions(it.Value()), order)), name, strings.Join(topLevel, ", ")))
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return &Error{Msg: strings.Join(errs, "\n")}
	}
	return nil
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
	return &Error{Msg: strings.Join(slices.Compact(lines), "\n")}
}

// concreteError is cueError for the model's concreteness check. A field a definition requires
// that no layer sets (CUE's "incomplete value") is said as such — "field role is required (one
// of "primary" | "guard")" — at the position of the struct that lacks it in the latest layer that
// writes it, so the message points into the user's file rather than at the definition.
func concreteError(err error, r *referrer) error {
	var lines []string
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		path := e.Path()
		want, incomplete := strings.CutPrefix(msg, "incomplete value ")
		if !incomplete || len(path) == 0 {
			lines = append(lines, strings.Split(cueError(e).Error(), "\n")...)
			continue
		}
		parent := make([]any, len(path)-1)
		for i, p := range path[:len(path)-1] {
			parent[i] = label(p)
		}
		what := typeWords[want]
		switch {
		case what != "":
		case enumValues.MatchString(want):
			what = "one of " + enumWords(want)
		case strings.Contains(want, " | "):
			what = "one of " + want
		default:
			what = "a value of CUE type " + want
		}
		var struc string
		for _, p := range path[:len(path)-1] {
			if _, err := strconv.Atoi(p); err == nil {
				struc += "[" + p + "]"
			} else if struc == "" {
				struc = p
			} else {
				struc += "." + p
			}
		}
		if struc == "" {
			struc = "the top level"
		}
		lines = append(lines, fmt.Sprintf("%s%s: field %s is required (%s); no layer sets it", r.at(parent...), struc, path[len(path)-1], what))
	}
	sort.Strings(lines)
	return &Error{Msg: strings.Join(slices.Compact(lines), "\n")}
}

// typeWords says the CUE types a required field of the model has in words.
var typeWords = map[string]string{
	`=~"^(/|$)"`:  `a JSON pointer: "" or a path from "/"`, // #Pointer
	"string":      "a string",
	"int":         "an integer",
	"bool":        "true or false",
	"[...string]": "a list of strings",
	"{...}":       "a struct",
}

// enumValues matches an enumeration of the model as CUE says it (model.cue writes each as a
// regular expression over its values, =~"^(primary|guard)$"); its group is the values.
var enumValues = regexp.MustCompile(`^=~"\^\(([A-Za-z0-9_-]+(?:\|[A-Za-z0-9_-]+)+)\)\$"$`)

// enumWords is an enumeration's values as a user writes them, "primary" | "guard".
func enumWords(want string) string {
	values := strings.Split(enumValues.FindStringSubmatch(want)[1], "|")
	for i, v := range values {
		values[i] = strconv.Quote(v)
	}
	return strings.Join(values, " | ")
}

// label is an error path element as a lookup selector: a list index as an int, a quoted label
// unquoted, any other as it is.
func label(p string) any {
	if n, err := strconv.Atoi(p); err == nil {
		return n
	}
	if u, err := strconv.Unquote(p); err == nil {
		return u
	}
	return p
}

// referrer finds where a value of the model was written: the position in the latest layer that
// contributes to it, so an error about a user's reference points into the user's file, not at the
// built-in definition it is unified with.
type referrer struct {
	v     cue.Value
	order map[string]int
}

// where returns "file:line:col" for the value at a path of string labels and list indices, or ""
// when CUE knows no position.
func (r *referrer) where(p ...any) string {
	return where(r.pos(p...))
}

// at is where's position as a message prefix, "file:line:col: ", or "".
func (r *referrer) at(p ...any) string {
	return prefixPos(r.where(p...))
}

func (r *referrer) pos(p ...any) token.Pos {
	sel := make([]cue.Selector, len(p))
	for i, s := range p {
		switch s := s.(type) {
		case int:
			sel[i] = cue.Index(s)
		case string:
			sel[i] = cue.Str(s)
		}
	}
	return pick(positions(r.v.LookupPath(cue.MakePath(sel...))), r.order)
}

// positions lists the positions of every conjunct of a value.
func positions(v cue.Value) []token.Pos {
	var out []token.Pos
	op, args := v.Expr()
	if op == cue.AndOp {
		for _, a := range args {
			out = append(out, positions(a)...)
		}
		return out
	}
	if p := v.Pos(); p.IsValid() {
		out = append(out, p)
	}
	return out
}

// pick chooses, among a value's positions, the one in the latest layer; within a layer the first
// outside a definition file's closed schema (model.cue), else the first.
func pick(ps []token.Pos, order map[string]int) token.Pos {
	best, bestLayer := token.NoPos, -1
	for _, p := range ps {
		l, ok := order[p.Filename()]
		if !ok {
			continue
		}
		if l > bestLayer {
			best, bestLayer = p, l
		}
	}
	if !best.IsValid() && len(ps) > 0 {
		return ps[0]
	}
	return best
}

// where returns "file:line:col" for a position, or "" when it is not valid.
func where(p token.Pos) string {
	if !p.IsValid() {
		return ""
	}
	return p.String()
}

// prefix is a position as a message prefix, "file:line:col: ", or "".
func prefix(p token.Pos) string { return prefixPos(where(p)) }

// SortedKeys returns the keys of a map in byte order: the model's maps are iterated this way
// wherever order reaches output.
func SortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func sortStrings(s []string) { sort.Strings(s) }
