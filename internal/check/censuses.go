package check

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/census"
	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/check/pipeline"
	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// Censuses is what a run from census directories read (check --census): each directory's parts
// and readings, and the readings outside the run's scope, which it left out.
type Censuses struct {
	Read       []censusdir.Info
	OutOfScope int
	// Duplicates counts the readings of a census of decision logs held again with the same
	// verdict (a batch OPA posted again), counted once, as check --decision-logs counts them.
	Duplicates int
	// DuplicateErrors counts the decisions that are errors held again (the same logged decision
	// in two censuses merged), counted once.
	DuplicateErrors int
}

// decisions says the censuses read are of decision logs (collect --census).
func (c Censuses) decisions() bool {
	return len(c.Read) > 0 && c.Read[0].Decisions
}

// Complete says every census read was marked complete by its writer.
func (c Censuses) Complete() bool {
	for _, i := range c.Read {
		if !i.Complete {
			return false
		}
	}
	return true
}

// String says it for the note beside the report.
func (c Censuses) String() string {
	parts := make([]string, 0, len(c.Read)+1)
	for _, i := range c.Read {
		parts = append(parts, i.String())
	}
	if c.OutOfScope > 0 {
		parts = append(parts, fmt.Sprintf("%d readings outside the run's scope left out", c.OutOfScope))
	}
	if c.Duplicates > 0 {
		parts = append(parts, fmt.Sprintf("%d task results logged again, counted once", c.Duplicates))
	}
	if c.DuplicateErrors > 0 {
		parts = append(parts, fmt.Sprintf("%d decisions that are errors held again, counted once", c.DuplicateErrors))
	}
	return strings.Join(parts, "; ")
}

// writeDecisions writes a compacted census of decision logs to w and marks it complete: the
// windows of the batches its inputs cover, the readings held (a decision logged again held once)
// and every decision that is an error, in the order read.
func writeDecisions(w *censusdir.Writer, sources censusdir.Sources, readings []heldReading, errs []result.DecisionError) error {
	if err := w.SetSources(sources); err != nil {
		return err
	}
	for _, h := range readings {
		if err := w.Add(h.Reading); err != nil {
			return err
		}
	}
	for _, e := range errs {
		if err := w.AddDecisionError(e); err != nil {
			return err
		}
	}
	return w.Close()
}

// bindingKey is a binding as the contract set knows it: the version and configuration of a lane
// are the records', not the contract set's.
type bindingKey struct{ fixture, lane, stage, task string }

// foreign says why the contract set under the run's profile does not evaluate a binding ("" when
// it does): a census made by another contract set (or with other --fixtures layers) holds
// bindings this one lacks, which a report must not count as its own. Only the matrix is checked:
// two contract sets with the same bindings and other policies are not told apart. The answers are
// kept in known.
func foreign(in *instrument.Instrument, known map[bindingKey]string, b result.Binding) string {
	k := bindingKey{b.Fixture, b.Lane, b.Stage, b.Task}
	if why, ok := known[k]; ok {
		return why
	}
	m, why := in.Model, ""
	f, fixture := m.Fixtures[b.Fixture]
	l, lane := m.Lanes[b.Lane]
	_, stage := l.Stages[b.Stage]
	switch t, task := m.Tasks[b.Task]; {
	case !fixture:
		why = fmt.Sprintf("fixture %s is not in this contract set", strconv.Quote(b.Fixture))
	case !lane:
		why = fmt.Sprintf("lane %s is not in this contract set", strconv.Quote(b.Lane))
	case !stage:
		why = fmt.Sprintf("lane %s has no stage %s", b.Lane, strconv.Quote(b.Stage))
	case !task || !slices.Contains(m.ProfileTasks(in.Profile, f), b.Task) || !t.AtStage(b.Stage):
		why = fmt.Sprintf("task %s is not evaluated on fixture %s at stage %s under profile %s", strconv.Quote(b.Task), b.Fixture, b.Stage, in.Options().Profile)
	}
	known[k] = why
	return why
}

