// Package check drives the whole pipeline for `contractcheck check`: it loads the contract model,
// the policies and the schemas once, validates every source, streams the observation records
// through the projector and the prepared task queries in parallel, and hands the readings to the
// census, which returns the report.
package check

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/census"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Options selects the inputs of a check. Empty directories mean the built-in data.
type Options struct {
	Profile      string
	Contracts    string // directory of .cue files
	Policies     string // directory of .rego files
	Fixtures     string // directory holding sources/<suite>/<id>.json (and observations/ by default)
	Observations string // directory of .jsonl observation records, searched recursively
	// Workers is the number of goroutines evaluating bindings; 0 means GOMAXPROCS.
	Workers int
}

// DefaultProfile is the profile a check uses when none is named.
const DefaultProfile = "strict"

// InputError is bad input: a usage error, malformed JSON, a schema-invalid source or record, a
// CUE or Rego error. It maps to exit code 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// inputErr classes err as bad input, unless it is already classed or is the instrument failing
// (IsInstrumentFailure), which it classes as an *InstrumentError.
func inputErr(err error) error {
	var ie *InputError
	var instr *InstrumentError
	switch {
	case err == nil, errors.As(err, &instr):
		return err
	case IsInstrumentFailure(err):
		return &InstrumentError{Err: err}
	case errors.As(err, &ie):
		return err
	}
	return &InputError{Err: err}
}

// Instrument is everything a check needs before it reads a record, loaded once: the contract
// model, the validator, the compiled projectors, the prepared queries and the validated sources.
type Instrument struct {
	Model     *contract.Model
	Profile   contract.Profile
	Validator *schema.Validator
	Sources   map[string]*Source
	queries   map[string]*policy.Query                    // by task id
	stages    map[laneStage]map[string]*project.Projector // compartment projectors by lane stage
	inputs    map[inputKey]*ast.Term                      // task/fixture/contract/source part of each input
	source    *project.Projector                          // the canonical binding of W0
	// verdicts memoizes policy verdicts by the whole input: the sandboxed policies are pure
	// functions of it, and repetitions and shared carriers repeat the same observed views.
	verdicts sync.Map // verdictKey → policy.Verdict
	profile  string
}

type laneStage struct{ lane, stage string }

type inputKey struct{ fixture, task, stage string }

// verdictKey identifies a policy input: its constant part and the hash of the observed view's
// canonical encoding.
type verdictKey struct {
	inputKey
	view [sha256.Size]byte
}

// Load builds the instrument for a profile from the selected directories.
func Load(ctx context.Context, opts Options) (*Instrument, error) {
	if opts.Profile == "" {
		opts.Profile = DefaultProfile
	}
	cd := dirOr(opts.Contracts, "contracts")
	m, err := loadContracts(ctx, cd)
	if err != nil {
		return nil, inputErr(fmt.Errorf("load contracts: %w", err))
	}
	prof, ok := m.Profiles[opts.Profile]
	if !ok {
		return nil, inputErr(fmt.Errorf("unknown profile %q (the contracts define %s)", opts.Profile, strings.Join(contract.SortedKeys(m.Profiles), ", ")))
	}
	v, err := BuiltinValidator()
	if err != nil {
		return nil, err
	}
	pd := dirOr(opts.Policies, "policies")
	eng, err := policy.Load(pd.FS, pd.Root, pd.Display)
	if err != nil {
		return nil, inputErr(fmt.Errorf("load policies: %w", err))
	}
	in := &Instrument{Model: m, Profile: prof, Validator: v, profile: opts.Profile,
		queries: map[string]*policy.Query{}, stages: map[laneStage]map[string]*project.Projector{},
		inputs: map[inputKey]*ast.Term{}}
	for _, id := range contract.SortedKeys(m.Tasks) {
		q, err := eng.Prepare(ctx, m.Tasks[id].Policy)
		if err != nil {
			return nil, inputErr(fmt.Errorf("task %s: %w", id, err))
		}
		in.queries[id] = q
	}
	if err := in.compileLanes(); err != nil {
		return nil, inputErr(err)
	}
	if in.Sources, err = LoadSources(v, m, dirOr(opts.Fixtures, "fixtures")); err != nil {
		return nil, inputErr(err)
	}
	if err := in.prepareInputs(); err != nil {
		return nil, err
	}
	return in, nil
}

