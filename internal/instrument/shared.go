package instrument

import (
	"fmt"
	"maps"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// A run on the built-in layers alone (no --contracts, --policies, --schemas or --fixtures, the
// binary's own built-in file system) loads what every other such run loads: the same model, the
// same validator, the same compiled policies, projectors, bindings and sources. Load keeps that
// part, the shared base, once per MCP revision (the one option besides the layers it depends
// on), and makes each later run of the process an Instrument of its own on it: a server answering
// many checks, or a test binary running hundreds of commands, loads the built-in layers once.
//
// What is shared is never written once Load has made it (WithProfile shares the same parts
// between the profiles of one run): the model (Load's last write is ResolveTasks), the validator
// (its schemas compile on first use, once, under its own locks), the engine and its prepared
// queries (safe for concurrent use), the compiled projectors and the source views. What a run
// writes is its own: the profile and scope's policy inputs (prepareInputs), the verdict memo, the
// carrier and view caches, the version index, and the map of sources, copied for each run
// because a challenge case's source stands in for its fixture's during a validation
// (mutate.ValidateRecord). Anything that is not the built-in layers alone (a user layer, another
// built-in file system, which cannot be told apart by identity) is loaded as before.
// TestSharedBaseConcurrentProfiles (internal/check) runs two profiles at once on the shared base
// and compares their reports with those of unshared loads.

// basesKept is how many shared bases the process keeps, the most recently used: two (one per
// revision, as when the cache kept two generations of one), each live heap the collector marks on
// every cycle of every later run.
const basesKept = 2

// bases is the process's cache of shared bases, by MCP revision.
var bases = newLRU[string, *sharedBase](basesKept)

// sharedBase is the profile-independent part of a loaded Instrument (see above).
type sharedBase struct {
	model      *contract.Model
	validator  *schema.Validator
	engine     *policy.Engine
	sources    map[string]*Source // copied for each run
	queries    map[string]*policy.Query
	positional map[string]bool
	reads      map[string]string
	stages     map[laneStage]map[string]*project.Projector
	selecting  map[laneStage][]*project.Projector
	bindings   map[string]*project.Projector
	srcViews   map[string]project.View
}

// sharedKey is the key of the shared base opts may use, and false when opts read anything but the
// built-in layers of the binary.
func sharedKey(opts inputs.Options) (string, bool) {
	if opts.NoBuiltin || opts.Builtin != nil || len(opts.Contracts) > 0 || len(opts.Policies) > 0 ||
		len(opts.Schemas) > 0 || len(opts.Fixtures) > 0 {
		return "", false
	}
	return opts.Revision, true
}

// keepBase keeps the profile-independent part of in, just loaded with opts, when opts may share it.
func keepBase(in *Instrument, opts inputs.Options) {
	key, ok := sharedKey(opts)
	if !ok {
		return
	}
	bases.Add(key, &sharedBase{model: in.Model, validator: in.Validator, engine: in.engine,
		sources: maps.Clone(in.Sources), queries: in.queries, positional: in.positional, reads: in.reads,
		stages: in.stages, selecting: in.selecting, bindings: in.bindings, srcViews: in.srcViews})
}

// fromBase is Load on a shared base: the instrument for opts's profile and scope, with every
// part a run writes its own. ok is false when there is no base for opts.
func fromBase(opts inputs.Options) (in *Instrument, ok bool, err error) {
	key, shareable := sharedKey(opts)
	if !shareable {
		return nil, false, nil
	}
	b, found := bases.Get(key)
	if !found {
		return nil, false, nil
	}
	prof, known := b.model.Profiles[opts.Profile]
	if !known {
		return nil, true, result.AsInput(fmt.Errorf("unknown profile %q (the contracts define %s)", opts.Profile, strings.Join(contract.SortedKeys(b.model.Profiles), ", ")))
	}
	warmed := make(chan struct{})
	in = &Instrument{Model: b.model, Profile: prof, Validator: b.validator, Sources: maps.Clone(b.sources),
		queries: b.queries, positional: b.positional, reads: b.reads, stages: b.stages, selecting: b.selecting,
		inputs: map[inputKey]base{}, bindings: b.bindings, srcViews: b.srcViews, engine: b.engine, opts: opts, warmed: warmed}
	warmCarriers(b.validator, b.model, opts, warmed)
	return in, true, nil
}

// validators keeps, by NoBuiltin, the validator of the binary's built-in schemas with no user
// schema layer: what every run without --schemas compiles, whatever its contracts, policies and
// fixtures. A Validator is immutable once made but for the schemas it compiles on first use, once
// and under its own locks, which depend on nothing but its schema layers: runs share it as the
// workers of one run do. It has two keys, so it holds both.
var validators = newLRU[bool, *schema.Validator](2)

// newValidator is inputs.NewValidator for opts's schema layers, shared with the other runs of the process
// that read the built-in schemas alone (validators).
func newValidator(opts inputs.Options) (*schema.Validator, error) {
	if len(opts.Schemas) > 0 || opts.Builtin != nil {
		return inputs.NewValidator(opts.BuiltinFS(), opts.SchemaLayers(), !opts.NoBuiltin)
	}
	if v, ok := validators.Get(opts.NoBuiltin); ok {
		return v, nil
	}
	v, err := inputs.NewValidator(opts.BuiltinFS(), opts.SchemaLayers(), !opts.NoBuiltin)
	if err != nil {
		return nil, err
	}
	validators.Add(opts.NoBuiltin, v)
	return v, nil
}
