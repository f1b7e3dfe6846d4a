package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/census"
	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/check/pipeline"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// DecisionLogs names the OPA decision logs a check takes its verdicts from (check
// --decision-logs): files, directories of them, or "-" for Stdin.
type DecisionLogs struct {
	Paths []string
	Stdin io.Reader
}

// heldReading is a reading taken from a decision, with where it was logged and its fingerprint.
type heldReading struct {
	result.Reading
	at string
}

// repKey is one repetition of a binding.
type repKey struct {
	result.Binding
	repetition int
}

// heldDecisions are the decisions a run from decision logs, or from a census of them, holds: the
// readings, each repetition of a binding once in the order read, and the decisions that are
// errors (check --decision-logs and check --census take them alike).
type heldDecisions struct {
	index    map[repKey]int // into readings
	readings []heldReading
	// errs counts the decisions that are errors and lists the first of them (nil while there is
	// none); all is every one of them, kept only when the run writes a census (keepAll).
	errs    *result.DecisionErrors
	all     []result.DecisionError
	keepAll bool
}

func newHeldDecisions(keepAll bool) *heldDecisions {
	return &heldDecisions{index: map[repKey]int{}, keepAll: keepAll}
}

// hold holds r, logged at at ("file:line"). A repetition held before with the same fingerprint is
// the same decision logged again (a retry, a second OPA, a batch posted again): dup, and not held
// twice; with another fingerprint it is an error.
func (h *heldDecisions) hold(r result.Reading, at string) (dup bool, err error) {
	k := repKey{r.Binding, r.Repetition}
	if i, ok := h.index[k]; ok {
		if h.readings[i].Fingerprint == r.Fingerprint {
			return true, nil
		}
		return false, fmt.Errorf("%s: %s repetition %d: the decision differs from the one at %s (post each carrier of a position with its own repetition)",
			at, r.Binding, r.Repetition, h.readings[i].at)
	}
	h.index[k] = len(h.readings)
	h.readings = append(h.readings, heldReading{Reading: r, at: at})
	return false, nil
}

// refuse counts a decision that is an error, listing the first result.MaxLackingListed.
func (h *heldDecisions) refuse(e result.DecisionError) {
	if h.errs == nil {
		h.errs = &result.DecisionErrors{First: []result.DecisionError{}}
	}
	h.errs.Count++
	if len(h.errs.First) < result.MaxLackingListed {
		h.errs.First = append(h.errs.First, e)
	}
	if h.keepAll {
		h.all = append(h.all, e)
	}
}

// lacking adds the held readings to the census and says which expected bindings they lack, with
// the decisions that are errors: the expected bindings are the observation records' when
// --observations names them (their visibility readout collected into vis), else the contract
// set's matrix at the positions decisions were posted at.
func (h *heldDecisions) lacking(ctx context.Context, in *instrument.Instrument, cen *census.Census, observations bool,
	visReader *visibility.Reader, vis *visibility.Collector) (*result.Lacking, error) {
	var lacking *result.Lacking
	var err error
	if observations {
		lacking, err = fromRecords(ctx, in, cen, visReader, vis, h.index, h.readings)
	} else {
		lacking, err = fromMatrix(in, cen, h.index, h.readings)
	}
	if err != nil {
		return nil, err
	}
	lacking.Errors = h.errs
	return lacking, nil
}

// RunDecisionLogs builds the census from OPA decision logs of the contract set's bundle instead
// of evaluating carriers: each decision of the bundle's path (internal/decisionlog) gives, per task,
// the reading check's policy evaluation gives for a captured record, and the census, the gate, the
// localizations and the divergences are check's own. The expected bindings are what production
// posted (fromMatrix): the contract set's matrix within the run's scope (instrument.Matrix) at
// each lane, version, configuration and stage the logs hold a decision at, for the suites they
// hold a decision of there; or, when opts names observation records (--observations), the
// records' bindings: a record that was not captured gives its reading as it does in check, a
// captured one takes its verdicts from the decision of the same position and repetition, and the
// report's record references and visibility readout are the records'. A decision that is an error,
// not a verdict (decisionlog.Decision.Error), or a verdict on a fixture the contract set does not
// know (a production result never recorded, see unread), is counted and listed, and the read goes
// on; one whose logged input places it outside the run's scope (instrument.OutsideScope: a --lane the
// posted lane is not, say) is counted as outside it instead. What
// the logs lack and the error decisions are the report's Lacking, whose gate then gives no
// verdict (result.VerdictIncomplete, exit 2). The counts say what the reader read besides.
func RunDecisionLogs(ctx context.Context, opts inputs.Options, logs DecisionLogs) (*result.Report, decisionlog.Counts, error) {
	return RunDecisionLogsOut(ctx, opts, logs, "")
}

