// Package compare is the pipeline run behind `contractcheck compare`: it drives the same steps as
// check (strictjson → schema → contract → project → policy → census) over one set of captured
// carriers, and puts policies side by side instead of gating. Decoder policies (Rego packages
// under contractcheck.decoders, each defining readout) read every declared target field of every
// structured fixture at every position through the stage's structured compartment; repetitions
// collapse as in check. The check itself runs under two profiles that differ in null policy, and
// the census of each is compared. The channel-visibility readout (package visibility) is read on
// the same records, as check reads it, and each of its groups is set beside what every decoder
// recovers there. The result is a compare report (compareVersion 4) written by the outputters of
// this package.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package compare

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/census"
	"github.com/contractcheck/contractcheck/internal/check/pipeline"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// DecoderPrefix is the package prefix of decoder policies: contractcheck.decoders.<name>, the
// name's dashes written as underscores.
const DecoderPrefix = "contractcheck.decoders."

// Compartment is the compartment decoder policies read: the stage's structured binding (its slot
// and its content list).
const Compartment = "structured"

// DefaultNullProfile is the profile the base profile is compared with for null-policy sensitivity.
const DefaultNullProfile = "optional-null"

// Options selects the inputs of a compare. Profile is the base profile (strict by default);
// NullProfile the profile it is compared with. Decoders are decoder names (native-slot) or Rego
// package paths (my.decoders.first_item); none means every contractcheck.decoders package.
type Options struct {
	inputs.Options
	NullProfile string
	Decoders    []string
}

// InputError is bad input; it maps to exit code 2.
type InputError = result.InputError

// decoder is a selected decoder policy with its prepared query.
type decoder struct {
	Decoder
	q *policy.ReadoutQuery
}

// Run loads the instrument under both profiles, reads every observation record once, and builds
// the compare report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	r, _, err := RunWithChecks(ctx, opts)
	return r, err
}

// Checks are what a compare counted beside its decoder readings: the check report under each of
// its two profiles (the census its null-policy sensitivity reads) and the contract model the
// records were judged with. Tools that tabulate more than a compare report shows (the study's
// tables) read them.
type Checks struct {
	Base, Other *result.Report
	Model       *contract.Model
}

// RunWithChecks is Run that also returns the two check reports and the model (Checks).
func RunWithChecks(ctx context.Context, opts Options) (*Report, Checks, error) {
	if opts.Profile == "" {
		opts.Profile = inputs.DefaultProfile
	}
	if opts.NullProfile == "" {
		opts.NullProfile = DefaultNullProfile
	}
	if opts.NullProfile == opts.Profile {
		return nil, Checks{}, result.AsInput(fmt.Errorf("--null-profile %s is the profile itself: name another profile to compare null policies with", opts.NullProfile))
	}
	// One load serves both profiles: only the profile's part of each policy input differs.
	base, err := instrument.Load(ctx, opts.Options)
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	other, err := base.WithProfile(opts.NullProfile)
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	decs, err := loadDecoders(ctx, base.Engine(), opts)
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	files, err := opts.RecordFiles()
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	return compare(ctx, base, other, decs, files, opts)
}

// loadDecoders prepares, on the instrument's compiled policies, the readout query of each
// selected decoder.
func loadDecoders(ctx context.Context, eng *policy.Engine, opts Options) ([]decoder, error) {
	available := AvailableDecoders(eng)
	names := opts.Decoders
	if len(names) == 0 {
		for _, d := range available {
			names = append(names, d.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no decoder policy in the policy layers (no package %s<name>)", DecoderPrefix)
		}
	}
	var out []decoder
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		d := Decoder{Name: n, Package: DecoderPrefix + strings.ReplaceAll(n, "-", "_")}
		if strings.Contains(n, ".") {
			d.Package = n
		}
		if !eng.HasPackage(d.Package) {
			var known []string
			for _, a := range available {
				known = append(known, a.Name)
			}
			return nil, fmt.Errorf("unknown decoder policy %q: no package %s in the policy layers (decoders: %s; or name a Rego package)", n, d.Package, strings.Join(known, ", "))
		}
		q, err := eng.PrepareReadout(ctx, d.Package)
		if err != nil {
			return nil, fmt.Errorf("decoder %s: %w", n, err)
		}
		out = append(out, decoder{d, q})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no decoder policy selected")
	}
	return out, nil
}

