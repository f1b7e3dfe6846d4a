// Package lock pins what a run reads. `contractcheck lock` writes contractcheck.lock: the tool
// version, the layer options, and the sha256 of every contract, policy, schema, source and record
// file a check with the same options reads; `contractcheck check --locked` computes the same
// again before it runs and refuses any drift (exit 2), naming each file that changed, appeared or
// disappeared. A built-in file is pinned by the hash of the bytes embedded in the binary and named
// "builtin:<dir>/…"; a user's file under the name it is shown in messages (the directory as given
// on the command line, then the path below it).
//
// The files a run reads, by kind (the loaders' own rules, so a file a run never opens is not
// pinned and an unrelated file beside the inputs is no drift):
//
//   - contract: every .cue file directly in each contracts layer;
//   - policy: every .rego file below each policies layer, but the _test.rego files check leaves out;
//   - schema: the built-in schemas (the pinned MCP schemas, the project's own, and the built-in
//     carrier schemas unless --no-builtin), every .json file below carriers/ of each --schemas
//     layer, and the schema.json and revision.json of each MCP revision below its mcp/;
//   - source: every .json file below sources/ of each fixture layer;
//   - record: every .jsonl file below each observation directory, and standard input ("<stdin>")
//     for --observations -.
//
// The lock file is JSON (schemas/contractcheck/lock.schema.json), written deterministically: the
// same inputs give the same bytes.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package lock

import (
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Version is the lockVersion of the lock file format.
const Version = 1

// FileName is the lock file's default name, in the working directory.
const FileName = "contractcheck.lock"

// Kinds of pinned files.
const (
	Contract = "contract"
	Policy   = "policy"
	Schema   = "schema"
	Source   = "source"
	Record   = "record"
)

// Lock is the content of a lock file.
type Lock struct {
	LockVersion int `json:"lockVersion"`
	// Tool is the contractcheck version that wrote the lock (buildinfo.Info.Tool).
	Tool string `json:"tool"`
	// Layers are the options that select the inputs.
	Layers Layers `json:"layers"`
	// Files are the pinned files, sorted by path.
	Files []File `json:"files"`
}

// Layers are the options of a run that select which files it reads, as given on the command line.
type Layers struct {
	NoBuiltin    bool     `json:"noBuiltin"`
	Contracts    []string `json:"contracts"`
	Policies     []string `json:"policies"`
	Schemas      []string `json:"schemas"`
	Fixtures     []string `json:"fixtures"`
	Observations []string `json:"observations"`
}

// File is one pinned file.
type File struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Sha256 string `json:"sha256"`
}

// LayersOf are the layer options of a run.
func LayersOf(o inputs.Options) Layers {
	norm := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return slices.Clone(s)
	}
	return Layers{NoBuiltin: o.NoBuiltin, Contracts: norm(o.Contracts), Policies: norm(o.Policies),
		Schemas: norm(o.Schemas), Fixtures: norm(o.Fixtures), Observations: norm(o.Observations)}
}

