// Package instrument is the seam every tool evaluates records through: Load reads the contract
// model, the policies and the schemas once, validates every source and prepares the task queries;
// ReadRecord reads one decoded line of a record file into a validated record; Evaluate projects
// one record's carrier through the compartments its tasks read and evaluates each task against
// the fixture's W0 source (with a verdict memo keyed by the views' hashes), handing back the
// result model's readings (result.Reading). The loop over record files is the check runner's
// (internal/check/pipeline), which feeds the readings to the census and reads the visibility
// readout; compare, mutate, challenge, reproduce, the bundle, probe and the verbs validate,
// inspect and capture use the instrument for their own ends.
//
// The instrument puts the steps together and does none of their work: the files of the layers
// are read through their directories (layer.Dir, internal/inputs), a record line is decoded in
// internal/inputs (DecodeRecord) and a source file's bytes by the schema step
// (schema.Validator.ReadSource), a view's hash, what it holds and its decoder targets are the
// projector's (project.Hash, Holds, Targets), the class of a policy input the policy step's
// (policy.Query.Class), and the CUE model loads under the run's limits in internal/contract
// (LoadLimited). The run's limits reach the instrument through its context: once the memory
// watchdog stops the run (it cancels the run's context with its *guard.LimitError), ReadRecord
// and Evaluate begin no further validation or projection.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package instrument

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"golang.org/x/sync/errgroup"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// Instrument is everything a check needs before it reads a record, loaded once: the contract
// model, the validator, the compiled projectors, the prepared queries and the validated sources.
type Instrument struct {
	Model     *contract.Model
	Profile   contract.Profile
	Validator *schema.Validator
	Sources   map[string]*Source
	queries   map[string]*policy.Query // by task id
	// positional holds the tasks whose policies may read the observation's lane, version or
	// configuration; the others' verdicts are shared by every position that observed the same
	// view. With the stages and fixtures a policy cannot tell apart (base.class) and the view
	// members it declares it reads (reads), the built-in check evaluates 609 inputs for the 5,692
	// bindings it decides.
	positional map[string]bool
	// reads holds, by task, the view members its policy declares it reads (policy.Query.ViewReads),
	// joined by commas; "" when it reads the whole views. The policy is handed the source and
	// observed views holding those members only, so bindings whose views differ elsewhere (a
	// per-call _meta, an isError flag to a task on the content) share its verdict.
	reads  map[string]string
	stages map[laneStage]map[string]*project.Projector // compartment projectors by lane stage
	// sourceStages are the lane stages whose carrier is a source of its fixture's revision
	// (schema.SourceCarrier): a carrier of a layer's revision is read through its source
	// binding there (asSource).
	sourceStages map[laneStage]bool
	// selecting lists, by lane stage, the projectors of its compartments whose bindings select by
	// value, in compartment order: every captured carrier is read through them once
	// (readsOneWay), so that a selector matching several elements is an input error.
	selecting map[laneStage][]*project.Projector
	inputs    map[inputKey]base // task/fixture/contract/source part of each input
	// bindings are the compiled source bindings, by revision (contract.Model.SourceBinding).
	bindings map[string]*project.Projector
	// sourceParts are the compiled source compartments of each revision, by revision and name
	// (contract.Revision.Compartments): what a task's sources read.
	sourceParts map[string]map[string]*project.Projector
	// srcViews are the fixtures' source views, each read through its revision's binding at load.
	srcViews map[string]project.View
	engine   *policy.Engine
	opts     inputs.Options
	// verdicts memoizes policy verdicts by what of the input the policy can read (verdictKey):
	// the sandboxed policies are pure functions of it, and repetitions, shared carriers and
	// stages a policy cannot tell apart repeat the same inputs.
	verdicts memo
	// warmed is closed once the carrier schemas Load compiles in the background are compiled
	// (warmCarriers): a benchmark that measures the heap waits for it.
	warmed <-chan struct{}
	// validCarriers and views remember, by a carrier's bytes, that it satisfied a carrier schema
	// and what it reads as through a compartment: repetitions repeat their carriers byte for byte.
	validCarriers spanCache[string, struct{}]
	views         spanCache[viewKey, observedView]
	// versions indexes the lanes' declared versions: a record's version is looked up in it,
	// not searched for in the lane's list (a generated lane declares tens of thousands).
	versions versionIndex
}