// RunCensuses reports on the union of census directories (internal/censusdir) instead of
// evaluating records: every reading of every whole part of every directory goes into one census,
// in the order read, which collapses the repetitions, finds the unstable bindings and applies the
// gate after the union, so that the report is the one a check of all their inputs at once gives
// (a census does not depend on the order of its readings). A reading outside the run's scope
// (--lane, --fixture, …) is left out and counted. A repetition that two parts both hold is an
// input error, as two records of one repetition are. A census still being written (no
// completion marker: a check or collect writing it now) is read as far as its whole parts go,
// and the report's gate gives no verdict (result.VerdictIncomplete, exit 2): what it lacks is
// not known until its writer is done. A reading of a binding this contract set does not evaluate
// under the run's profile (a census of another contract set) is an input error naming the part.
// When out is not empty the union is written to it as a
// census of its own (a merge).
//
// A census of decision logs (collect --census: its parts are the batches collect took) is read
// as check --decision-logs reads the batches: a task result logged again with the same verdict
// counts once (a batch OPA posted again), the expected bindings are the contract set's matrix
// within the run's scope where the decisions were posted (fromMatrix), or the records'
// bindings when the options name observation records (fromRecords), and the report's Lacking
// lists what the census lacks and the decisions that are errors; its gate gives no verdict while
// anything is lacking. Collect's census is never marked complete: it is complete when it lacks
// nothing. A compacted one (check --census-out of censuses of decision logs, or of
// --decision-logs: RunDecisionLogsOut) is marked complete by the run that writes it, and gives
// no verdict until it is; it merges with collect's. Censuses of decision logs and of checks are
// not merged (an input error). A decision that is an error held again (the same census part read
// twice, a compacted census merged with a census it holds) counts once, as a reading does.
//
// When out is not empty and the censuses are of decision logs, out is a compacted census of
// their union: the readings held (within the run's scope), every decision that is an error and
// the windows of the batches they cover, per collector (censusdir.Sources: a collector's census
// is named by its directory as given), marked complete. An out that is one of dirs or lies
// inside one, or holds one, is refused.
func RunCensuses(ctx context.Context, opts inputs.Options, dirs []string, out string) (*result.Report, Censuses, error) {
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		return nil, Censuses{}, err
	}
	return FromCensuses(ctx, in, dirs, out)
}