// LoadSources reads and validates every catalogued source under fixtures/sources.
func LoadSources(v *schema.Validator, m *contract.Model, fixtures Dir) (map[string]*Source, error) {
	out := map[string]*Source{}
	for _, id := range contract.SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		p, display := fixtures.Path("sources/" + f.Suite + "/" + id + ".json")
		s, err := LoadSource(v, fixtures.FS, p, display, id, f.Revision)
		if err != nil {
			return nil, fmt.Errorf("fixture %s: %w", id, err)
		}
		out[id] = s
	}
	return out, nil
}

func (in *Instrument) compileLanes() error {
	for _, lane := range contract.SortedKeys(in.Model.Lanes) {
		for _, st := range contract.SortedKeys(in.Model.Lanes[lane].Stages) {
			sd := in.Model.Lanes[lane].Stages[st]
			if sd.Carrier != "" {
				if err := in.Validator.CompileCarrier(sd.Carrier); err != nil {
					return fmt.Errorf("lanes.%s.stages.%s.carrier: %w", lane, st, err)
				}
			}
			ps := map[string]*project.Projector{}
			for _, name := range contract.SortedKeys(sd.Compartments) {
				p, err := project.Compile(fmt.Sprintf("lanes.%s.stages.%s.compartments.%s", lane, st, name), sd.Compartments[name])
				if err != nil {
					return err
				}
				ps[name] = p
			}
			in.stages[laneStage{lane, st}] = ps
		}
	}
	return nil
}

// prepareInputs builds, once per fixture, task and stage, the constant part of the policy input:
// the task, the fixture, the contract and the source view.
func (in *Instrument) prepareInputs() error {
	src, err := project.Compile("source", in.Model.Source)
	if err != nil {
		return inputErr(err)
	}
	in.source = src
	for _, id := range contract.SortedKeys(in.Model.Fixtures) {
		f := in.Model.Fixtures[id]
		view := src.Project(in.Sources[id].Doc)
		for _, task := range in.Model.ProfileTasks(in.Profile, f) {
			for _, st := range contract.Stages[1:] {
				term, err := in.baseInput(id, f, task, st, view)
				if err != nil {
					return fmt.Errorf("%s: %w", in.Sources[id].File, err)
				}
				in.inputs[inputKey{id, task, st}] = term
			}
		}
	}
	return nil
}

// baseInput is the policy input without the observed view: the task, the fixture, the contract
// (atoms, null policy, and the result-metadata policy the profile asks for at this stage) and
// the source view.
func (in *Instrument) baseInput(id string, f contract.Fixture, task, stage string, source project.View) (*ast.Term, error) {
	meta := map[string]any{"mode": "preserve"}
	if w := in.Profile.WithholdPrivateMeta; w != nil && len(f.PrivateMeta) > 0 && slices.Contains(w.Stages, stage) {
		meta = map[string]any{"mode": "withhold", "keys": f.PrivateMeta}
	}
	val, err := policy.Input(map[string]any{
		"task":    task,
		"fixture": map[string]any{"id": id, "family": f.Family},
		"contract": map[string]any{
			"atoms": in.Model.Tasks[task].Atoms, "optional": in.Model.OptionalAtoms(),
			"nullPolicy": in.Profile.NullPolicy, "metaPolicy": meta,
		},
		"source": source,
	})
	if err != nil {
		return nil, fmt.Errorf("fixture %s: %w", id, err)
	}
	return ast.NewTerm(val), nil
}

