// Package inputs selects what a run reads, below the pipeline: the options that name the layers
// of each kind of input (Options: the built-in layer, then the user's directories, each adding to
// the ones before), the observation directories and their record files (RecordFiles), standard
// input read once (Stdin), and the validator over the schema layers the options select
// (NewValidator, BuiltinValidator). Reading the inputs is the pipeline's (internal/instrument
// loads the contracts, policies and sources; internal/check streams the records): command flags,
// the result cache's key, lock, probe and clientsdoc name their inputs through this package
// without compiling the CUE and OPA engine.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package inputs

import (
	"fmt"
	"io/fs"
	"strings"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Dir is a directory of inputs (see package layer).
type Dir = layer.Dir

// UserDir is a directory of the user's, shown under the name it was given.
func UserDir(dir string) Dir { return layer.User(dir) }

// BuiltinLayer is the built-in layer of one kind of input (contracts, policies, schemas,
// fixtures), read from the binary's own file system.
func BuiltinLayer(kind string) Dir { return layer.Builtin(contractcheck.Builtin, kind) }

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
