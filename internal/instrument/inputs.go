package instrument

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Dir is a directory of inputs (see package layer).
type Dir = layer.Dir

// UserDir is a directory of the user's, shown under the name it was given.
func UserDir(dir string) Dir { return layer.User(dir) }

// Options selects the inputs of a run. Each kind of input is read as layers: the built-in layer
// (unless NoBuiltin), then the user's directories in order, each adding to the ones before.
type Options struct {
	Profile      string
	Contracts    []string // directories of .cue files
	Policies     []string // directories of .rego files
	Schemas      []string // directories holding carriers/<name>.schema.json and mcp/<revision>/schema.json
	Fixtures     []string // directories holding sources/<suite>/<id>.json (and observations/)
	Observations []string // directories of .jsonl observation records, searched recursively
	// NoBuiltin leaves the built-in contracts, policies, schemas and fixtures out.
	NoBuiltin bool
	// Scope restricts the run to the bindings it matches (check --lane, --stage, …).
	Scope result.Scope
	// Workers is the number of goroutines evaluating bindings; 0 means GOMAXPROCS.
	Workers int
	// Stdin is standard input, for an Observations entry "-" (StdinArg) or `validate -`; nil
	// when the caller has none.
	Stdin *Stdin
	// Revision is the MCP revision the sources no catalogue entry names are validated against
	// (DeriveFixtures): one the schema layers hold; "" is the pinned one (schema.DefaultRevision).
	Revision string
	// Builtin is the file system the built-in layers (contracts/, policies/, schemas/,
	// fixtures/) are read from; nil is the one embedded in the binary (contractcheck.Builtin).
	Builtin fs.FS
}

// BuiltinFS is the file system of the built-in layers: Builtin, or the binary's own.
func (o Options) BuiltinFS() fs.FS {
	if o.Builtin != nil {
		return o.Builtin
	}
	return contractcheck.Builtin
}

// DefaultProfile is the profile a check uses when none is named.
const DefaultProfile = "strict"

// ContractLayers are the CUE layers the options select.
func (o Options) ContractLayers() []Dir {
	return layer.Stack(o.BuiltinFS(), "contracts", o.NoBuiltin, o.Contracts)
}

// PolicyLayers are the Rego layers the options select.
func (o Options) PolicyLayers() []Dir {
	return layer.Stack(o.BuiltinFS(), "policies", o.NoBuiltin, o.Policies)
}

// SchemaLayers are the user's schema layers: carrier schemas and MCP revisions added to the
// built-in ones (the pinned MCP schemas and the project's own are always there, --no-builtin or
// not).
func (o Options) SchemaLayers() []Dir { return layer.Stack(o.BuiltinFS(), "schemas", true, o.Schemas) }

// FixtureLayers are the fixture layers the options select.
func (o Options) FixtureLayers() []Dir {
	return layer.Stack(o.BuiltinFS(), "fixtures", o.NoBuiltin, o.Fixtures)
}