// EvaluatePair evaluates one task on a source document and a carrier observed at a lane's stage,
// outside any record: the source is read through the canonical binding, the carrier through the
// stage's compartment for the task. f supplies the family and private keys the contract needs.
func (in *Instrument) EvaluatePair(ctx context.Context, task, lane, stage string, f contract.Fixture, source, carrier any) (policy.Verdict, error) {
	q, ok := in.queries[task]
	if !ok {
		return policy.Verdict{}, fmt.Errorf("unknown task %q", task)
	}
	base, err := in.baseInput("pair", f, task, stage, in.source.Project(source))
	if err != nil {
		return policy.Verdict{}, err
	}
	o, err := in.observe(lane, stage, in.Model.Tasks[task].Compartment, carrier)
	if err != nil {
		return policy.Verdict{}, err
	}
	val, err := policy.Input(o.tree)
	if err != nil {
		return policy.Verdict{}, err
	}
	return q.Eval(ctx, withObserved(base, ast.NewTerm(val)))
}

// SourceView is a catalogued fixture's W0 result through the canonical binding.
func (in *Instrument) SourceView(fixture string) project.View {
	return in.source.Project(in.Sources[fixture].Doc)
}

// View is a carrier through the compartment of a lane's stage; a compartment the stage does not
// bind reads as an empty view.
func (in *Instrument) View(lane, stage, compartment string, carrier any) project.View {
	if p, bound := in.stages[laneStage{lane, stage}][compartment]; bound {
		return p.Project(carrier)
	}
	return project.View{}
}

// observed is a carrier's view through one compartment, with its canonical hash; its policy
// value is built only when a verdict is not memoized.
type observed struct {
	tree project.View
	hash [sha256.Size]byte
}

func (in *Instrument) observe(lane, stage, compartment string, carrier any) (*observed, error) {
	tree := in.View(lane, stage, compartment, carrier)
	b, err := strictjson.Marshal(tree)
	if err != nil {
		return nil, err
	}
	return &observed{tree: tree, hash: sha256.Sum256(b)}, nil
}

// verdict evaluates a task's prepared query on the input made of the constant part k and the
// observed view, or returns the verdict already computed for the same input.
func (in *Instrument) verdict(ctx context.Context, k inputKey, o *observed) (policy.Verdict, error) {
	vk := verdictKey{k, o.hash}
	if v, ok := in.verdicts.Load(vk); ok {
		return v.(policy.Verdict), nil
	}
	val, err := policy.Input(o.tree)
	if err != nil {
		return policy.Verdict{}, err
	}
	v, err := in.queries[k.task].Eval(ctx, withObserved(in.inputs[k], ast.NewTerm(val)))
	if err != nil {
		return policy.Verdict{}, err
	}
	in.verdicts.Store(vk, v)
	return v, nil
}

// withObserved is the base input with the observed view added. The base's members are shared,
// not copied: terms are immutable once built, and a deep copy per evaluation showed in profiles.
func withObserved(base, observed *ast.Term) ast.Value {
	obj := base.Value.(ast.Object)
	items := make([][2]*ast.Term, 0, obj.Len()+1)
	obj.Foreach(func(k, v *ast.Term) { items = append(items, [2]*ast.Term{k, v}) })
	items = append(items, [2]*ast.Term{ast.StringTerm("observed"), observed})
	return ast.NewObject(items...)
}

// Run loads the instrument and checks every observation record under the selected directory.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	in, err := Load(ctx, opts)
	if err != nil {
		return nil, err
	}
	obs := ObservationsDir(opts)
	files, err := RecordFiles(obs)
	if err != nil {
		return nil, inputErr(err)
	}
	return in.Check(ctx, obs, files, opts.Workers)
}

// ObservationsDir is the directory of observation records the options select: --observations,
// else <fixtures>/observations, else the built-in records.
func ObservationsDir(opts Options) Dir {
	if opts.Observations != "" {
		return UserDir(opts.Observations)
	}
	obs := Builtin("fixtures")
	if opts.Fixtures != "" {
		obs = UserDir(opts.Fixtures)
	}
	obs.Root, obs.Display = joinDir(obs.Root, "observations"), joinDir(obs.Display, "observations")
	return obs
}

func joinDir(a, b string) string {
	if a == "" || a == "." {
		return b
	}
	return a + "/" + b
}

// RecordFiles lists the .jsonl files below a directory, sorted, so records are read in one order.
func RecordFiles(d Dir) ([]string, error) {
	var files []string
	err := fs.WalkDir(d.FS, d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("observation records: %w", err)
	}
	sort.Strings(files)
	return files, nil
}