// RunDecisionLogsOut is RunDecisionLogs that also writes, when out is not empty, the census of
// decision logs the run took to the new directory out (check --decision-logs DIR --census-out
// out): a compacted census (internal/censusdir) holding the readings within the run's scope (a
// decision logged again held once) and every decision that is an error, its headers naming the
// batches of collect's it covers per directory, marked complete. check --census out gives the
// same report. A run refused on bad input leaves no marker.
func RunDecisionLogsOut(ctx context.Context, opts inputs.Options, logs DecisionLogs, out string) (*result.Report, decisionlog.Counts, error) {
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		return nil, decisionlog.Counts{}, err
	}
	opts = in.Options()
	var w *censusdir.Writer
	if out != "" {
		paths := slices.DeleteFunc(slices.Clone(logs.Paths), func(p string) bool { return p == decisionlog.StdinArg })
		// A file written into a directory of decision logs would be read by the next run.
		if err := safeio.CheckOutputDirFlag("--census-out", out, paths); err != nil {
			return nil, decisionlog.Counts{}, result.AsInput(err)
		}
		set, err := censusdir.SetOf(opts)
		if err != nil {
			return nil, decisionlog.Counts{}, result.AsInput(err)
		}
		if w, err = censusdir.Create(out, set); err != nil {
			return nil, decisionlog.Counts{}, result.AsInput(err)
		}
		defer w.Discard() // after Close, nothing
	}
	held := newHeldDecisions(w != nil)
	outOfScope, duplicates := 0, 0
	counts, err := decisionlog.Read(ctx, logs.Paths, logs.Stdin, func(d *decisionlog.Decision) error {
		if msg := unread(in, d); msg != "" {
			if in.OutsideScope(d.Position) {
				outOfScope++ // its logged input places it outside the run's scope
				return nil
			}
			held.refuse(result.DecisionError{At: d.At(), Decision: d.ID, Error: msg})
			return nil
		}
		rs, err := readingsOf(in, d)
		if err != nil {
			return err
		}
		if rs == nil {
			outOfScope++
		}
		for _, r := range rs {
			dup, err := held.hold(r, d.At())
			if err != nil {
				return result.AsInput(err)
			}
			if dup {
				duplicates++ // the same decision logged again (a retry, a second OPA)
			}
		}
		return nil
	})
	counts.OutOfScope, counts.Duplicates = outOfScope, duplicates
	if err != nil {
		return nil, counts, result.AsInput(err)
	}
	cen, err := census.New(in.Model, opts.Profile)
	if err != nil {
		return nil, counts, result.AsInput(err)
	}
	cen.Restrict(opts.Scope)
	var vis *visibility.Collector
	var visReader *visibility.Reader
	if len(opts.Observations) > 0 {
		if visReader, err = pipeline.Visibility(ctx, in); err != nil {
			return nil, counts, result.AsInput(err)
		}
		vis = visibility.NewCollector(visReader)
	}
	lacking, err := held.lacking(ctx, in, cen, vis != nil, visReader, vis)
	if err != nil {
		return nil, counts, err
	}
	if lacking.Held == 0 && len(held.index) == 0 && held.errs == nil {
		return nil, counts, result.AsInput(fmt.Errorf("no decision of %s within the run's scope in %s (%s): a check needs at least one", decisionlog.Path, describe(logs.Paths), counts))
	}
	r, err := cen.Report()
	if err != nil {
		return nil, counts, result.AsInput(err) // a repetition recorded twice (census.RepeatedError)
	}
	if w != nil {
		sources := censusdir.Sources{}
		for _, b := range counts.Batches {
			sources.AddBatch(b.Dir, b.Seq, b.Received)
		}
		if err := writeDecisions(w, sources, held.readings, held.all); err != nil {
			return nil, counts, result.AsInput(err)
		}
	}
	if vis != nil {
		if r.Visibility, err = vis.Report(ctx); err != nil {
			return nil, counts, result.AsInstrument(err)
		}
		if r.VisibilityGroups() > 0 {
			r.VisibilityPolicy = visReader.Policy()
		}
	}
	gateReached(in.Model, in.Options().Profile, r)
	if lacking.Count > 0 || lacking.Errors != nil {
		r.Lacking = lacking
		// An incomplete census gives no verdict, in every format alike: the gate says so, unless it
		// already says the instrument failed (exit 3 comes first: result.Report.ExitCode).
		if r.Gate.Verdict != result.VerdictInstrumentFailed {
			r.Gate.Verdict, r.Gate.Satisfied = result.VerdictIncomplete, false
		}
	}
	return r, counts, nil
}