// versionIndex holds, for each lane, the positions of its declared versions in the model's list
// sorted by the versions' text, made on first use: a version is found by binary search. A set of
// the versions cost some 35 bytes a version (2.6 MB live through the whole of a ten-million-
// binding run, whose generated lanes declare tens of thousands); a position is 4.
type versionIndex struct {
	once  sync.Once
	lanes map[string]declared
}

// declared is a lane's versions (the model's list) and their positions in text order.
type declared struct {
	versions []string
	order    []int32
}

// declares reports whether lane declares version in m.
func (x *versionIndex) declares(m *contract.Model, lane, version string) bool {
	x.once.Do(func() {
		x.lanes = make(map[string]declared, len(m.Lanes))
		for id, l := range m.Lanes {
			d := declared{versions: l.Versions, order: make([]int32, len(l.Versions))}
			for i := range d.order {
				d.order[i] = int32(i)
			}
			slices.SortFunc(d.order, func(a, b int32) int { return strings.Compare(d.versions[a], d.versions[b]) })
			x.lanes[id] = d
		}
	})
	d := x.lanes[lane]
	_, found := slices.BinarySearchFunc(d.order, version, func(i int32, v string) int { return strings.Compare(d.versions[i], v) })
	return found
}

// viewKey is what a carrier's view depends on besides the carrier: where it was observed, through
// which compartment it is read, and which of its members are kept (Instrument.reads).
type viewKey struct{ lane, stage, compartment, reads, revision string }

// observedView is a view with the hash of its canonical encoding.
type observedView struct {
	tree project.View
	hash [sha256.Size]byte
}

type laneStage struct{ lane, stage string }

type inputKey struct{ fixture, task, stage string }

// verdictKey identifies a policy input as far as the task's policy can read it: the task, the
// class of its constant part (base.class), the lane, version and configuration it was observed in
// (left empty when the policy cannot read them: see positional), and the hash of the observed
// view's canonical encoding.
type verdictKey struct {
	task                         string
	class                        [sha256.Size]byte
	lane, version, configuration string
	view                         [sha256.Size]byte
}

// base is the constant part of a policy input (task, stage, fixture, contract, source view) as a
// policy value, with its class: the hash of the members the task's policy may read
// (policy.Query.MayRead). Two stages, or two fixtures, whose bases a policy cannot tell apart
// share its verdicts on the same observed view: none of the built-in tasks reads the stage, so a
// view that survives every stage unchanged is evaluated once, not four times.
type base struct {
	term  *ast.Term
	class [sha256.Size]byte
}

