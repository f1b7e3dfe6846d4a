// Package check is the runner of `contractcheck check`: it loads the instrument
// (internal/instrument) once, streams the selected observation records through it (its pipeline,
// internal/check/pipeline), hands the readings to the census (internal/census) and the
// visibility collector, and returns the report;
// the result cache, the replay of an unchanged run and the lock check around a run live here too.
// The tools that evaluate records for another purpose (compare, mutate, challenge, reproduce, the
// bundle, probe) use the instrument directly, never this package.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package check

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/contractcheck/contractcheck/internal/census"
	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/check/pipeline"
	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// Run loads the instrument and checks every observation record of the selected directories.
func Run(ctx context.Context, opts inputs.Options) (*result.Report, error) {
	in, files, err := loadRun(ctx, opts)
	if err != nil {
		return nil, err
	}
	return RunWith(ctx, in, files, opts.Workers)
}

// RunCensusOut is Run that also writes the run's census to the directory censusOut
// (internal/censusdir), part by part as the records are read, and marks it complete once the
// report is made: check --census DIR reports on it later, alone or merged with others.
func RunCensusOut(ctx context.Context, opts inputs.Options, censusOut string) (*result.Report, error) {
	r, _, _, err := runRecords(ctx, opts, censusOut)
	return r, err
}

// runRecords is Run, writing the census to censusOut unless it is empty, that also returns the
// instrument and the record files it read.
func runRecords(ctx context.Context, opts inputs.Options, censusOut string) (*result.Report, *instrument.Instrument, []inputs.RecordFile, error) {
	in, files, err := loadRun(ctx, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	var w *censusdir.Writer
	if censusOut != "" {
		set, err := censusdir.SetOf(in.Options())
		if err != nil {
			return nil, nil, nil, result.AsInput(err)
		}
		if w, err = censusdir.Create(censusOut, set); err != nil {
			return nil, nil, nil, result.AsInput(err)
		}
	}
	r, err := runWith(ctx, in, files, opts.Workers, w, census.Options{})
	if err != nil {
		if w != nil {
			w.Discard()
		}
		return nil, nil, nil, err
	}
	if w != nil {
		if err := w.Close(); err != nil {
			return nil, nil, nil, result.AsInput(err)
		}
	}
	return r, in, files, nil
}

// loadRun loads the instrument and lists the record files of a run.
func loadRun(ctx context.Context, opts inputs.Options) (*instrument.Instrument, []inputs.RecordFile, error) {
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	files, err := opts.RecordFiles()
	if err != nil {
		return nil, nil, result.AsInput(err)
	}
	return in, files, nil
}

// RunWith is Run on an instrument already loaded and the record files of its run: it streams the
// records of files through the instrument (pipeline.Run), hands every
// reading to the census and every visibility reading to its collector, and returns the report; the
// report, and the error when there is one, do not depend on the number of workers. No records at
// all is an input error: a gate has nothing to decide on.
func RunWith(ctx context.Context, in *instrument.Instrument, files []inputs.RecordFile, workers int) (*result.Report, error) {
	return runWith(ctx, in, files, workers, nil, census.Options{})
}

// runWith is RunWith that also hands every reading and visibility reading to out, when not nil,
// with a census kept as kept says (the census's own for the zero Options; tests give it runs of a
// few readings).
func runWith(ctx context.Context, in *instrument.Instrument, files []inputs.RecordFile, workers int, out *censusdir.Writer, kept census.Options) (*result.Report, error) {
	opts := in.Options()
	cen, err := census.NewWith(in.Model, opts.Profile, kept)
	if err != nil {
		return nil, result.AsInput(err)
	}
	cen.Restrict(opts.Scope)
	vis, err := pipeline.Visibility(ctx, in)
	if err != nil {
		return nil, result.AsInput(err)
	}
	visible := visibility.NewCollector(vis)
	type evaluated struct {
		rs  []result.Reading
		vis *visibility.Reading
	}
	eval := func(ctx context.Context, rec *instrument.Record) (evaluated, error) {
		rs, err := in.Evaluate(ctx, rec)
		if err != nil {
			return evaluated{}, err
		}
		v, err := pipeline.ReadVisibility(ctx, in, vis, rec)
		return evaluated{rs, v}, err
	}
	n, err := pipeline.Run(ctx, in, files, workers, eval, func(_ *instrument.Record, e evaluated) error {
		for _, r := range e.rs {
			if err := cen.Add(r); err != nil {
				return result.AsInput(err)
			}
		}
		visible.Add(e.vis)
		if out != nil {
			for _, r := range e.rs {
				if err := out.Add(r); err != nil {
					return result.AsInput(err)
				}
			}
			if err := out.AddVisibility(e.vis); err != nil {
				return result.AsInput(err)
			}
		}
		return nil
	})
	if le := guard.Stopped(ctx); le != nil && !result.IsInstrumentFailure(err) {
		return nil, &result.InstrumentError{Err: le} // the memory budget stopped the run
	}
	if ctx.Err() != nil && !result.IsInstrumentFailure(err) {
		return nil, context.Cause(ctx) // the caller cancelled: the census is incomplete
	}
	if err != nil {
		return nil, result.AsInput(err)
	}
	if n == 0 {
		if in.Profile.Cohort != nil {
			return nil, result.AsInput(fmt.Errorf("no observation record in %s is within profile %s's cohort and the run's scope (--lane, --stage, …): a check needs at least one", opts.DescribeObservations(), opts.Profile))
		}
		if !opts.Scope.IsZero() {
			return nil, result.AsInput(fmt.Errorf("no observation record in %s is within the run's scope (--lane, --stage, …): a check needs at least one", opts.DescribeObservations()))
		}
		return nil, result.AsInput(fmt.Errorf("no observation records in %s: a check needs at least one", opts.DescribeObservations()))
	}
	if n >= releaseAfter {
		// What the stream left is garbage now, and the heap holds it until the next collection:
		// the report's own allocations (its order of every binding, the upgrades' pairs) would
		// come on top of it, at the run's peak. The instrument's and the visibility reader's
		// caches are let go too: kept, they were some 10 MB of a 3M-binding check's live heap
		// at its report, their objects spread over pages that the report could not reuse.
		in.ReleaseCaches()
		vis.Release()
		debug.FreeOSMemory()
	}
	r, err := cen.Report()
	if err != nil {
		return nil, result.AsInput(err) // a repetition recorded twice (census.RepeatedError)
	}
	if r.Visibility, err = visible.Report(ctx); err != nil {
		return nil, result.AsInstrument(err)
	}
	if r.VisibilityGroups() > 0 {
		r.VisibilityPolicy = vis.Policy()
	}
	gateReached(in.Model, opts.Profile, r)
	if le := guard.Stopped(ctx); le != nil {
		return nil, &result.InstrumentError{Err: le} // the report could not be made within the budget
	}
	return r, nil
}

// releaseAfter is how many records a stream reads before the memory it leaves is returned to the
// system ahead of the report (a collection of a heap that small costs more than it saves).
const releaseAfter = 100_000