// posted is a lane, version, configuration and stage decisions were posted at, with a suite they
// were posted for: what production judges, the expected set of a run from decision logs.
type posted struct {
	lane, version, configuration, stage, suite string
}

// postedAt is the lane, version, configuration, stage and suite of a position.
func postedAt(in *instrument.Instrument, pos result.Position) posted {
	return posted{pos.Lane, pos.LaneVersion, pos.Configuration, pos.Stage, in.Model.Fixtures[pos.Fixture].Suite}
}

// fromMatrix adds the decisions' readings to the census and says which bindings of the contract
// set's matrix within the scope they lack, of those production posted: the positions whose lane,
// version, configuration and stage the logs hold a decision at, and whose fixture's suite the
// logs hold a decision of at that lane, version, configuration and stage. A service posts what its
// agent is given: a suite it posts at a stage is expected whole there (a decision OPA dropped is
// lacking), and a catalogue suite it never posts, a lane version it does not run or a stage it does
// not post at is not expected. The run's scope (--lane, --suite, --fixture, …) narrows it further.
func fromMatrix(in *instrument.Instrument, cen *census.Census, held map[repKey]int, readings []heldReading) (*result.Lacking, error) {
	for _, h := range readings {
		if err := cen.Add(h.Reading); err != nil {
			return nil, result.AsInput(err)
		}
	}
	p := newPostedSet(in)
	for k := range held {
		p.add(k.Binding)
	}
	return p.lacking(), nil
}

// postedSet is what decisions hold: their bindings and where they were posted, from which
// lacking says the expected bindings they lack (fromMatrix; a census of decision logs).
type postedSet struct {
	in       *instrument.Instrument
	bindings map[result.Binding]bool
	where    map[posted]bool
}

func newPostedSet(in *instrument.Instrument) *postedSet {
	return &postedSet{in: in, bindings: map[result.Binding]bool{}, where: map[posted]bool{}}
}

func (p *postedSet) add(b result.Binding) {
	p.bindings[b] = true
	p.where[postedAt(p.in, b.Position)] = true
}

// lacking is the matrix within the run's scope at the places decisions were posted, and which of
// its bindings no decision holds, in report order.
func (p *postedSet) lacking() *result.Lacking {
	l := &result.Lacking{First: []result.Binding{}}
	matrix(p.in, func(pos result.Position, tasks []string) bool {
		if !p.where[postedAt(p.in, pos)] {
			return true
		}
		for _, t := range tasks {
			l.Expected++
			if p.bindings[result.Binding{Position: pos, Task: t}] {
				l.Held++
				continue
			}
			l.Count++
			if len(l.First) < result.MaxLackingListed {
				l.First = append(l.First, result.Binding{Position: pos, Task: t})
			}
		}
		return true
	})
	return l
}