// Load builds the instrument for a profile from the selected layers.
func Load(ctx context.Context, opts inputs.Options) (*Instrument, error) {
	if opts.Profile == "" {
		opts.Profile = inputs.DefaultProfile
	}
	key, shareable := sharedKey(opts)
	if in, ok, err := fromBase(opts, key, shareable); ok {
		// The same layers, loaded before in the process (shared.go).
		if err != nil {
			return nil, err
		}
		return in.scoped()
	}
	// The contract model, the schemas and the policies do not depend on one another: they load
	// side by side. Errors are reported in this order whichever finishes first.
	// The carrier schemas of a user's layers that the model's lanes name are compiled on the
	// validator's goroutine once the model is there; a failure among them is reported after
	// everything Load reports before. Built-in carrier schemas compile on first use, or before it
	// in the background when the record files name their lanes (warmCarriers).
	// errgroup waits for the three; it does not cancel the others at the first error, so that
	// which error is reported never depends on which load finished first.
	var (
		g          errgroup.Group
		m          *contract.Model
		v          *schema.Validator
		eng        *policy.Engine
		errs       [3]error
		carrierErr error
		warmed     = make(chan struct{}) // closed once the background carrier compile is done
		models     = make(chan *contract.Model, 1)
	)
	g.Go(func() error {
		m, errs[0] = contract.LoadLimited(ctx, opts.ContractLayers())
		models <- m
		return errs[0]
	})
	g.Go(func() error {
		if v, errs[1] = newValidator(opts); errs[1] != nil { // shared when it can be (shared.go)
			close(warmed)
			return errs[1]
		}
		m := <-models
		if m != nil {
			carrierErr = compileCarriers(v, m, opts.BuiltinFS(), opts.SchemaLayers(), !opts.NoBuiltin)
		}
		if m == nil || carrierErr != nil {
			close(warmed)
			return nil // reported after everything else Load reports
		}
		warmCarriers(v, m, opts, warmed)
		return nil
	})
	g.Go(func() error {
		eng, errs[2] = policy.Load(opts.PolicyLayers(), policy.LoadOptions{})
		return errs[2]
	})
	_ = g.Wait() // the errors are read below in their fixed order
	switch {
	case errs[0] != nil:
		return nil, result.AsInput(fmt.Errorf("load contracts: %w", errs[0]))
	case errs[1] != nil:
		return nil, result.AsInput(errs[1])
	case errs[2] != nil:
		return nil, result.AsInput(fmt.Errorf("load policies: %w", errs[2]))
	}
	if err := CheckRevisions(v, m); err != nil {
		return nil, result.AsInput(fmt.Errorf("load contracts: %w", err))
	}
	prof, ok := m.Profiles[opts.Profile]
	if !ok {
		return nil, result.AsInput(fmt.Errorf("unknown profile %q (the contracts define %s)", opts.Profile, strings.Join(contract.SortedKeys(m.Profiles), ", ")))
	}
	in := &Instrument{Model: m, Profile: prof, Validator: v, engine: eng, opts: opts, warmed: warmed,
		queries: map[string]*policy.Query{}, positional: map[string]bool{}, reads: map[string]string{},
		stages: map[laneStage]map[string]*project.Projector{}, sourceStages: map[laneStage]bool{}, selecting: map[laneStage][]*project.Projector{}, inputs: map[inputKey]base{}}
	for _, id := range contract.SortedKeys(m.Tasks) {
		q, err := eng.Prepare(ctx, m.Tasks[id].Policy)
		if err != nil {
			at := m.Tasks[id].PolicyPos
			if at != "" {
				at += ": "
			}
			return nil, result.AsInput(fmt.Errorf("%stask %s: %w", at, id, err))
		}
		in.queries[id] = q
		in.positional[id] = q.MayRead("lane") || q.MayRead("laneVersion") || q.MayRead("configuration")
		in.reads[id] = strings.Join(q.ViewReads(), ",")
	}
	if carrierErr != nil {
		return nil, result.AsInput(carrierErr)
	}
	if err := in.compileLanes(); err != nil {
		return nil, result.AsInput(err)
	}
	var err error
	if in.bindings, err = CompileBindings(m); err != nil {
		return nil, result.AsInput(err)
	}
	if in.sourceParts, err = compileSourceParts(m); err != nil {
		return nil, result.AsInput(err)
	}
	derived, err := DeriveFixtures(v, m, in.bindings, opts.FixtureLayers(), opts.Revision)
	if err != nil {
		return nil, result.AsInput(err)
	}
	if in.Sources, err = LoadSources(v, m, opts.FixtureLayers(), derived); err != nil {
		return nil, result.AsInput(err)
	}
	if in.srcViews, err = sourceViews(m, in.bindings, in.Sources); err != nil {
		return nil, result.AsInput(err)
	}
	if err := m.ResolveTasks(blockKinds(in.srcViews)); err != nil {
		return nil, result.AsInput(fmt.Errorf("load contracts: %w", err))
	}
	keepBase(in, opts, key, shareable)
	return in.scoped()
}

// scoped is the instrument with its run's scope checked and the policy inputs of its profile and
// scope prepared: the last steps of Load, on a model loaded now or shared (shared.go).
func (in *Instrument) scoped() (*Instrument, error) {
	if err := checkScope(in.Model, in.opts.Scope); err != nil {
		return nil, result.AsInput(err)
	}
	if err := in.prepareInputs(); err != nil {
		return nil, err
	}
	return in, nil
}

// WithProfile is the instrument for another profile of the same contract set: the model, the
// schemas, the compiled policies, the projectors and the sources are shared, not loaded again;
// only the profile's part of each policy input is prepared anew.
func (in *Instrument) WithProfile(name string) (*Instrument, error) {
	prof, ok := in.Model.Profiles[name]
	if !ok {
		return nil, result.AsInput(fmt.Errorf("unknown profile %q (the contracts define %s)", name, strings.Join(contract.SortedKeys(in.Model.Profiles), ", ")))
	}
	out := &Instrument{Model: in.Model, Profile: prof, Validator: in.Validator, Sources: in.Sources,
		queries: in.queries, positional: in.positional, reads: in.reads, stages: in.stages, sourceStages: in.sourceStages, selecting: in.selecting, inputs: map[inputKey]base{},
		bindings: in.bindings, sourceParts: in.sourceParts, srcViews: in.srcViews,
		engine: in.engine, opts: in.opts}
	out.opts.Profile = name
	if err := out.prepareInputs(); err != nil {
		return nil, err
	}
	return out, nil
}