// AvailableDecoders lists the decoder policies of an engine: every package
// contractcheck.decoders.<name> (tests left out), sorted by name.
func AvailableDecoders(eng *policy.Engine) []Decoder {
	var out []Decoder
	for _, p := range eng.Packages() {
		rest, ok := strings.CutPrefix(p, DecoderPrefix)
		if !ok || strings.Contains(rest, ".") || strings.HasSuffix(rest, "_test") {
			continue
		}
		out = append(out, Decoder{Name: strings.ReplaceAll(rest, "_", "-"), Package: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// evaluated is what one record gives: the readings of both check runs, one decoder reading per
// declared target, and the record's visibility reading (nil when the readout does not read it).
type evaluated struct {
	base, other []result.Reading
	targets     []targetReading
	vis         *visibility.Reading
}

type targetReading struct {
	target   string
	readouts map[string]map[string]any // by decoder name; nil unless captured
}

// memoKey identifies a decoder input: decoder, fixture, target and the observed view's hash.
type memoKey struct {
	decoder, fixture, target string
	view                     [sha256.Size]byte
}

type evaluator struct {
	base, other *instrument.Instrument
	decoders    []decoder
	vis         *visibility.Reader   // nil when the model's visibility readout reads nothing
	sources     map[string]*ast.Term // fixture → source view term
	memo        sync.Map             // memoKey → map[string]any
}

func compare(ctx context.Context, base, other *instrument.Instrument, decs []decoder, files []inputs.RecordFile, opts Options) (*Report, Checks, error) {
	ev := &evaluator{base: base, other: other, decoders: decs, sources: map[string]*ast.Term{}}
	for _, id := range contract.SortedKeys(base.Model.Fixtures) {
		if len(base.Model.Fixtures[id].Targets) == 0 {
			continue
		}
		v, err := policy.Input(base.SourceView(id))
		if err != nil {
			return nil, Checks{}, fmt.Errorf("fixture %s: %w", id, err)
		}
		ev.sources[id] = ast.NewTerm(v)
	}
	cb, err := census.New(base.Model, opts.Profile)
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	co, err := census.New(other.Model, opts.NullProfile)
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	cb.Restrict(opts.Scope)
	co.Restrict(opts.Scope)
	// The visibility readout is the base profile's, prepared and read as check reads it.
	if ev.vis, err = pipeline.Visibility(ctx, base); err != nil {
		return nil, Checks{}, result.AsInput(fmt.Errorf("visibility readout: %w", err))
	}
	visible := visibility.NewCollector(ev.vis)
	col := newCollector(base.Model)
	// The records stream once through check's loop (pipeline.Run), both profiles, every decoder
	// and the visibility readout evaluated on each, and are collected in record order.
	_, err = pipeline.Run(ctx, base, files, opts.Workers, ev.evaluate, func(rec *instrument.Record, e evaluated) error {
		for _, r := range e.base {
			if err := cb.Add(r); err != nil {
				return err
			}
		}
		for _, r := range e.other {
			if err := co.Add(r); err != nil {
				return err
			}
		}
		for _, t := range e.targets {
			if err := col.add(rec, t); err != nil {
				return err
			}
		}
		visible.Add(e.vis)
		return nil
	})
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	groups, err := visible.Report(ctx)
	if err != nil {
		return nil, Checks{}, &result.InstrumentError{Err: fmt.Errorf("visibility readout: %w", err)}
	}
	rb, err := cb.Report()
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	ro, err := co.Report()
	if err != nil {
		return nil, Checks{}, result.AsInput(err)
	}
	names := make([]string, len(decs))
	r := &Report{CompareVersion: Version, Profile: opts.Profile, Scope: rb.Scope, Decoders: make([]Decoder, len(decs))}
	for i, d := range decs {
		r.Decoders[i] = d.Decoder
		names[i] = d.Name
	}
	r.Readouts = col.collapse(ev.base)
	r.Summary = summarize(r.Readouts)
	r.Summary.CheckUnstable = rb.Summary.Unstable + ro.Summary.Unstable
	r.Matches = matches(r.Readouts, names)
	r.Totals = totals(base.Model, r.Readouts, names, func(t string) bool { return !isWhole(t) })
	r.WholeValue = totals(base.Model, r.Readouts, names, isWhole)
	r.Differences = differences(r.Readouts, names)
	r.Configurations = configurations(base.Model, rb, r.Readouts, names)
	r.NullPolicies = sensitivity(base.Model, rb, ro)
	r.Visibility = recoveries(groups, r.Readouts, names)
	return r, Checks{Base: rb, Other: ro, Model: base.Model}, nil
}

// evaluate runs both check instruments, every decoder and the visibility readout on one record.
func (ev *evaluator) evaluate(ctx context.Context, rec *instrument.Record) (evaluated, error) {
	var out evaluated
	var err error
	if out.base, err = ev.base.Evaluate(ctx, rec); err != nil {
		return out, err
	}
	if out.other, err = ev.other.Evaluate(ctx, rec); err != nil {
		return out, err
	}
	if out.vis, err = pipeline.ReadVisibility(ctx, ev.base, ev.vis, rec); err != nil {
		return out, err
	}
	f := ev.base.Model.Fixtures[rec.Fixture]
	if len(f.Targets) == 0 {
		return out, nil
	}
	var obs *instrument.Observed
	if rec.State == "captured" {
		// The view and its hash come from the instrument's view cache, by the carrier's bytes:
		// repetitions repeat their carriers, and the visibility readout may have read it already.
		var err error
		if obs, err = ev.base.Observe(rec, Compartment); err != nil {
			return out, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
		}
	}
	for _, target := range f.Targets {
		tr := targetReading{target: target}
		if obs != nil {
			tr.readouts = map[string]map[string]any{}
			for _, d := range ev.decoders {
				ro, err := ev.readout(ctx, d, rec.Fixture, f.Family, target, obs)
				if err != nil {
					return out, fmt.Errorf("%s:%d: decoder %s, target %s: %w", rec.File, rec.Line, d.Name, targetName(target), err)
				}
				tr.readouts[d.Name] = ro
			}
		}
		out.targets = append(out.targets, tr)
	}
	return out, nil
}

func (ev *evaluator) readout(ctx context.Context, d decoder, fixture, family, target string, obs *instrument.Observed) (map[string]any, error) {
	k := memoKey{d.Name, fixture, target, obs.Hash()}
	if v, ok := ev.memo.Load(k); ok {
		return v.(map[string]any), nil
	}
	observed, err := obs.Value() // made once for the record's decoders, on the first not memoized
	if err != nil {
		return nil, err
	}
	input := ast.NewObject(
		[2]*ast.Term{ast.StringTerm("decoder"), ast.StringTerm(d.Name)},
		[2]*ast.Term{ast.StringTerm("fixture"), ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("id"), ast.StringTerm(fixture)},
			[2]*ast.Term{ast.StringTerm("family"), ast.StringTerm(family)})},
		[2]*ast.Term{ast.StringTerm("target"), ast.StringTerm(target)},
		[2]*ast.Term{ast.StringTerm("source"), ev.sources[fixture]},
		[2]*ast.Term{ast.StringTerm("observed"), observed},
	)
	// A decoder that fails or answers outside the interface is the instrument failing, as a task
	// policy is in check (exit 3): the records are not to blame.
	ro, err := d.q.Eval(ctx, input)
	if err != nil {
		return nil, result.AsInstrument(err)
	}
	kind, _ := ro["kind"].(string)
	if !slices.Contains(Kinds, kind) {
		return nil, &result.InstrumentError{Err: fmt.Errorf("readout kind %v is not one of %s", ro["kind"], strings.Join(Kinds, ", "))}
	}
	ev.memo.Store(k, ro)
	return ro, nil
}
