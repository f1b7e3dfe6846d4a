package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/lock"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/resultcache"
)

// Request is one check as a verb asks for it: what to read, how the report is rendered, and what
// the runner does around the run.
type Request struct {
	// Options selects the inputs, the profile and the scope.
	Options inputs.Options
	// Format names the report format (report.Outputters); Render is what it is made with. The
	// html format gets the run's views (result.Views) on top.
	Format string
	Render report.Options
	// NoCache runs the check even when an unchanged run's output is cached (internal/resultcache).
	NoCache bool
	// LockFile, when set, is compared with the inputs before the run: any drift is refused
	// (lock.Verify), as the lock written by tool version LockTool records them.
	LockFile, LockTool string
	// DecisionLogs, when set, are the OPA decision logs the verdicts are taken from instead of
	// evaluating the records' carriers (RunDecisionLogs); the run is never cached.
	DecisionLogs *DecisionLogs
	// Censuses, when set, are census directories (internal/censusdir) the report is made from
	// instead of records: their union (RunCensuses); the run is never cached.
	Censuses []string
	// CensusOut, when set, is the directory the run's census is written to (a census of the
	// records read, or the union of Censuses); the run is never replayed from the cache.
	CensusOut string
}

// Outcome is what a finished check says beside its report.
type Outcome struct {
	// Exit is the exit code the report calls for (result.Report.ExitCode).
	Exit int
	// Verdict is the one-line verdict (result.Report.Verdict).
	Verdict string
	// Replayed says the report is an unchanged run's, replayed from the cache.
	Replayed bool
	// Note, for a run from decision logs, says what the logs held besides the decisions taken
	// (decisionlog.Counts), for the log beside the report.
	Note string
}

// Sink receives the report: write writes it to the writer Sink chooses (standard output, or a
// file replaced whole or not at all), and Sink returns write's error or its own.
type Sink func(write func(io.Writer) error) error

// Execute runs a check as req asks and hands its report to sink: the lock is verified first,
// an unchanged run's stored output is replayed (internal/resultcache; standard input is read
// once and never replayed), else the records are checked (Run, or RunWithViews for the html
// format) and the report written, a copy of it going to the cache on the way. The error is the
// run's (an input or instrument error: see result.ExitCode), the sink's, or the gate's when the
// report selected nothing or the instrument failed (result.Report.GateError); the outcome's exit
// code says which. A run that fails with the instrument failing (result.IsInstrumentFailure)
// still hands sink a report, one that names the failure and gives no verdict (result.Failed,
// never cached), before it returns the run's error; a run that fails on bad input (exit 2)
// writes no report.
func Execute(ctx context.Context, req Request, sink Sink) (Outcome, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if req.LockFile != "" {
		if err := lock.Verify(req.LockFile, req.Options, req.LockTool); err != nil {
			return Outcome{Exit: result.ExitCode(err)}, err
		}
	}
	cacheDir := ""
	if !req.NoCache && !slices.Contains(req.Options.Observations, inputs.StdinArg) && req.DecisionLogs == nil && req.Censuses == nil && req.CensusOut == "" {
		cacheDir = contract.CacheDir()
	}
	key, cacheable := "", false
	if cacheDir != "" {
		keyOpts := req.Options
		keyOpts.Workers = 0 // the report does not depend on it
		key, cacheable, _ = resultcache.Key(struct {
			Options inputs.Options
			Format  string
			Details bool
			Style   report.Style
		}{keyOpts, req.Format, req.Render.Details, req.Render.Style}, resultcache.Inputs{Dirs: req.Options.Inputs()})
	}
	if e, hit := resultcache.Get(cacheDir, key); cacheable && hit {
		return replay(e, sink)
	}
	r, out, note, err := run(ctx, req)
	if err != nil {
		if result.IsInstrumentFailure(err) {
			// The report still goes out, naming the failure (never cached: the next run tries
			// again); the error is the run's, as it is without a report.
			if werr := writeFailure(req, sink, err); werr != nil {
				err = fmt.Errorf("%w\n(the report naming this failure was not written: %w)", err, werr)
			}
		}
		return Outcome{Exit: result.ExitCode(err), Note: note}, err
	}
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
	return Outcome{Exit: r.ExitCode(), Verdict: r.Verdict(), Note: note}, gerr
}

// writeFailure hands sink the report of a run that failed with err, an instrument failure,
// before it could give a verdict (result.Failed): its profile, its scope and the failure, in the
// format req asks for. It is written past the memory budget too: the run may have failed at it.
func writeFailure(req Request, sink Sink, err error) error {
	out, ferr := report.NewFailed(req.Format, req.Render)
	if ferr != nil {
		return &result.InputError{Err: ferr}
	}
	profile := req.Options.Profile
	if profile == "" {
		profile = inputs.DefaultProfile
	}
	var scope *result.Scope
	if s := req.Options.Scope; !s.IsZero() {
		scope = &s
	}
	r := result.Failed(profile, scope, err)
	return sink(func(w io.Writer) error { return out.Output(w, r) })
}

// run checks the records and makes the format; the html format, which shows the views the
// policies compared (the report does not carry them), is made with the instrument's views (none
// for a run from decision logs: they hold no carrier). The note says what decision logs held.
func run(ctx context.Context, req Request) (*result.Report, report.Outputter, string, error) {
	render := req.Render
	var r *result.Report
	var err error
	note := ""
	if req.DecisionLogs != nil {
		var counts decisionlog.Counts
		r, counts, err = RunDecisionLogs(ctx, req.Options, *req.DecisionLogs)
		if counts.Files > 0 {
			note = "decision logs: " + counts.String()
		}
	} else if len(req.Censuses) > 0 {
		var read Censuses
		r, read, err = RunCensuses(ctx, req.Options, req.Censuses, req.CensusOut)
		if len(read.Read) > 0 {
			note = "census " + read.String()
		}
	} else if req.Format == "html" {
		r, render.Views, err = runWithViews(ctx, req.Options, req.CensusOut)
	} else {
		r, _, _, err = runRecords(ctx, req.Options, req.CensusOut)
	}
	if err != nil {
		return nil, nil, note, err
	}
	out, err := report.New(req.Format, render)
	if err != nil {
		return nil, nil, note, &result.InputError{Err: err}
	}
	return r, out, note, nil
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