// ObservationDirs are the directories of observation records the options select: every
// --observations directory (standard input for "-", a directory of one file), else the observations/ directory of each fixture layer that has one.
func (o Options) ObservationDirs() ([]Dir, error) {
	if len(o.Observations) > 0 {
		var out []Dir
		stdin := false
		for _, p := range o.Observations {
			if p == StdinArg {
				if stdin {
					return nil, fmt.Errorf("--observations %s is given twice: standard input is read once", StdinArg)
				}
				stdin = true
				d, err := o.stdinDir()
				if err != nil {
					return nil, err
				}
				out = append(out, d)
				continue
			}
			d := layer.User(p)
			if err := d.Check("--observations"); err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		return out, nil
	}
	var out []Dir
	for _, d := range o.FixtureLayers() {
		obs := d.Sub("observations")
		if st, err := fs.Stat(obs.FS, obs.Root); err == nil && st.IsDir() {
			out = append(out, obs)
		}
	}
	return out, nil
}

// Inputs lists every directory a run with these options reads: what no output may be written over.
func (o Options) Inputs() []Dir {
	out := append(o.ContractLayers(), o.PolicyLayers()...)
	out = append(out, o.SchemaLayers()...)
	out = append(out, o.FixtureLayers()...)
	if obs, err := o.ObservationDirs(); err == nil {
		out = append(out, obs...)
	}
	return out
}

// NewValidator compiles the validator over the pinned MCP schemas and the project's own (the
// schemas/ directory of the built-in file system builtin), with the
// carrier schemas of the built-in layer (unless builtinCarriers is false, as under --no-builtin)
// and of the user's schema layers, and the MCP revisions of both (schema.NewLayered: a user
// layer's mcp/<revision>/schema.json adds a revision). A carrier schema defined by two layers is
// an error when it is used; a revision defined by two, when the validator is made.
func NewValidator(builtin fs.FS, users []Dir, builtinCarriers bool) (*schema.Validator, error) {
	for _, d := range users {
		if err := d.Check("--schemas"); err != nil {
			return nil, err
		}
	}
	sfs, err := fs.Sub(builtin, "schemas")
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	v, err := schema.NewLayered(carrierOverlay{base: sfs, builtin: builtinCarriers, users: users}, users)
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	return v, nil
}

// CheckRevisions reports every catalogue entry of m whose revision no schema layer of v holds, at
// the entry's position.
func CheckRevisions(v *schema.Validator, m *contract.Model) error {
	var errs []string
	for _, id := range contract.SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		if !v.HasRevision(f.Revision) {
			errs = append(errs, fmt.Sprintf("%sfixture %s: %v", prefix(f.Pos), id, v.UnknownRevision(f.Revision)))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// BuiltinRevisions lists the MCP revisions the built-in schema layer holds, in order. Every
// command that takes --revision names them in its help, and the commands are all made at start-up:
// the layer is read once.
func BuiltinRevisions() []string { return slices.Clone(builtinRevisions()) }

var builtinRevisions = sync.OnceValue(func() []string {
	v, err := BuiltinValidator()
	if err != nil {
		return []string{schema.DefaultRevision}
	}
	return v.Revisions()
})

// BuiltinValidator compiles the validator over the built-in schemas only.
func BuiltinValidator() (*schema.Validator, error) {
	return NewValidator(contractcheck.Builtin, nil, true)
}

// carrierOverlay serves the built-in schemas directory, with carrier schemas (carriers/…) also
// found in the user's schema layers. The project's own schemas cannot be overlaid; the MCP
// revisions of the user's layers are schema.NewLayered's to serve.
type carrierOverlay struct {
	base    fs.FS
	builtin bool // the built-in carrier schemas are part of it
	users   []Dir
}

func (o carrierOverlay) Open(name string) (fs.File, error) {
	if !strings.HasPrefix(name, schema.CarrierSchemaDir) {
		return o.base.Open(name)
	}
	var found []string
	var file fs.File
	if o.builtin {
		if f, err := o.base.Open(name); err == nil {
			found, file = append(found, layer.BuiltinPrefix+"schemas/"+name), f
		}
	}
	for _, d := range o.users {
		p, display := d.Path(name)
		f, err := d.FS.Open(p)
		if err != nil {
			continue
		}
		if file != nil {
			f.Close()
		} else {
			file = f
		}
		found = append(found, display)
	}
	switch {
	case len(found) > 1:
		file.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("defined by more than one layer: %s", strings.Join(found, ", "))}
	case file == nil:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return file, nil
}

// Source is a validated W0 result: its bytes' hash and the validated document.
type Source struct {
	ID     string
	File   string
	Sha256 string
	Data   []byte // the bytes as read
	Doc    any
	*schema.Source
}

// LoadSources reads and validates the source of every fixture of m: fixture id of suite s is the
// file sources/s/id.json of exactly one fixture layer. The sources of known (DeriveFixtures's) are
// taken as they are.
func LoadSources(v *schema.Validator, m *contract.Model, layers []Dir, known map[string]*Source) (map[string]*Source, error) {
	for _, d := range layers {
		if err := d.Check("--fixtures"); err != nil {
			return nil, err
		}
	}
	out := map[string]*Source{}
	for _, id := range contract.SortedKeys(m.Fixtures) {
		if s, ok := known[id]; ok {
			out[id] = s
			continue
		}
		s, err := LoadFixtureSource(v, id, m.Fixtures[id], layers)
		if err != nil {
			return nil, err
		}
		out[id] = s
	}
	return out, nil
}

// LoadFixtureSource reads and validates the source of one catalogued fixture: the file
// sources/<suite>/<id>.json of exactly one fixture layer.
func LoadFixtureSource(v *schema.Validator, id string, f contract.Fixture, layers []Dir) (*Source, error) {
	rel := "sources/" + f.Suite + "/" + id + ".json"
	var at []Dir
	for _, d := range layers {
		p, display := d.Path(rel)
		switch _, err := fs.Stat(d.FS, p); {
		case err == nil:
			at = append(at, d)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("fixture %s: %s: %w", id, display, safeio.PathCause(err))
		}
	}
	switch len(at) {
	case 0:
		var where []string
		for _, d := range layers {
			_, display := d.Path(rel)
			where = append(where, display)
		}
		return nil, fmt.Errorf("%sfixture %s: no source file (looked for %s)", prefix(f.Pos), id, strings.Join(where, ", "))
	case 1:
	default:
		_, a := at[0].Path(rel)
		_, b := at[1].Path(rel)
		return nil, fmt.Errorf("fixture %s: source defined by two fixture layers: %s and %s", id, a, b)
	}
	p, display := at[0].Path(rel)
	data, err := safeio.ReadFile(at[0].FS, p, strictjson.DefaultLimits.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %s: %w", id, display, safeio.PathCause(err))
	}
	s, err := parseSource(v, data, display, id, f.Revision, at[0].Builtin)
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %w", id, err)
	}
	return s, nil
}

func prefix(pos string) string {
	if pos == "" {
		return ""
	}
	return pos + ": "
}

// blockKinds lists, per fixture, the kinds of the content blocks of its W0 result as its
// revision's binding reads them (its source view), sorted: what a task's appliesTo.blockKinds
// selects on.
func blockKinds(views map[string]project.View) map[string][]string {
	out := map[string][]string{}
	for id, v := range views {
		out[id] = viewKinds(v)
	}
	return out
}

// viewKinds lists the kinds of a view's content blocks, sorted.
func viewKinds(v project.View) []string {
	var kinds []string
	items, _ := v["content"].([]any)
	for _, it := range items {
		obj, _ := it.(map[string]any)
		if k, ok := obj["kind"].(string); ok && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// ParseSource decodes, validates and hashes the bytes of one source.
func ParseSource(v *schema.Validator, data []byte, display, id, revision string) (*Source, error) {
	return parseSource(v, data, display, id, revision, false)
}

// parseSource is ParseSource for bytes read from a built-in fixture layer when builtin is set:
// those the build validated (builtin_sources.go) are not validated again.
func parseSource(v *schema.Validator, data []byte, display, id, revision string, builtin bool) (*Source, error) {
	doc, err := strictjson.Decode(display, data, strictjson.DefaultLimits)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	read := v.ValidateSource
	if builtin && v.BuiltinSchema(revision) && validatedAtBuild(id, revision, sha) {
		read = v.KnownSource
	}
	s, err := read(display, revision, doc)
	if err != nil {
		return nil, err
	}
	return &Source{ID: id, File: display, Sha256: sha, Data: data, Doc: doc, Source: s}, nil
}

// DescribeObservations names the observation directories a run reads, for a message about their
// records.
func (o Options) DescribeObservations() string {
	dirs, err := o.ObservationDirs()
	if err != nil || len(dirs) == 0 {
		return "any observation directory (none selected)"
	}
	var names []string
	for _, d := range dirs {
		if isStdin(d) {
			names = append(names, StdinName)
			continue
		}
		names = append(names, d.Display)
	}
	return strings.Join(names, ", ")
}
