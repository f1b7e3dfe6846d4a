package instrument

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"

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
// (mutate.ValidateRecord). Another built-in file system, which cannot be told apart by identity,
// is loaded as before.
//
// User layers are shared the same way, keyed by what decides their base (userKey): the working
// directory, the directories as given (positions and messages name the files by them), the MCP
// revision, --no-builtin, and the bytes of every file of every user layer (layer.Dir.Hash, a
// fixture layer's observations/ left out, as the contract set leaves them: records are not
// loaded). A test binary, a CI job's lock and checks, a server: a user's layers loaded again,
// unchanged, cost the hash of their files, not the CUE decode, the policy compile and the
// sources' derivation again. The key is hashed again once the load is done, and the base kept
// only when the files did not change meanwhile.
// TestSharedBaseConcurrentProfiles (internal/check) runs two profiles at once on the shared base
// and compares their reports with those of unshared loads.

// basesKept is how many shared bases the process keeps, the most recently used: two (one per
// revision, as when the cache kept two generations of one), each live heap the collector marks on
// every cycle of every later run.
const basesKept = 2

// bases is the process's cache of shared bases, by MCP revision.
var bases = newLRU[string, *sharedBase](basesKept)

// userBasesKept is how many bases of user layers the process keeps: one, the last loaded, so
// that runs on other layers (a test binary's parallel tests) never evict the built-in bases and
// the live heap grows by one base at most.
const userBasesKept = 1

// userBases is the process's cache of the bases of user layers, by userKey.
var userBases = newLRU[string, *sharedBase](userBasesKept)

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
	// sourceStages and sourceParts are a revision layer's (schema.SourceCarrier): empty for the
	// built-in layers, not for a user's draft revision.
	sourceStages map[laneStage]bool
	sourceParts  map[string]map[string]*project.Projector
}

// baseKey is the key of a shared base: the MCP revision of the built-in layers alone, or the
// userKey of user layers.
type baseKey struct {
	user bool
	id   string
}

// cache is the cache of the bases k is a key of: the built-in ones, or the user layers'.
func (k baseKey) cache() *lru.Cache[string, *sharedBase] {
	if k.user {
		return userBases
	}
	return bases
}

// sharedKey is the key of the shared base opts may use, and false when opts read another
// built-in file system, or when the user layers cannot be read (Load says why).
func sharedKey(opts inputs.Options) (baseKey, bool) {
	if opts.Builtin != nil {
		return baseKey{}, false
	}
	if opts.NoBuiltin || len(opts.Contracts) > 0 || len(opts.Policies) > 0 || len(opts.Schemas) > 0 || len(opts.Fixtures) > 0 {
		id, ok := userKey(opts)
		return baseKey{user: true, id: id}, ok
	}
	return baseKey{id: opts.Revision}, true
}

// userKeyFormat names userKey's recipe; it changes whenever the recipe does.
const userKeyFormat = "contractcheck-user-base-v2"

// userKey is the key of the base of opts's user layers: the sha256 of the working directory,
// the MCP revision, --no-builtin and, for each kind of layer in turn, each directory as given (cleaned)
// and the bytes of its files (inputs.Options.HashUserLayers; a fixture layer's observations/ left out). It is
// false when the working directory or a file cannot be read.
func userKey(opts inputs.Options) (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nwd %q\nrevision %q\nno-builtin %t\n", userKeyFormat, wd, opts.Revision, opts.NoBuiltin)
	if err := opts.HashUserLayers(h); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// keepBase keeps the profile-independent part of in, just loaded with opts, when opts may share it
// under key (sharedKey before the load): a user layer's files are hashed again, and the base
// is kept only when they still hash to key.
func keepBase(in *Instrument, opts inputs.Options, key baseKey, ok bool) {
	if !ok {
		return
	}
	if again, same := sharedKey(opts); !same || again != key {
		return
	}
	key.cache().Add(key.id, &sharedBase{model: in.Model, validator: in.Validator, engine: in.engine,
		sources: maps.Clone(in.Sources), queries: in.queries, positional: in.positional, reads: in.reads,
		stages: in.stages, selecting: in.selecting, bindings: in.bindings, srcViews: in.srcViews,
		sourceStages: in.sourceStages, sourceParts: in.sourceParts})
}

// fromBase is Load on a shared base: the instrument for opts's profile and scope, with every
// part a run writes its own. ok is false when there is no base for opts.
func fromBase(opts inputs.Options, key baseKey, shareable bool) (in *Instrument, ok bool, err error) {
	if !shareable {
		return nil, false, nil
	}
	b, found := key.cache().Get(key.id)
	if !found {
		return nil, false, nil
	}
	prof, known := b.model.Profiles[opts.Profile]
	if !known {
		return nil, true, result.AsInput(fmt.Errorf("unknown profile %q (the contracts define %s)", opts.Profile, strings.Join(contract.SortedKeys(b.model.Profiles), ", ")))
	}
	warmed := make(chan struct{})
	in = &Instrument{Model: b.model, Profile: prof, Validator: b.validator, Sources: maps.Clone(b.sources),
		queries: b.queries, positional: b.positional, reads: b.reads, stages: b.stages, sourceStages: b.sourceStages,
		selecting: b.selecting, inputs: map[inputKey]base{}, bindings: b.bindings, sourceParts: b.sourceParts,
		srcViews: b.srcViews, engine: b.engine, opts: opts, warmed: warmed}
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