// Engine is the compiled policy set the instrument evaluates: the verbs beyond check (compare)
// prepare their own queries on it rather than compiling the policies again.
func (in *Instrument) Engine() *policy.Engine { return in.engine }

// Options are the options the instrument was loaded with.
func (in *Instrument) Options() inputs.Options { return in.opts }

// compileCarriers compiles the carrier schema of every lane stage, so that a missing or broken
// one is reported before any record is read; a built-in carrier schema no user layer redefines is
// only checked to be there (builtinCarrier): it compiles on first use, and the built-in ones are
// all compiled by a test (TestEveryObservedStageNamesACarrierSchema). A run whose records come
// from a few lanes compiles only their schemas (the control lane's alone reads the schemas of
// three MCP revisions).
func compileCarriers(v *schema.Validator, m *contract.Model, fsys fs.FS, users []inputs.Dir, builtin bool) error {
	for _, lane := range contract.SortedKeys(m.Lanes) {
		for _, st := range contract.SortedKeys(m.Lanes[lane].Stages) {
			sd := m.Lanes[lane].Stages[st]
			if c := sd.Carrier; c != "" && c != schema.SourceCarrier && !builtinCarrier(fsys, c, users, builtin) {
				if err := v.CompileCarrier(c); err != nil {
					at := ""
					if sd.CarrierPos != "" {
						at = sd.CarrierPos + ": "
					}
					return fmt.Errorf("%slanes.%s.stages.%s.carrier: %w", at, lane, st, err)
				}
			}
		}
	}
	return nil
}

// builtinCarrier reports whether the carrier schema at path (inside the schemas directory) is a
// built-in one that no user schema layer defines too.
func builtinCarrier(fsys fs.FS, path string, users []inputs.Dir, builtin bool) bool {
	if !builtin {
		return false
	}
	for _, d := range users {
		p, _ := d.Path(path)
		if _, err := fs.Stat(d.FS, p); !errors.Is(err, fs.ErrNotExist) {
			return false // defined there (or unreadable): compile it now, and say so if it fails
		}
	}
	_, err := fs.Stat(fsys, "schemas/"+path)
	return err == nil
}

// compileLanes compiles the compartment projectors of every lane stage.
func (in *Instrument) compileLanes() error {
	for _, lane := range contract.SortedKeys(in.Model.Lanes) {
		for _, st := range contract.SortedKeys(in.Model.Lanes[lane].Stages) {
			sd := in.Model.Lanes[lane].Stages[st]
			ps := map[string]*project.Projector{}
			for _, name := range contract.SortedKeys(sd.Compartments) {
				p, err := project.CompileWith(fmt.Sprintf("lanes.%s.stages.%s.compartments.%s", lane, st, name), sd.Compartments[name], project.Options{Accepts: in.Validator.Accepts})
				if err != nil {
					return err
				}
				ps[name] = p
				if p.Selects() {
					in.selecting[laneStage{lane, st}] = append(in.selecting[laneStage{lane, st}], p)
				}
			}
			in.stages[laneStage{lane, st}] = ps
			if sd.Carrier == schema.SourceCarrier {
				in.sourceStages[laneStage{lane, st}] = true
			}
		}
	}
	return nil
}

// prepareInputs builds, once per fixture, task and stage the task is evaluated at within the
// run's scope, the constant part of the policy input: the task, the fixture, the contract and the
// source view. (Evaluate only sees records within the scope, and only evaluates tasks within it.)
func (in *Instrument) prepareInputs() error {
	sc, co := in.opts.Scope, in.Profile.Cohort.Selection()
	for _, id := range contract.SortedKeys(in.Model.Fixtures) {
		f := in.Model.Fixtures[id]
		if !within(sc.Fixtures, id) || !within(sc.Suites, f.Suite) || !within(co.Fixtures, id) || !within(co.Suites, f.Suite) {
			continue
		}
		whole := in.srcViews[id]
		views := map[string]*Observed{} // by the members kept (Instrument.reads)
		for _, task := range in.tasksInScope(in.Model.ProfileTasks(in.Profile, f)) {
			view, ok := views[in.reads[task]]
			if !ok {
				var err error
				if view, err = NewObserved(keep(whole, in.reads[task])); err != nil {
					return fmt.Errorf("%s: %w", in.Sources[id].File, err)
				}
				views[in.reads[task]] = view
			}
			for _, st := range contract.Stages[1:] {
				if !in.Model.Tasks[task].AtStage(st) || !within(sc.Stages, st) || !within(co.Stages, st) {
					continue // Evaluate gives the task no binding there
				}
				b, err := in.baseInput(id, f, task, st, view, in.Sources[id].Doc)
				if err != nil {
					return fmt.Errorf("%s: %w", in.Sources[id].File, err)
				}
				in.inputs[inputKey{id, task, st}] = b
			}
		}
	}
	return nil
}