// Compute hashes every file a check with the options reads and returns the lock a run of tool
// (the version buildinfo gives) would write.
func Compute(o inputs.Options, tool string) (*Lock, error) {
	l := &Lock{LockVersion: Version, Tool: tool, Layers: LayersOf(o), Files: []File{}}
	add := func(kind string, d layer.Dir, p string, limit int64) error {
		sum, err := hashFile(d.FS, p, limit)
		_, display := d.Path(d.Rel(p))
		if err != nil {
			return fmt.Errorf("%s: %w", display, safeio.PathCause(err))
		}
		l.Files = append(l.Files, File{Path: display, Kind: kind, Sha256: sum})
		return nil
	}
	for _, d := range o.ContractLayers() {
		if err := d.Check("--contracts"); err != nil {
			return nil, err
		}
		entries, err := fs.ReadDir(d.FS, d.Root)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Display, safeio.PathCause(err))
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".cue") {
				if err := add(Contract, d, layer.Join(d.Root, e.Name()), safeio.MaxFileBytes); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, d := range o.PolicyLayers() {
		if err := walk(d, "--policies", ".", func(p string) bool {
			return strings.HasSuffix(p, ".rego") && !strings.HasSuffix(p, "_test.rego")
		}, func(p string) error { return add(Policy, d, p, safeio.MaxFileBytes) }); err != nil {
			return nil, err
		}
	}
	builtin := layer.Builtin(contractcheck.Builtin, "schemas")
	if err := walk(builtin, "", ".", func(p string) bool {
		return strings.HasSuffix(p, ".json") && (!o.NoBuiltin || !strings.HasPrefix(p, "schemas/carriers/"))
	}, func(p string) error { return add(Schema, builtin, p, safeio.MaxFileBytes) }); err != nil {
		return nil, err
	}
	for _, d := range o.SchemaLayers() {
		if err := walk(d, "--schemas", "carriers", func(p string) bool { return strings.HasSuffix(p, ".json") },
			func(p string) error { return add(Schema, d, p, safeio.MaxFileBytes) }); err != nil {
			return nil, err
		}
		revisionFile := func(p string) bool {
			return strings.HasSuffix(p, "/schema.json") || strings.HasSuffix(p, "/"+schema.DescriptorName)
		}
		if err := walk(d, "--schemas", "mcp", revisionFile,
			func(p string) error { return add(Schema, d, p, safeio.MaxFileBytes) }); err != nil {
			return nil, err
		}
	}
	for _, d := range o.FixtureLayers() {
		if err := walk(d, "--fixtures", "sources", func(p string) bool { return strings.HasSuffix(p, ".json") },
			func(p string) error { return add(Source, d, p, safeio.MaxFileBytes) }); err != nil {
			return nil, err
		}
	}
	records, err := o.RecordFiles()
	if err != nil {
		return nil, err
	}
	for _, rf := range records {
		sum, err := hashFile(rf.Dir.FS, rf.Path, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rf.Display(), safeio.PathCause(err))
		}
		l.Files = append(l.Files, File{Path: rf.Display(), Kind: Record, Sha256: sum})
	}
	slices.SortFunc(l.Files, func(a, b File) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	l.Files = slices.Compact(l.Files) // a file in two overlapping directories is pinned once
	return l, nil
}

// walk calls add for every file below sub of d that keep accepts (sub "." is d itself); a
// missing sub is no files. what names d's flag in an error about d itself.
func walk(d layer.Dir, what, sub string, keep func(string) bool, add func(string) error) error {
	if what != "" {
		if err := d.Check(what); err != nil {
			return err
		}
	}
	root := d.Root
	if sub != "." {
		root = layer.Join(d.Root, sub)
		if st, err := fs.Stat(d.FS, root); err != nil || !st.IsDir() {
			return nil
		}
	}
	var files []string
	err := fs.WalkDir(d.FS, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && keep(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", d.Display, safeio.PathCause(err))
	}
	for _, p := range files {
		if err := add(p); err != nil {
			return err
		}
	}
	return nil
}

// hashFile hashes a regular file (refused otherwise) of at most limit bytes (0: any size, for
// record files, which are streamed).
func hashFile(fsys fs.FS, name string, limit int64) (string, error) {
	f, err := safeio.Open(fsys, name, limit)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum, _, err := safeio.Sha256(f, limit)
	return sum, err
}

// Encode writes the lock as indented JSON with a final newline: deterministic, and a diff of two
// locks shows one file a line.
func Encode(w io.Writer, l *Lock) error {
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"lockVersion\": %d,\n  \"tool\": %s,\n  \"layers\": ", l.LockVersion, quote(l.Tool))
	layers, err := strictjson.MarshalGo(l.Layers)
	if err != nil {
		return err
	}
	b.Write(layers)
	b.WriteString(",\n  \"files\": [")
	for i, f := range l.Files {
		if i > 0 {
			b.WriteString(",")
		}
		line, err := strictjson.MarshalGo(f)
		if err != nil {
			return err
		}
		b.WriteString("\n    ")
		b.Write(line)
	}
	if len(l.Files) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	_, err = io.WriteString(w, b.String())
	return err
}

func quote(s string) string {
	b, _ := strictjson.MarshalGo(s)
	return string(b)
}