// job is one validated record on its way to a worker.
type job struct {
	seq int
	rec *Record
}

// Check streams the records of files through the instrument and returns the census report. Records
// are read and validated in order by one goroutine, evaluated by workers, and collected by one
// census; the report does not depend on the number of workers.
func (in *Instrument) Check(ctx context.Context, d Dir, files []string, workers int) (*report.Report, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	cen, err := census.New(in.Model, in.profile)
	if err != nil {
		return nil, inputErr(err)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, 4*workers)
	readings := make(chan []census.Reading, 4*workers)
	var (
		errMu    sync.Mutex
		firstErr error
		errSeq   = -1
	)
	fail := func(seq int, err error) {
		errMu.Lock()
		defer errMu.Unlock()
		// An evaluation cancelled because another failed is not a failure of its own.
		if !errors.Is(err, context.Canceled) || IsInstrumentFailure(err) {
			if errSeq == -1 || seq < errSeq { // the earliest record's error, whatever the scheduling
				firstErr, errSeq = err, seq
			}
		}
		cancel()
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				rs, err := in.Evaluate(ctx, j.rec)
				if err != nil {
					fail(j.seq, err)
					continue
				}
				readings <- rs
			}
		}()
	}
	collected := make(chan error, 1)
	go func() {
		var cerr error
		for rs := range readings {
			for _, r := range rs {
				if cerr == nil {
					cerr = cen.Add(r)
				}
			}
		}
		collected <- cerr
	}()
	seq := 0
	readErr := func() error {
		defer close(jobs)
		for _, f := range files {
			err := in.readFile(ctx, d, f, func(rec *Record) {
				seq++
				select {
				case jobs <- job{seq, rec}:
				case <-ctx.Done():
				}
			})
			if err != nil {
				return err
			}
		}
		return nil
	}()
	wg.Wait()
	close(readings)
	cerr := <-collected
	if le := guard.Stopped(parent); le != nil && !IsInstrumentFailure(firstErr) {
		return nil, &InstrumentError{Err: le} // the memory budget stopped the run
	}
	if err := parent.Err(); err != nil && firstErr == nil {
		return nil, context.Cause(parent) // the caller cancelled: the census is incomplete
	}
	switch {
	case readErr != nil && !errors.Is(readErr, context.Canceled):
		return nil, inputErr(readErr)
	case firstErr != nil:
		return nil, inputErr(firstErr)
	case cerr != nil:
		return nil, inputErr(cerr)
	}
	return cen.Report(), nil
}

// Evaluate projects one record's carrier through each compartment its tasks read and evaluates
// every task of the profile on it. A record that was not captured gives its state as the outcome
// of every task: never an unmet.
func (in *Instrument) Evaluate(ctx context.Context, rec *Record) ([]census.Reading, error) {
	f := in.Model.Fixtures[rec.Fixture]
	tasks := in.Model.ProfileTasks(in.Profile, f)
	out := make([]census.Reading, 0, len(tasks))
	views := map[string]*observed{}
	for _, task := range tasks {
		r := census.Reading{
			Binding: census.Binding{Position: report.Position{Fixture: rec.Fixture, Lane: rec.Lane,
				LaneVersion: rec.LaneVersion, Configuration: rec.Configuration, Stage: rec.Stage}, Task: task},
			Repetition: rec.Repetition, Origin: rec.Origin, Outcome: rec.State, Error: rec.Error,
		}
		if rec.State != "captured" {
			out = append(out, r)
			continue
		}
		comp := in.Model.Tasks[task].Compartment
		view, ok := views[comp]
		if !ok {
			var err error
			if view, err = in.observe(rec.Lane, rec.Stage, comp, rec.Carrier); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
			}
			views[comp] = view
		}
		v, err := in.verdict(ctx, inputKey{rec.Fixture, task, rec.Stage}, view)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: task %s: %w", rec.File, rec.Line, task, err)
		}
		r.Readout = v.Readout
		r.Diagnostics = v.Diagnostics
		if v.Pass() {
			r.Outcome = report.Pass
		} else {
			r.Outcome = report.Unmet
		}
		out = append(out, r)
	}
	return out, nil
}