// NewObserved is view with its hash, its policy value made on first use: a fixture's source view
// as bases take it (made once per fixture, its canonical encoding and its policy value serve
// every task and stage), or a view a verb reads itself.
func NewObserved(view project.View) (*Observed, error) {
	v, err := viewOf(view)
	if err != nil {
		return nil, err
	}
	return &Observed{observedView: v}, nil
}

// baseInput is the policy input without the observation's position and view: the task, the
// stage, the fixture, the contract (atoms, null policy, and the result-metadata policy the profile
// asks for at this stage), the source view and, for a task that names sources, the source
// compartments it reads of doc, the W0 result (sourcesOf).
func (in *Instrument) baseInput(id string, f contract.Fixture, task, stage string, source *Observed, doc0 any) (base, error) {
	meta := map[string]any{"mode": "preserve"}
	if w := in.Profile.WithholdPrivateMeta; w != nil && len(f.PrivateMeta) > 0 && slices.Contains(w.Stages, stage) {
		meta = map[string]any{"mode": "withhold", "keys": f.PrivateMeta}
	}
	doc := map[string]any{
		"task":    task,
		"stage":   stage,
		"fixture": map[string]any{"id": id, "family": f.Family, "suite": f.Suite},
		"contract": map[string]any{
			"atoms": in.Model.Tasks[task].Atoms, "optional": in.Model.OptionalAtoms(),
			"nullPolicy": in.Profile.NullPolicy, "metaPolicy": meta,
		},
	}
	if names := in.Model.Tasks[task].Sources; len(names) > 0 {
		parts, err := in.sourcesOf(f.Revision, names, doc0)
		if err != nil {
			return base{}, fmt.Errorf("fixture %s: %w", id, err)
		}
		doc["sources"] = parts
	}
	val, err := policy.Input(doc)
	if err != nil {
		return base{}, fmt.Errorf("fixture %s: %w", id, err)
	}
	src, err := source.Value()
	if err != nil {
		return base{}, fmt.Errorf("fixture %s: %w", id, err)
	}
	val.(ast.Object).Insert(ast.StringTerm("source"), src)
	// The class: the members the policy may read, the source by its own hash.
	b := base{term: ast.NewTerm(val)}
	if b.class, err = in.queries[task].Class(doc, source.hash); err != nil {
		return base{}, fmt.Errorf("fixture %s: %w", id, err)
	}
	return b, nil
}

// EvaluatePair evaluates one task on a source document and a carrier observed at a position
// (its fixture is only a name here), outside any record: the source is read through the source
// binding of f's revision (the pinned revision's when f names none), the carrier through the
// stage's compartment for the task. f supplies the family and private keys the contract needs.
func (in *Instrument) EvaluatePair(ctx context.Context, task string, pos result.Position, f contract.Fixture, source, carrier any) (policy.Verdict, error) {
	q, ok := in.queries[task]
	if !ok {
		return policy.Verdict{}, fmt.Errorf("unknown task %q", task)
	}
	rev := f.Revision
	if rev == "" {
		rev = schema.DefaultRevision // as the validator reads "" (a fixture built in Go, not catalogued)
	}
	bp, ok := in.bindings[rev]
	if !ok {
		return policy.Verdict{}, result.AsInput(fmt.Errorf("fixture %s: %w", pos.Fixture, in.Model.NoBinding(rev)))
	}
	whole, err := bp.Read(source)
	if err != nil {
		return policy.Verdict{}, result.AsInput(fmt.Errorf("fixture %s: the source: %w", pos.Fixture, err))
	}
	src, err := NewObserved(keep(whole, in.reads[task]))
	if err != nil {
		return policy.Verdict{}, err
	}
	b, err := in.baseInput(pos.Fixture, f, task, pos.Stage, src, source)
	if err != nil {
		return policy.Verdict{}, err
	}
	if err := in.oneWay(pos.Fixture, pos.Lane, pos.Stage, carrier); err != nil {
		return policy.Verdict{}, result.AsInput(fmt.Errorf("fixture %s, lane %s, stage %s: the carrier: %w", pos.Fixture, pos.Lane, pos.Stage, err))
	}
	o, err := in.observe(pos.Fixture, pos.Lane, pos.Stage, in.Model.Tasks[task].Compartment, in.reads[task], carrier, nil)
	if err != nil {
		return policy.Verdict{}, err
	}
	val, err := o.Value()
	if err != nil {
		return policy.Verdict{}, err
	}
	v, err := q.Eval(ctx, withObserved(b.term, pos, val))
	if err != nil {
		return policy.Verdict{}, result.AsInstrument(err)
	}
	if err := in.CheckVerdict(task, v); err != nil {
		return policy.Verdict{}, err
	}
	return v, nil
}

