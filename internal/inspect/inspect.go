// Package inspect is the body of `contractcheck inspect fixture` and `inspect record`: a
// fixture's catalogue entry as a run uses it (Fixture), and one observation record as its tasks'
// policies read it, each policy input exactly as the policy is given it (Record), both through the
// check instrument (internal/instrument). cmd/contractcheck/inspect.go binds the flags and holds
// the formats; `inspect traffic` reads a probe's traffic (internal/probe).
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package inspect

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
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

// Record evaluates every task of one record as the instrument's Evaluate does, without the
// verdict memo, and keeps each task's policy input (instrument.PolicyInput). A record that was not
// captured gives its state as every task's outcome and no input.
func Record(ctx context.Context, in *instrument.Instrument, rec *instrument.Record) (Inspection, error) {
	pos := rec.Position()
	out := Inspection{Record: RecordRef{File: rec.File, Line: rec.Line, Position: pos,
		Repetition: rec.Repetition, State: rec.State, Origin: rec.Origin, Error: rec.Error}}
	for _, task := range in.Tasks(rec.Fixture, rec.Stage) {
		q := in.Query(task)
		comp := in.Model.Tasks[task].Compartment
		ti := TaskInspection{Task: task, Compartment: comp, Policy: q.Package(), Files: q.Files(),
			Outcome: rec.State, Diagnostics: []map[string]any{}}
		if rec.State != "captured" {
			out.Tasks = append(out.Tasks, ti)
			continue
		}
		input, err := in.PolicyInput(rec, task)
		if err != nil {
			return Inspection{}, err
		}
		if ti.Input, err = ast.JSON(input); err != nil {
			return Inspection{}, fmt.Errorf("%s:%d: task %s: the input as JSON: %w", rec.File, rec.Line, task, err)
		}
		v, err := q.Eval(ctx, input)
		if err == nil {
			err = in.CheckVerdict(task, v)
		}
		if err != nil {
			return Inspection{}, result.AsInstrument(fmt.Errorf("%s:%d: task %s (%s): %w", rec.File, rec.Line, task, strings.Join(q.Files(), ", "), err))
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

// FindRecords reads the records the run of in would read and returns those match selects, in reading
// order. A file given as path that is not one of the run's record files is read too, as a record
// file of its own (a record can be inspected wherever it is).
func FindRecords(ctx context.Context, in *instrument.Instrument, path string, match func(*instrument.Record) bool) ([]*instrument.Record, error) {
	files, err := in.Options().RecordFiles()
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
	var out []*instrument.Record
	err = in.ReadRecords(ctx, files, func(r *instrument.Record) error {
		if match(r) {
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// Entry is a fixture's catalogue entry as a run uses it, and where it came from: what `contractcheck
// inspect fixture ID` prints.
type Entry struct {
	ID string `json:"id"`
	// Origin is "catalogue" (a CUE entry, at At) or "derived" (from the source file, At).
	Origin      string   `json:"origin"`
	At          string   `json:"at"`
	Suite       string   `json:"suite"`
	Family      string   `json:"family"`
	Revision    string   `json:"revision"`
	Tasks       []string `json:"tasks"`
	Targets     []string `json:"targets"`
	PrivateMeta []string `json:"privateMeta,omitempty"`
	// Holds is what a derived entry's source holds (the order its family was chosen by).
	Holds []string `json:"holds,omitempty"`
	Doc   string   `json:"doc"`
	// Binding names the source binding the source is read through, its revision's
	// (revisions."<revision>".source), and BindingAt where it is written ("file:line:col", the
	// latest layer's, or "").
	Binding   string `json:"binding"`
	BindingAt string `json:"bindingAt"`
	// Source is the source file in use and Sha256 its bytes' hash, which records name.
	Source string `json:"source"`
	Sha256 string `json:"sha256"`
}

// Fixture returns fixture id's entry as the run of in uses it: its tasks resolved (a task's appliesTo
// included), for a derived entry what its source holds. An unknown id is an input error that names
// the fixtures there are.
func Fixture(in *instrument.Instrument, id string) (Entry, error) {
	f, ok := in.Model.Fixtures[id]
	if !ok {
		ids := contract.SortedKeys(in.Model.Fixtures)
		return Entry{}, result.AsInput(fmt.Errorf("no fixture %q: the catalogue and the fixtures layers have %d (%s)", id, len(ids), strings.Join(ids, ", ")))
	}
	e := Entry{ID: id, Origin: "catalogue", At: f.Pos, Suite: f.Suite, Family: f.Family, Revision: f.Revision,
		Tasks: f.Tasks, Targets: f.Targets, PrivateMeta: f.PrivateMeta, Holds: f.Holds, Doc: f.Doc,
		Binding: contract.SourceName(f.Revision), BindingAt: in.Model.Revisions[f.Revision].SourcePos}
	if f.Derived {
		e.Origin = "derived"
	}
	if s := in.Sources[id]; s != nil {
		e.Source, e.Sha256 = s.File, s.Sha256
	}
	return e, nil
}
