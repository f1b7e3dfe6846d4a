package check

import (
	"context"
	"slices"

	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/lock"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Request is one check as a verb asks for it: what to read and what the runner does around the
// run. How the report is rendered is not the runner's business: it returns the report
// (result.Report) and the caller renders it (internal/checkreport does, through the formats of
// internal/report).
type Request struct {
	// Options selects the inputs, the profile and the scope.
	Options inputs.Options
	// Views asks for the run's views (result.Views: the canonical views and binding rules the
	// policies compared, which the report does not carry) beside its report, as the html format
	// shows them. A run from decision logs or censuses has none: they hold no carrier.
	Views bool
	// LockFile, when set, is compared with the inputs before the run: any drift is refused
	// (lock.Verify), as the lock written by tool version LockTool records them.
	LockFile, LockTool string
	// DecisionLogs, when set, are the OPA decision logs the verdicts are taken from instead of
	// evaluating the records' carriers (RunDecisionLogs).
	DecisionLogs *DecisionLogs
	// Censuses, when set, are census directories (internal/censusdir) the report is made from
	// instead of records: their union (RunCensuses).
	Censuses []string
	// CensusOut, when set, is the directory the run's census is written to (a census of the
	// records read, the union of Censuses, or a compacted census of the DecisionLogs).
	CensusOut string
}

// Replayable says whether the request's report is a pure function of the options and the files
// its inputs hold, so that an unchanged run's report may be replayed (internal/resultcache): not
// when it reads standard input (read once), decision logs or censuses, nor when it writes a
// census (a side effect a replay would skip).
func (req Request) Replayable() bool {
	return !slices.Contains(req.Options.Observations, inputs.StdinArg) && req.DecisionLogs == nil && req.Censuses == nil && req.CensusOut == ""
}

// VerifyLock compares the inputs with req's lock file, when it names one, and refuses any drift
// (lock.Verify): Execute does it before the run, a caller that may replay the run before it.
func (req Request) VerifyLock() error {
	if req.LockFile == "" {
		return nil
	}
	return lock.Verify(req.LockFile, req.Options, req.LockTool)
}

// Outcome is a finished check: its report and what goes with it.
type Outcome struct {
	// Report is the run's report; for a run that failed with the instrument failing, the report
	// naming the failure (result.Failed); nil for a run refused on bad input.
	Report *result.Report
	// Views are the run's views when the request asked for them (nil otherwise, and for a run
	// from decision logs or censuses).
	Views result.Views
	// Note, for a run from decision logs or censuses, says what they held besides the report
	// (decisionlog.Counts, Censuses), for the log beside the report.
	Note string
}

// Execute runs a check as req asks: the lock is verified first, then the records are checked
// (Run, or RunWithViews when req asks for views), or the decision logs or censuses read. It
// never renders. The error is the run's (an input or instrument error: see result.ExitCode). A
// run that fails with the instrument failing (result.IsInstrumentFailure) still returns a report,
// one that names the failure and gives no verdict (result.Failed), beside the error; a run that
// fails on bad input (exit 2) returns none.
func Execute(ctx context.Context, req Request) (Outcome, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := req.VerifyLock(); err != nil {
		return Outcome{}, err
	}
	o, err := run(ctx, req)
	if err != nil && result.IsInstrumentFailure(err) {
		o.Report, o.Views = failed(req, err), nil
	}
	return o, err
}

// failed is the report of a run that failed with err, an instrument failure, before it could
// give a verdict (result.Failed): its profile, its scope and the failure.
func failed(req Request, err error) *result.Report {
	profile := req.Options.Profile
	if profile == "" {
		profile = inputs.DefaultProfile
	}
	var scope *result.Scope
	if s := req.Options.Scope; !s.IsZero() {
		scope = &s
	}
	return result.Failed(profile, scope, err)
}

// run checks the records, or reads the decision logs or censuses, as req asks; the note says
// what decision logs or censuses held.
func run(ctx context.Context, req Request) (Outcome, error) {
	var o Outcome
	var err error
	switch {
	case req.DecisionLogs != nil:
		var counts decisionlog.Counts
		o.Report, counts, err = RunDecisionLogsOut(ctx, req.Options, *req.DecisionLogs, req.CensusOut)
		if counts.Files > 0 {
			o.Note = "decision logs: " + counts.String()
		}
	case len(req.Censuses) > 0:
		var read Censuses
		o.Report, read, err = RunCensuses(ctx, req.Options, req.Censuses, req.CensusOut)
		if len(read.Read) > 0 {
			o.Note = "census " + read.String()
		}
	case req.Views:
		o.Report, o.Views, err = runWithViews(ctx, req.Options, req.CensusOut)
	default:
		o.Report, _, _, err = runRecords(ctx, req.Options, req.CensusOut)
	}
	if err != nil {
		o.Report, o.Views = nil, nil
	}
	return o, err
}