// ViewReads are the view members task's policy declares it reads (policy.Query.ViewReads): what
// of the source and observed views it is handed; nil when it is handed the whole views.
func (in *Instrument) ViewReads(task string) []string {
	if q, ok := in.queries[task]; ok {
		return q.ViewReads()
	}
	return nil
}

// SourceView is a fixture's W0 result through its revision's source binding, as read at load.
// Views are never modified once made: a caller that changes one copies it first.
func (in *Instrument) SourceView(fixture string) project.View {
	return in.srcViews[fixture]
}

// SourceProjector is the compiled source binding of a revision, and false when the model binds
// none for it.
func (in *Instrument) SourceProjector(revision string) (*project.Projector, bool) {
	p, ok := in.bindings[revision]
	return p, ok
}

// sourcesOf reads a W0 result of revision through the revision's source compartments names
// (contract.Revision.Compartments), each a view by name; a name the revision binds none of is no
// member. A selector that matches several elements is an error naming the compartment and path.
func (in *Instrument) sourcesOf(revision string, names []string, doc any) (map[string]any, error) {
	if revision == "" {
		revision = schema.DefaultRevision
	}
	out := map[string]any{}
	for _, name := range names {
		p, ok := in.sourceParts[revision][name]
		if !ok {
			continue
		}
		v, err := p.Read(doc)
		if err != nil {
			return nil, err
		}
		out[name] = map[string]any(v)
	}
	return out, nil
}

// compileSourceParts compiles the source compartments of every revision of the model, by
// revision and name; a binding that does not compile is an error naming it and where the
// revision's binding is written.
func compileSourceParts(m *contract.Model) (map[string]map[string]*project.Projector, error) {
	out := map[string]map[string]*project.Projector{}
	for _, rev := range contract.SortedKeys(m.Revisions) {
		r := m.Revisions[rev]
		for _, name := range contract.SortedKeys(r.Compartments) {
			p, err := project.Compile(fmt.Sprintf("revisions.%q.compartments.%s", rev, name), r.Compartments[name])
			if err != nil {
				return nil, fmt.Errorf("%s%w", prefix(r.SourcePos), err)
			}
			if out[rev] == nil {
				out[rev] = map[string]*project.Projector{}
			}
			out[rev][name] = p
		}
	}
	return out, nil
}

// CompileBindings compiles the source binding of every revision of the model, by revision; a
// binding that does not compile is an error naming it and where it is written.
func CompileBindings(m *contract.Model) (map[string]*project.Projector, error) {
	out := make(map[string]*project.Projector, len(m.Revisions))
	for _, rev := range contract.SortedKeys(m.Revisions) {
		r := m.Revisions[rev]
		p, err := project.Compile(contract.SourceName(rev), r.Source)
		if err != nil {
			return nil, fmt.Errorf("%s%w", prefix(r.SourcePos), err)
		}
		out[rev] = p
	}
	return out, nil
}

// sourceViews reads every fixture's source through its revision's binding: a fixture whose
// revision has no binding, or whose source a selector of the binding cannot read one way only,
// is an input error naming the fixture, its source file and the revision.
func sourceViews(m *contract.Model, bindings map[string]*project.Projector, sources map[string]*Source) (map[string]project.View, error) {
	out := make(map[string]project.View, len(sources))
	for _, id := range contract.SortedKeys(sources) {
		s := sources[id]
		rev := m.Fixtures[id].Revision
		p, ok := bindings[rev]
		if !ok {
			return nil, fmt.Errorf("%sfixture %s (%s): %w", prefix(m.Fixtures[id].Pos), id, s.File, m.NoBinding(rev))
		}
		v, err := p.Read(s.Doc)
		if err != nil {
			return nil, fmt.Errorf("%s: fixture %s, revision %s: %w", s.File, id, rev, err)
		}
		out[id] = v
	}
	return out, nil
}

