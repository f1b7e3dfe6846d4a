package instrument

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Inspection is one record as its tasks' policies read it: for each task the record binds, the
// policy input exactly as the policy is given it, and the verdict it gives (contractcheck inspect
// record).
type Inspection struct {
	Record RecordRef `json:"record"`
	// Tasks are the record's bindings in the order check evaluates them (the fixture's tasks
	// within the run's scope, evaluated at the record's stage).
	Tasks []TaskInspection `json:"tasks"`
}

// RecordRef names a record: where it is and what it observed.
type RecordRef struct {
	File string `json:"file"`
	Line int    `json:"line"`
	result.Position
	Repetition int    `json:"repetition"`
	State      string `json:"state"`
	Origin     string `json:"origin"`
	Error      string `json:"error,omitempty"`
}

// TaskInspection is one binding of a record: the task, the compartment its observed view is read
// through, the policy (package and files), the input (absent when the record was not captured: a
// state is never evaluated) and what the policy gave.
type TaskInspection struct {
	Task        string           `json:"task"`
	Compartment string           `json:"compartment"`
	Policy      string           `json:"policy"`
	Files       []string         `json:"files"`
	Outcome     string           `json:"outcome"`
	Input       any              `json:"input,omitempty"`
	Readout     map[string]any   `json:"readout,omitempty"`
	Diagnostics []map[string]any `json:"diagnostics"`
}

// Inspect evaluates every task of one record as Evaluate does, without the verdict memo, and
// keeps each task's policy input. A record that was not captured gives its state as every task's
// outcome and no input.
func (in *Instrument) Inspect(ctx context.Context, rec *Record) (Inspection, error) {
	pos := rec.Position()
	out := Inspection{Record: RecordRef{File: rec.File, Line: rec.Line, Position: pos,
		Repetition: rec.Repetition, State: rec.State, Origin: rec.Origin, Error: rec.Error}}
	f := in.Model.Fixtures[rec.Fixture]
	for _, task := range in.tasksInScope(in.Model.ProfileTasks(in.Profile, f)) {
		if !in.Model.Tasks[task].AtStage(rec.Stage) {
			continue
		}
		q := in.queries[task]
		comp := in.Model.Tasks[task].Compartment
		ti := TaskInspection{Task: task, Compartment: comp, Policy: q.Package(), Files: q.Files(),
			Outcome: rec.State, Diagnostics: []map[string]any{}}
		if rec.State != "captured" {
			out.Tasks = append(out.Tasks, ti)
			continue
		}
		b, ok := in.inputs[inputKey{rec.Fixture, task, rec.Stage}]
		if !ok {
			return Inspection{}, fmt.Errorf("%s:%d: task %s has no input at %s (outside the run's scope)", rec.File, rec.Line, task, rec.Stage)
		}
		view, err := in.observe(rec.Fixture, rec.Lane, rec.Stage, comp, in.reads[task], rec.Carrier, rec.carrierBytes)
		if err != nil {
			return Inspection{}, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
		}
		val, err := view.value()
		if err != nil {
			return Inspection{}, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
		}
		input := withObserved(b.term, pos, val)
		if ti.Input, err = ast.JSON(input); err != nil {
			return Inspection{}, fmt.Errorf("%s:%d: task %s: the input as JSON: %w", rec.File, rec.Line, task, err)
		}
		v, err := q.Eval(ctx, input)
		if err == nil {
			err = in.checkVerdict(task, v)
		}
		if err != nil {
			return Inspection{}, instrumentErr(fmt.Errorf("%s:%d: task %s (%s): %w", rec.File, rec.Line, task, strings.Join(q.Files(), ", "), err))
		}
		ti.Outcome, ti.Readout = result.Unmet, v.Readout
		if v.Pass() {
			ti.Outcome = result.Pass
		} else {
			ti.Diagnostics = v.Diagnostics
		}
		out.Tasks = append(out.Tasks, ti)
	}
	return out, nil
}

// FindRecords reads the records the run would read and returns those match selects, in reading
// order. A file given as path that is not one of the run's record files is read too, as a record
// file of its own (a record can be inspected wherever it is).
func (in *Instrument) FindRecords(ctx context.Context, path string, match func(*Record) bool) ([]*Record, error) {
	files, err := in.opts.RecordFiles()
	if err != nil {
		return nil, err
	}
	if path != "" {
		want := filepath.Clean(path)
		var sel []inputs.RecordFile
		for _, f := range files {
			if filepath.Clean(f.Display()) == want {
				sel = append(sel, f)
			}
		}
		if len(sel) == 0 {
			sel = []inputs.RecordFile{{Dir: inputs.UserDir(filepath.Dir(path)), Path: filepath.Base(path)}}
		}
		files = sel
	}
	var out []*Record
	err = in.ReadRecords(ctx, files, func(r *Record) error {
		if match(r) {
			out = append(out, r)
		}
		return nil
	})
	return out, err
}