// FromCensuses is RunCensuses with the instrument loaded.
func FromCensuses(ctx context.Context, in *instrument.Instrument, dirs []string, out string) (*result.Report, Censuses, error) {
	var read Censuses
	opts := in.Options()
	cen, err := census.New(in.Model, opts.Profile)
	if err != nil {
		return nil, read, result.AsInput(err)
	}
	cen.Restrict(opts.Scope)
	visReader, err := pipeline.Visibility(ctx, in)
	if err != nil {
		return nil, read, result.AsInput(err)
	}
	visible := visibility.NewCollector(visReader)
	set, err := censusdir.SetOf(opts)
	if err != nil {
		return nil, read, result.AsInput(err)
	}
	var w *censusdir.Writer
	if out != "" {
		// Written into an input, the census would change it (a part added to a census) or be
		// read back by the next run; written around one, it would hold it.
		if err := safeio.CheckOutputDirFlag("--census-out", out, dirs); err != nil {
			return nil, read, result.AsInput(err)
		}
		if w, err = censusdir.Create(out, set); err != nil {
			return nil, read, result.AsInput(err)
		}
		defer w.Discard() // after Close, nothing
	}
	n := 0
	decisions := false                          // the part being read is a batch of decision logs
	held := newHeldDecisions(w != nil)          // of a census of decision logs
	seenErrs := map[result.DecisionError]bool{} // where each was logged names it
	sources := censusdir.Sources{}              // the batches a census of decision logs covers, for out
	known := map[bindingKey]string{}            // foreign's answers
	part := ""                                  // the part being read
	for _, dir := range dirs {
		info, err := censusdir.ReadWith(dir, set, censusdir.Handlers{Part: func(p string, hdr censusdir.Header) error {
			part = p
			if len(read.Read) > 0 && hdr.Decisions() != read.decisions() {
				return fmt.Errorf("census part %s: %s is a census of %s, %s is not: a census of decision logs (collect --census, or compacted by check --census-out) and one of a check (check --census-out) are not merged",
					p, read.Read[0].Dir, map[bool]string{true: "decision logs", false: "a check"}[read.decisions()], dir)
			}
			decisions = hdr.Decisions()
			if hdr.Batch != nil {
				sources.AddBatch(filepath.Clean(dir), hdr.Batch.Seq, hdr.Batch.Received)
			}
			sources.Merge(hdr.Sources)
			return nil
		}, Reading: func(r result.Reading) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if in.OutsideScope(r.Position) {
				read.OutOfScope++
				return nil
			}
			if why := foreign(in, known, r.Binding); why != "" {
				return fmt.Errorf("census part %s: the reading of %s repetition %d (record %s:%d): %s: the census was made by another contract set, or with other --fixtures layers (give the ones it was made with)",
					part, r.Binding, r.Repetition, r.File, r.Line, why)
			}
			if decisions {
				dup, err := held.hold(r, fmt.Sprintf("%s:%d", r.File, r.Line))
				if err != nil {
					return err
				}
				if dup {
					read.Duplicates++
					return nil // the same decision logged again (a batch posted again)
				}
				n++
				return nil // to the census as check --decision-logs adds them (below)
			}
			n++
			if w != nil {
				if err := w.Add(r); err != nil {
					return err
				}
			}
			return cen.Add(r)
		}, Visibility: func(v *visibility.Reading) error {
			if in.OutsideScope(result.Position{Fixture: v.Fixture, Lane: v.Group.Lane, LaneVersion: v.Group.Version,
				Configuration: v.Group.Configuration, Stage: v.Group.Stage}) {
				return nil
			}
			visible.Add(v)
			if w != nil {
				return w.AddVisibility(v)
			}
			return nil
		}, DecisionError: func(e result.DecisionError) error {
			if seenErrs[e] {
				read.DuplicateErrors++
				return nil // the same decision held again (a census merged with one that holds it)
			}
			seenErrs[e] = true
			held.refuse(e)
			return nil
		}})
		if err == nil {
			read.Read = append(read.Read, info) // a read cut short says nothing of the census
		}
		if le := guard.Stopped(ctx); le != nil {
			return nil, read, &result.InstrumentError{Err: le}
		}
		if ctx.Err() != nil {
			return nil, read, context.Cause(ctx)
		}
		if err != nil {
			return nil, read, result.AsInput(err)
		}
	}
	if n == 0 && held.errs == nil {
		return nil, read, result.AsInput(fmt.Errorf("no reading within the run's scope in census %s: a check needs at least one", strings.Join(dirs, ", ")))
	}
	if w != nil {
		if read.decisions() {
			err = writeDecisions(w, sources, held.readings, held.all)
		} else {
			err = w.Close()
		}
		if err != nil {
			return nil, read, result.AsInput(err)
		}
	}
	var lacking *result.Lacking
	if read.decisions() {
		// The readings of the decisions, with the records when --observations names them, as
		// check --decision-logs takes the decisions of the batches.
		if lacking, err = held.lacking(ctx, in, cen, len(opts.Observations) > 0, visReader, visible); err != nil {
			return nil, read, err
		}
	}
	if n >= releaseAfter {
		debug.FreeOSMemory() // the decoded lines are garbage now: as RunWith, before the report
	}
	r, err := cen.Report()
	if err != nil {
		return nil, read, result.AsInput(err) // a repetition recorded twice (census.RepeatedError)
	}
	if r.Visibility, err = visible.Report(ctx); err != nil {
		return nil, read, result.AsInstrument(err)
	}
	if r.VisibilityGroups() > 0 {
		r.VisibilityPolicy = visReader.Policy()
	}
	gateReached(in.Model, opts.Profile, r)
	incomplete := !read.Complete()
	if lacking != nil {
		if incomplete = lacking.Count > 0 || lacking.Errors != nil; incomplete {
			r.Lacking = lacking
		}
		for _, i := range read.Read {
			incomplete = incomplete || (i.Compacted && !i.Complete) // check is writing it now
		}
	}
	if incomplete && r.Gate.Verdict != result.VerdictInstrumentFailed {
		r.Gate.Verdict, r.Gate.Satisfied = result.VerdictIncomplete, false
	}
	if le := guard.Stopped(ctx); le != nil {
		return nil, read, &result.InstrumentError{Err: le}
	}
	return r, read, nil
}