// View is a carrier through the compartment of a lane's stage; a compartment the stage declares
// unbound (its carrier has no place for it) reads as an empty view. ViewOf reads a fixture's
// carrier, as check does.
func (in *Instrument) View(lane, stage, compartment string, carrier any) project.View {
	if p, bound := in.stages[laneStage{lane, stage}][compartment]; bound {
		return p.Project(carrier)
	}
	return project.View{}
}

// ViewOf is View of a carrier of fixture: a carrier that is its fixture's source, of a revision a
// layer adds (asSource), is read through that revision's source binding.
func (in *Instrument) ViewOf(fixture, lane, stage, compartment string, carrier any) project.View {
	if p, ok := in.asSource(fixture, lane, stage); ok {
		return p.Project(carrier)
	}
	return in.View(lane, stage, compartment, carrier)
}

// asSource is the source binding a lane stage's carrier of a fixture is read through instead of
// the stage's compartments, and true, when the stage's carrier is a source of its fixture's
// revision (carrier schema schema.SourceCarrier: the control lane's, each source read back
// unchanged) and that revision is not one of the built-in schema layer's: its results may have
// another shape than the CallToolResult the stage's compartments read (a draft whose results are
// a list of outputs), and the control must read them as the source is read. The built-in
// revisions keep the stage's own compartments, which declare the deliveries of media blocks at
// M3 and H4 beside the CallToolResult binding.
func (in *Instrument) asSource(fixture, lane, stage string) (*project.Projector, bool) {
	if !in.sourceStages[laneStage{lane, stage}] {
		return nil, false
	}
	rev := in.Model.Fixtures[fixture].Revision
	if rev == "" || inputs.IsBuiltinRevision(rev) {
		return nil, false
	}
	p, ok := in.bindings[rev]
	return p, ok
}

// Observed is a carrier's view through one compartment, with its canonical hash; its policy
// value is built only when a verdict is not memoized, and once for all the record's tasks (and
// compare's decoders) that read the compartment. It belongs to one record's evaluation: not safe
// for concurrent use.
type Observed struct {
	observedView
	term *ast.Term
}

// View is the view.
func (o *Observed) View() project.View { return o.tree }

// Hash is the sha256 of the view's canonical encoding (project.Hash).
func (o *Observed) Hash() [sha256.Size]byte { return o.hash }

// Value is the view as a policy input value, built on first use.
func (o *Observed) Value() (*ast.Term, error) {
	if o.term == nil {
		val, err := policy.Input(o.tree)
		if err != nil {
			return nil, err
		}
		o.term = ast.NewTerm(val)
	}
	return o.term, nil
}

// observe reads a carrier through a compartment of a lane's stage, keeping the members reads
// names (Instrument.reads; "" keeps the whole view); carrierBytes, when known, are the carrier as
// written, and a carrier read through the same compartment before is not projected and hashed
// again (views are never modified once made).
func (in *Instrument) observe(fixture, lane, stage, compartment, reads string, carrier any, carrierBytes []byte) (*Observed, error) {
	k := viewKey{lane, stage, compartment, reads, ""}
	if _, ok := in.asSource(fixture, lane, stage); ok {
		k.revision = in.Model.Fixtures[fixture].Revision
	}
	if v, ok := in.views.get(k, carrierBytes); ok {
		return &Observed{observedView: v}, nil
	}
	v, err := viewOf(keep(in.ViewOf(fixture, lane, stage, compartment, carrier), reads))
	if err != nil {
		return nil, err
	}
	in.views.put(k, carrierBytes, v)
	return &Observed{observedView: v}, nil
}

// Observe reads a record's carrier through one compartment of its lane stage, the whole view,
// with the sha256 of its canonical encoding. Views are cached by the carrier's bytes: a view
// Evaluate projected for the record's tasks is not projected again (the visibility readout reads
// the record so, internal/check/pipeline, and compare's decoders).
func (in *Instrument) Observe(rec *Record, compartment string) (*Observed, error) {
	return in.observe(rec.Fixture, rec.Lane, rec.Stage, compartment, "", rec.Carrier, rec.carrierBytes)
}

// BlockKinds are the kinds of each fixture's source content blocks, by fixture, each list sorted:
// what the visibility readout is prepared with (visibility.New).
func (in *Instrument) BlockKinds() map[string][]string { return blockKinds(in.srcViews) }

