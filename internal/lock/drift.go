package lock

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Read reads a lock file and validates it against schemas/contractcheck/lock.schema.json: a lock
// that is not one is an error naming the file and the line:col or JSON pointer.
func Read(path string) (*Lock, error) {
	data, err := safeio.ReadPath(path, safeio.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("lock file %s: no such file (write it with contractcheck lock)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("lock file %s: %w", path, safeio.PathCause(err))
	}
	doc, err := strictjson.Decode(path, data, strictjson.DefaultLimits)
	if err != nil {
		return nil, err
	}
	sfs, err := fs.Sub(contractcheck.Builtin, "schemas")
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	// Only the lock schema: inputs.BuiltinValidator would also compile the record and report
	// schemas, which reading a lock never uses.
	v, err := schema.NewLockValidator(sfs)
	if err != nil {
		return nil, err
	}
	if err := v.ValidateLock(path, doc); err != nil {
		return nil, err
	}
	var l Lock
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("lock file %s: %w", path, err)
	}
	// A file pinned twice would be checked against one of its hashes only: the lock is refused.
	first := map[string]int{}
	for i, f := range l.Files {
		if j, ok := first[f.Path]; ok {
			return nil, fmt.Errorf("lock file %s: /files/%d: %s is pinned twice (also at /files/%d): write the lock again with contractcheck lock", path, i, f.Path, j)
		}
		first[f.Path] = i
	}
	return &l, nil
}

// Drift is how a run's inputs differ from a lock: files whose hash changed, files the run reads
// that the lock does not pin (appeared), files the lock pins that the run no longer reads
// (disappeared), another tool version, other layer options.
type Drift struct {
	Lock                  string // the lock file's path
	Changed               []Change
	Appeared, Disappeared []File
	LockedTool, Tool      string // differ when the tool version drifted
	LockedLayers, Layers  Layers // differ when the layer options drifted
}

// Change is a pinned file whose content changed.
type Change struct {
	Path, Kind     string
	Locked, Sha256 string
}

// Diff compares the lock read from lockPath with the lock the run would write now; nil when they
// agree.
func Diff(lockPath string, locked, now *Lock) *Drift {
	d := &Drift{Lock: lockPath, LockedTool: locked.Tool, Tool: now.Tool, LockedLayers: locked.Layers, Layers: now.Layers}
	key := func(f File) string { return f.Kind + "\x00" + f.Path }
	was := map[string]File{}
	for _, f := range locked.Files {
		was[key(f)] = f
	}
	is := map[string]bool{}
	for _, f := range now.Files {
		is[key(f)] = true
		old, ok := was[key(f)]
		switch {
		case !ok:
			d.Appeared = append(d.Appeared, f)
		case old.Sha256 != f.Sha256:
			d.Changed = append(d.Changed, Change{Path: f.Path, Kind: f.Kind, Locked: old.Sha256, Sha256: f.Sha256})
		}
	}
	for _, f := range locked.Files {
		if !is[key(f)] {
			d.Disappeared = append(d.Disappeared, f)
		}
	}
	if len(d.Changed)+len(d.Appeared)+len(d.Disappeared) == 0 && d.LockedTool == d.Tool && layersEqual(d.LockedLayers, d.Layers) {
		return nil
	}
	return d
}

func layersEqual(a, b Layers) bool {
	return a.NoBuiltin == b.NoBuiltin && slices.Equal(a.Contracts, b.Contracts) && slices.Equal(a.Policies, b.Policies) &&
		slices.Equal(a.Schemas, b.Schemas) && slices.Equal(a.Fixtures, b.Fixtures) && slices.Equal(a.Observations, b.Observations)
}

// Files is how many files drifted.
func (d *Drift) Files() int { return len(d.Changed) + len(d.Appeared) + len(d.Disappeared) }

// Error lists every difference, one a line: the files that changed, appeared or disappeared, the
// tool version and the layer options.
func (d *Drift) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the run's inputs differ from the lock (%d %s drifted); check --locked refuses to run (write a new lock with contractcheck lock to accept them):",
		d.Lock, d.Files(), plural(d.Files(), "file", "files"))
	for _, c := range d.Changed {
		fmt.Fprintf(&b, "\n  changed      %s (%s): sha256 %s in the lock, %s now", c.Path, c.Kind, short(c.Locked), short(c.Sha256))
	}
	for _, f := range d.Appeared {
		fmt.Fprintf(&b, "\n  appeared     %s (%s): not in the lock", f.Path, f.Kind)
	}
	for _, f := range d.Disappeared {
		fmt.Fprintf(&b, "\n  disappeared  %s (%s): in the lock, not read now", f.Path, f.Kind)
	}
	if d.LockedTool != d.Tool {
		fmt.Fprintf(&b, "\n  tool         contractcheck %s in the lock, %s now", d.LockedTool, d.Tool)
	}
	if !layersEqual(d.LockedLayers, d.Layers) {
		fmt.Fprintf(&b, "\n  layers       %s in the lock, %s now", d.LockedLayers, d.Layers)
	}
	return b.String()
}

// String is the layer options as the command line spells them ("the built-in layers" when none).
func (l Layers) String() string {
	var parts []string
	if l.NoBuiltin {
		parts = append(parts, "--no-builtin")
	}
	for _, f := range []struct {
		flag string
		dirs []string
	}{{"--contracts", l.Contracts}, {"--policies", l.Policies}, {"--schemas", l.Schemas}, {"--fixtures", l.Fixtures}, {"--observations", l.Observations}} {
		for _, d := range f.dirs {
			parts = append(parts, f.flag+" "+d)
		}
	}
	if len(parts) == 0 {
		return "the built-in layers"
	}
	return strings.Join(parts, " ")
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12] + "…"
	}
	return sum
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Verify reads the lock file at path and compares it with the files a check with the options
// reads now: a *Drift (classed as bad input, exit 2) when anything differs, nil when nothing does.
func Verify(path string, o inputs.Options, tool string) error {
	locked, err := Read(path)
	if err != nil {
		return result.AsInput(err)
	}
	now, err := Compute(o, tool)
	if err != nil {
		return result.AsInput(err)
	}
	if d := Diff(path, locked, now); d != nil {
		return result.AsInput(d)
	}
	return nil
}