// fromRecords reads the observation records the options select and gives each record's bindings
// their readings: a record not captured its state, as check gives it; a captured one the decision
// logged for its position and repetition, placed at the record. A decision no record asks for is an
// input error: the logs and the records are not of the same run.
func fromRecords(ctx context.Context, in *instrument.Instrument, cen *census.Census, visReader *visibility.Reader, vis *visibility.Collector,
	held map[repKey]int, readings []heldReading) (*result.Lacking, error) {
	files, err := in.Options().RecordFiles()
	if err != nil {
		return nil, result.AsInput(err)
	}
	used := make([]bool, len(readings))
	l := &result.Lacking{First: []result.Binding{}}
	n := 0
	err = in.ReadRecords(ctx, files, func(rec *instrument.Record) error {
		n++
		v, err := pipeline.ReadVisibility(ctx, in, visReader, rec)
		if err != nil {
			return err
		}
		vis.Add(v)
		origin := in.Model.Lanes[rec.Lane].OriginOf(rec.LaneVersion)
		for _, task := range in.Tasks(rec.Fixture, rec.Stage) {
			b := result.Binding{Position: rec.Position(), Task: task}
			r := result.Reading{Binding: b, Repetition: rec.Repetition, Origin: origin, Outcome: rec.State, Error: rec.Error, File: rec.File, Line: rec.Line}
			if rec.State == "captured" {
				l.Expected++
				i, ok := held[repKey{b, rec.Repetition}]
				if !ok {
					l.Count++
					if len(l.First) < result.MaxLackingListed {
						l.First = append(l.First, result.Binding{Position: b.Position, Task: task})
					}
					continue
				}
				l.Held++
				used[i] = true
				h := readings[i].Reading
				r.Outcome, r.Readout, r.Diagnostics, r.Fingerprint = h.Outcome, h.Readout, h.Diagnostics, h.Fingerprint
			}
			if err := cen.Add(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, result.AsInput(err)
	}
	if n == 0 {
		return nil, result.AsInput(fmt.Errorf("no observation records in %s: a check needs at least one", in.Options().DescribeObservations()))
	}
	if i := slices.Index(used, false); i >= 0 {
		h := readings[i]
		return nil, result.AsInput(fmt.Errorf("%s: %s repetition %d: no captured observation record in %s is at this position and repetition (the decision logs and the records are not of the same run)",
			h.at, h.Binding, h.Repetition, in.Options().DescribeObservations()))
	}
	return l, nil
}

// unread says why a decision gives no verdict to read, or "" when it gives one: it is an error
// (decisionlog.Decision.Error), or a verdict of the check's profile on a fixture that no catalog
// or --fixtures layer holds (a production result never recorded). Such a decision is counted and
// listed, not fatal, so that it does not hide the report of the other decisions; the fixture id is
// quoted as instrument.Place quotes it.
func unread(in *instrument.Instrument, d *decisionlog.Decision) string {
	if d.Error != "" {
		return d.Error
	}
	if _, known := in.Model.Fixtures[d.Fixture]; d.Fixture != "" && !known && d.Profile == in.Options().Profile {
		return fmt.Sprintf("/fixture: unknown fixture %q (not in the catalog, and no --fixtures layer holds its source): record that result with `contractcheck record`, or give its source with --fixtures",
			d.Fixture)
	}
	return ""
}

// readingsOf turns a decision into census readings, one per task result within the run's scope;
// nil when the decision's position is outside the scope. A decision the contract set does not
// know, of another profile or source, or whose task results break the policy interface, is an
// error naming where it was logged.
func readingsOf(in *instrument.Instrument, d *decisionlog.Decision) ([]result.Reading, error) {
	fail := func(member, format string, args ...any) error {
		return result.AsInput(&memberError{member, fmt.Errorf("%s: %s", d.At(), fmt.Sprintf(format, args...))})
	}
	if p := in.Options().Profile; d.Profile != p {
		return nil, fail("/result/profile", "the decision is of profile %s, the check's is %s (give --profile %s, or serve the bundle of profile %s)",
			strconv.Quote(d.Profile), p, strconv.Quote(d.Profile), p)
	}
	m := in.Model
	lane, sd, err := in.Place(d.Position, d.SourceSha256)
	if err != nil {
		return nil, fail(placeMember(err), "%v", err)
	}
	if sd.Exposure != contract.Observed {
		return nil, fail("/result/stage", "/stage: lane %s does not observe stage %s (it declares it %s): no decision is made there", d.Lane, strconv.Quote(d.Stage), sd.Exposure)
	}
	pos := d.Position
	if !in.InScope(pos) {
		return nil, nil
	}
	all := m.ProfileTasks(in.Profile, m.Fixtures[d.Fixture])
	within := in.Tasks(d.Fixture, d.Stage)
	out := []result.Reading{}
	seen := map[string]bool{}
	for i, tr := range d.Results {
		member := fmt.Sprintf("/result/results/%d", i)
		if !slices.Contains(all, tr.Task) || !m.Tasks[tr.Task].AtStage(d.Stage) {
			return nil, fail(member, "task %s is not evaluated on fixture %s at stage %s under profile %s: the bundle is not of this contract set (build it with the check's flags)",
				strconv.Quote(tr.Task), d.Fixture, d.Stage, d.Profile)
		}
		if seen[tr.Task] {
			return nil, fail(member, "task %s has two results", tr.Task)
		}
		seen[tr.Task] = true
		if !slices.Contains(within, tr.Task) {
			continue // outside the run's --task scope
		}
		if tr.Outcome == "instrument_failed" {
			return nil, result.AsInstrument(&memberError{member, fmt.Errorf("%s: task %s: the bundle's policy failed: %s", d.At(), tr.Task, tr.Error)})
		}
		if err := policy.CheckDiagnostics(tr.Diagnostics, m.Tasks[tr.Task].Atoms); err != nil {
			return nil, result.AsInstrument(&memberError{member + "/diagnostics", fmt.Errorf("%s: task %s breaks the policy interface: %w", d.At(), tr.Task, err)})
		}
		fp, err := result.Fingerprint(tr.Outcome, tr.Readout, tr.Diagnostics)
		if err != nil {
			return nil, fail(member, "task %s: %v", tr.Task, err)
		}
		r := result.Reading{
			Binding:    result.Binding{Position: pos, Task: tr.Task},
			Repetition: d.Repetition, Origin: lane.OriginOf(d.LaneVersion), Outcome: tr.Outcome,
			Readout: tr.Readout, Diagnostics: tr.Diagnostics, Fingerprint: fp,
			File: d.File, Line: d.Line,
		}
		if d.Record != nil {
			r.File, r.Line = d.Record.File, d.Record.Line
		}
		out = append(out, r)
	}
	return out, nil
}

// memberError is an error of one member of a decision's event, named as a JSON pointer within
// the event ("/result/lane"), for a caller that answers with it (ValidateDecision).
type memberError struct {
	member string
	err    error
}

func (e *memberError) Error() string { return e.err.Error() }
func (e *memberError) Unwrap() error { return e.err }

// placeMember is the member of a decision's result that instrument.Place's error names: its
// message begins with the record's pointer ("/lane: unknown lane …"), which the decision echoes
// under /result.
func placeMember(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ":"); strings.HasPrefix(msg, "/") && i > 1 && !strings.ContainsAny(msg[:i], " \"") {
		return "/result" + msg[:i]
	}
	return "/result"
}

// DecisionFault is why check --decision-logs cannot take a decision as it is: the member of the
// event at fault (a JSON pointer within the event) and what is wrong. UnknownFixture says the
// decision is a verdict on a fixture no catalogue entry names and no --fixtures layer holds
// (which check lists rather than reads); otherwise it does not fit the contract set (an unknown
// lane, version, stage, task or profile, a source digest that is not the fixture's, a task result
// that breaks the policy interface).
type DecisionFault struct {
	Member         string
	UnknownFixture bool
	Err            error
}

func (f *DecisionFault) Error() string { return f.Err.Error() }
func (f *DecisionFault) Unwrap() error { return f.Err }

// ValidateDecision says whether check --decision-logs over the contract set in takes d as a
// verdict it reads (nil), or a *DecisionFault. A decision that is an error, not a verdict
// (d.Error), is nil: check lists it with the report. The run's scope does not matter: every
// decision must fit the contract set, in scope or not.
func ValidateDecision(in *instrument.Instrument, d *decisionlog.Decision) error {
	_, err := DecisionReadings(in, d)
	return err
}

// DecisionReadings is ValidateDecision that also gives the readings check --decision-logs takes
// from d: one per task result within the run's scope, none for a decision that is an error.
func DecisionReadings(in *instrument.Instrument, d *decisionlog.Decision) ([]result.Reading, error) {
	if d.Error != "" {
		return nil, nil
	}
	if msg := unread(in, d); msg != "" {
		return nil, &DecisionFault{Member: "/result/fixture", UnknownFixture: true, Err: fmt.Errorf("%s: %s", d.At(), msg)}
	}
	rs, err := readingsOf(in, d)
	if err != nil {
		f := &DecisionFault{Member: "/result", Err: err}
		var me *memberError
		if errors.As(err, &me) {
			f.Member = me.member
		}
		return nil, f
	}
	return rs, nil
}

// describe names the decision logs in a message.
func describe(paths []string) string {
	return fmt.Sprintf("%q", paths)
}