// keep is the view with only the members reads names (comma-separated), or the view itself when
// reads is "": what a task's policy is handed of a view (Instrument.reads).
func keep(view project.View, reads string) project.View {
	if reads == "" {
		return view
	}
	out := project.View{}
	for m := range strings.SplitSeq(reads, ",") {
		if v, ok := view[m]; ok {
			out[m] = v
		}
	}
	return out
}

// viewOf is a view with the hash of its canonical encoding.
func viewOf(tree project.View) (observedView, error) {
	h, err := project.Hash(tree)
	if err != nil {
		return observedView{}, err
	}
	return observedView{tree: tree, hash: h}, nil
}

// judged is a verdict with the outcome it gives and the census fingerprint of the reading it
// makes (result.Fingerprint), computed once per distinct policy input and shared, like the
// verdict, by every binding that has that input.
type judged struct {
	policy.Verdict
	outcome     string
	fingerprint [sha256.Size]byte
}

// verdict evaluates a task's prepared query on the input made of the constant part k, the
// record's position and the observed view, or returns the verdict already computed for the same
// input. A failing evaluation, or a verdict that breaks the policy interface, is an
// InstrumentError naming the policy's files.
func (in *Instrument) verdict(ctx context.Context, k inputKey, pos result.Position, o *Observed) (judged, error) {
	b := in.inputs[k]
	vk := verdictKey{task: k.task, class: b.class, view: o.hash}
	if in.positional[k.task] {
		vk.lane, vk.version, vk.configuration = pos.Lane, pos.LaneVersion, pos.Configuration
	}
	return in.verdicts.do(vk, func() (judged, error) { return in.evaluate(ctx, k, b, pos, o) })
}

// evaluate is verdict's evaluation, for an input the memo does not have.
func (in *Instrument) evaluate(ctx context.Context, k inputKey, b base, pos result.Position, o *Observed) (judged, error) {
	val, err := o.Value()
	if err != nil {
		return judged{}, err
	}
	v, err := in.queries[k.task].Eval(ctx, withObserved(b.term, pos, val))
	if result.IsInstrumentFailure(err) {
		return judged{}, result.AsInstrument(err) // a limit: it names the policy and its files
	}
	if err != nil {
		return judged{}, result.AsInstrument(fmt.Errorf("%s: %w", strings.Join(in.queries[k.task].Files(), ", "), err))
	}
	if err := in.CheckVerdict(k.task, v); err != nil {
		return judged{}, err
	}
	j := judged{Verdict: v, outcome: result.Unmet}
	if v.Pass() {
		j.outcome = result.Pass
	}
	if j.fingerprint, err = result.Fingerprint(j.outcome, v.Readout, v.Diagnostics); err != nil {
		return judged{}, fmt.Errorf("fingerprint: %w", err)
	}
	return j, nil
}

// CheckVerdict holds a verdict of task's policy to the policy interface (docs/design.md): every
// diagnostic names an atom of the task's contract, a JSON pointer and a kind, and carries nothing
// else. A verdict that breaks it is the instrument failing, an error naming the policy's files.
func (in *Instrument) CheckVerdict(task string, v policy.Verdict) error {
	if err := policy.CheckDiagnostics(v.Diagnostics, in.Model.Tasks[task].Atoms); err != nil {
		q := in.queries[task]
		return result.AsInstrument(fmt.Errorf("%s: package %s breaks the policy interface: %w", strings.Join(q.Files(), ", "), q.Package(), err))
	}
	return nil
}

// withObserved is the base input with the observation's lane, version, configuration and
// observed view added. The base's members are shared, not copied: terms are immutable once built,
// and a deep copy per evaluation showed in profiles.
func withObserved(base *ast.Term, pos result.Position, observed *ast.Term) ast.Value {
	obj := base.Value.(ast.Object)
	items := make([][2]*ast.Term, 0, obj.Len()+4)
	obj.Foreach(func(k, v *ast.Term) { items = append(items, [2]*ast.Term{k, v}) })
	items = append(items,
		[2]*ast.Term{ast.StringTerm("lane"), ast.StringTerm(pos.Lane)},
		[2]*ast.Term{ast.StringTerm("laneVersion"), ast.StringTerm(pos.LaneVersion)},
		[2]*ast.Term{ast.StringTerm("configuration"), ast.StringTerm(pos.Configuration)},
		[2]*ast.Term{ast.StringTerm("observed"), observed})
	return ast.NewObject(items...)
}
