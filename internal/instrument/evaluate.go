package instrument

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/result"
)

// viewOnce is one view of a record's carrier: a compartment, with the members a task keeps.
type viewOnce struct{ compartment, reads string }

// Evaluate projects one record's carrier through each compartment its tasks read and evaluates
// every task of the profile on it. A record that was not captured gives its state as the outcome
// of every task: never an unmet. The run's context bounds it: once ctx is done (a limit reached,
// the memory watchdog's *guard.LimitError as its cause), no further view is begun.
func (in *Instrument) Evaluate(ctx context.Context, rec *Record) ([]result.Reading, error) {
	f := in.Model.Fixtures[rec.Fixture]
	tasks := in.tasksInScope(in.Model.ProfileTasks(in.Profile, f))
	out := make([]result.Reading, 0, len(tasks))
	views := map[viewOnce]*Observed{}
	pos := rec.Position()
	for _, task := range tasks {
		if !in.Model.Tasks[task].AtStage(rec.Stage) {
			continue // the task decides nothing at this stage
		}
		r := result.Reading{
			Binding:    result.Binding{Position: pos, Task: task},
			Repetition: rec.Repetition, Origin: rec.Origin, Outcome: rec.State, Error: rec.Error,
			File: rec.File, Line: rec.Line,
		}
		if rec.State != "captured" {
			out = append(out, r)
			continue
		}
		comp, reads := in.Model.Tasks[task].Compartment, in.reads[task]
		view, ok := views[viewOnce{comp, reads}]
		if !ok {
			if ctx.Err() != nil {
				// The run is stopped (the memory watchdog cancels its context with the
				// *guard.LimitError): the projection and the policy input cannot be cancelled
				// once begun.
				return nil, result.AsInstrument(fmt.Errorf("%s:%d: %w", rec.File, rec.Line, context.Cause(ctx)))
			}
			var err error
			if view, err = in.observe(rec.Fixture, rec.Lane, rec.Stage, comp, reads, rec.Carrier, rec.carrierBytes); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
			}
			views[viewOnce{comp, reads}] = view
		}
		v, err := in.verdict(ctx, inputKey{rec.Fixture, task, rec.Stage}, pos, view)
		if err != nil {
			return nil, result.AsInstrument(fmt.Errorf("%s:%d: task %s (%s %s %s %s %s): %w", rec.File, rec.Line, task, rec.Fixture, rec.Lane, rec.LaneVersion, rec.Configuration, rec.Stage, err))
		}
		r.Readout, r.Diagnostics, r.Outcome, r.Fingerprint = v.Readout, v.Diagnostics, v.outcome, v.fingerprint
		out = append(out, r)
	}
	return out, nil
}

// PolicyInput is the input of task's policy on a captured record, exactly as Evaluate hands it to
// the policy: the constant part (task, stage, fixture, contract, source view), the record's
// position and its carrier through the task's compartment, each view holding what the policy
// reads of it. A task with no input at the record's stage (outside the run's scope) is an error.
func (in *Instrument) PolicyInput(rec *Record, task string) (ast.Value, error) {
	b, ok := in.inputs[inputKey{rec.Fixture, task, rec.Stage}]
	if !ok {
		return nil, fmt.Errorf("%s:%d: task %s has no input at %s (outside the run's scope)", rec.File, rec.Line, task, rec.Stage)
	}
	view, err := in.observe(rec.Fixture, rec.Lane, rec.Stage, in.Model.Tasks[task].Compartment, in.reads[task], rec.Carrier, rec.carrierBytes)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
	}
	val, err := view.Value()
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
	}
	return withObserved(b.term, rec.Position(), val), nil
}

// Query is the prepared query of task's policy (nil for a task the model does not define): its
// package and files name the policy; a verdict it gives is held to the policy interface by
// CheckVerdict before it is used.
func (in *Instrument) Query(task string) *policy.Query { return in.queries[task] }
