// Package checkreport is the format step of `contractcheck check`: it runs a check
// (internal/check, which returns the report and never renders), renders the report in the format
// asked for through the check report's registry (internal/report), and hands the bytes to the
// verb's sink; the result cache (internal/resultcache) sits around it, replaying an unchanged
// run's bytes without loading anything.
//
// The cache keeps the formatted bytes, not the report, for three reasons:
//   - the html format renders the run's views (result.Views), which the instrument computes from
//     the loaded CUE and Rego on demand and the report does not carry: a stored report could not
//     be rendered to html without loading the instrument again, the very cost the cache saves;
//   - a report does not round-trip through its JSON: its bindings (result.Results) and an
//     upgrade's changes are interfaces a census makes when read, and the text and table formats
//     lay out for the terminal they are written to (report.Style is part of the key anyway);
//   - replaying bytes is one file copy, while rendering a stored report costs what rendering
//     costs on top of decoding it: BenchmarkReplay against BenchmarkRender (this package)
//     measures the gap on the built-in check (2 cores: a replay, inputs hashed, 0.08 ms for
//     text and 7 ms for json; rendering alone 6.8 ms and 22 ms, 1.6 MB and 8.9 MB allocated).
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package checkreport

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/resultcache"
)

// Request is a check and how its report is rendered.
type Request struct {
	// Check is the run (its Views field is set here: the html format asks for them).
	Check check.Request
	// Format names the report format (report.Outputters); Render is what it is made with. The
	// html format gets the run's views (result.Views) on top.
	Format string
	Render report.Options
	// NoCache runs the check even when an unchanged run's output is cached (internal/resultcache).
	NoCache bool
}

// Outcome is what a finished check says beside its report.
type Outcome struct {
	// Exit is the exit code the report calls for (result.Report.ExitCode).
	Exit int
	// Verdict is the one-line verdict (result.Report.Verdict).
	Verdict string
	// Replayed says the report is an unchanged run's, replayed from the cache.
	Replayed bool
	// Note, for a run from decision logs or censuses, says what they held besides the report
	// (check.Outcome.Note), for the log beside the report.
	Note string
}

// Sink receives the report: write writes it to the writer Sink chooses (standard output, or a
// file replaced whole or not at all), and Sink returns write's error or its own.
type Sink func(write func(io.Writer) error) error

// Execute runs a check as req asks and hands its report to sink: an unchanged run's stored
// output is replayed (internal/resultcache; never a run check.Request.Replayable rules out),
// else the check runs (check.Execute) and its report is rendered, a copy of it going to the
// cache on the way. An unknown format is refused (an input error) before anything is read or
// run. The error is the run's (an input or instrument error: see
// result.ExitCode), the format's, the sink's, or the gate's when the report selected nothing or
// the instrument failed (result.Report.GateError); the outcome's exit code says which. A run
// that fails with the instrument failing (result.IsInstrumentFailure) still hands sink a report,
// one that names the failure and gives no verdict (result.Failed, never cached), before it
// returns the run's error; a run that fails on bad input (exit 2) writes no report.
func Execute(ctx context.Context, req Request, sink Sink) (Outcome, error) {
	// The format is resolved first: an unknown one is refused before the run, not after it.
	format, err := report.Outputters().Resolve(req.Format)
	if err != nil {
		return Outcome{Exit: result.ExitInputError}, &result.InputError{Err: err}
	}
	if req.Check.LockFile != "" {
		// The lock is verified before the cache is asked: a drifted input is refused, not replayed.
		if err := req.Check.VerifyLock(); err != nil {
			return Outcome{Exit: result.ExitCode(err)}, err
		}
		req.Check.LockFile = "" // verified once
	}
	cacheDir := ""
	if !req.NoCache && req.Check.Replayable() {
		cacheDir = contract.CacheDir()
	}
	key, cacheable := "", false
	if cacheDir != "" {
		keyOpts := req.Check.Options
		keyOpts.Workers = 0 // the report does not depend on it
		key, cacheable, _ = resultcache.Key(struct {
			Options inputs.Options
			Format  string
			Details bool
			Style   report.Style
		}{keyOpts, req.Format, req.Render.Details, req.Render.Style}, resultcache.Inputs{Dirs: req.Check.Options.Inputs()})
	}
	if e, hit := resultcache.Get(cacheDir, key); cacheable && hit {
		return replay(e, sink)
	}
	req.Check.Views = req.Format == "html"
	run, err := check.Execute(ctx, req.Check)
	if err != nil {
		if run.Report != nil {
			// The instrument failed: the report still goes out, naming the failure (never
			// cached: the next run tries again), past the memory budget too (the run may have
			// failed at it); the error is the run's, as it is without one.
			if werr := sink(func(w io.Writer) error { return format.Unbudgeted(req.Render).Output(w, run.Report) }); werr != nil {
				err = fmt.Errorf("%w\n(the report naming this failure was not written: %w)", err, werr)
			}
		}
		return Outcome{Exit: result.ExitCode(err), Note: run.Note}, err
	}
	render := req.Render
	render.Views = run.Views
	out := format.New(render)
	r := run.Report
	var rec *resultcache.Recorder
	if cacheable {
		rec = resultcache.Record(cacheDir, key)
	}
	if err := sink(func(w io.Writer) error {
		if rec != nil {
			w = io.MultiWriter(w, rec)
		}
		return out.Output(w, r)
	}); err != nil {
		rec.Abort()
		return Outcome{Exit: result.ExitCode(err)}, err // a report stopped at the memory budget is exit 3
	}
	gerr := r.GateError()
	gateError := ""
	if gerr != nil {
		gateError = gerr.Error()
	}
	rec.Commit(r.ExitCode(), r.Verdict(), gateError)
	return Outcome{Exit: r.ExitCode(), Verdict: r.Verdict(), Note: run.Note}, gerr
}

// replay hands a stored run's output to sink and returns its outcome and gate error.
func replay(e *resultcache.Entry, sink Sink) (Outcome, error) {
	if err := sink(func(w io.Writer) error {
		_, err := e.WriteTo(w)
		return err
	}); err != nil {
		return Outcome{Exit: result.ExitInputError}, err
	}
	o := Outcome{Exit: e.Exit, Verdict: e.Stderr, Replayed: true}
	if e.GateError != "" {
		return o, errors.New(e.GateError)
	}
	return o, nil
}
