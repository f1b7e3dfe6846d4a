package check

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// RunWithViews is Run that also returns the views the HTML report shows beside the report
// (result.Views): the instrument's canonical views and binding rules, and the records read again
// on demand.
func RunWithViews(ctx context.Context, opts inputs.Options) (*result.Report, result.Views, error) {
	return runWithViews(ctx, opts, "")
}

// runWithViews is RunWithViews, writing the census to censusOut unless it is empty.
func runWithViews(ctx context.Context, opts inputs.Options, censusOut string) (*result.Report, result.Views, error) {
	r, in, files, err := runRecords(ctx, opts, censusOut)
	if err != nil {
		return nil, nil, err
	}
	return r, Views(ctx, in, files), nil
}

// Views returns the result.Views of a check with in over files: the source view of each fixture, the
// observed view of each binding (its first record's carrier through the compartment its task
// reads, as Evaluate reads it) and each lane stage's compartment binding. The records are read
// once, on the first observed view asked for, and validated as Check validates them.
func Views(ctx context.Context, in *instrument.Instrument, files []inputs.RecordFile) result.Views {
	return &views{in: in, ctx: ctx, files: files}
}

type views struct {
	in    *instrument.Instrument
	ctx   context.Context
	files []inputs.RecordFile

	once     sync.Once
	carriers map[recordAt]any // the captured records' carriers by file and line
	err      error
}

type recordAt struct {
	file string
	line int
}

// SourceView implements result.Views.
func (v *views) SourceView(fixture string) (any, error) {
	if _, ok := v.in.Sources[fixture]; !ok {
		return nil, fmt.Errorf("no source for fixture %s", fixture)
	}
	return v.in.SourceView(fixture), nil
}

// ObservedView implements result.Views: the view the policy read at the binding's first record.
func (v *views) ObservedView(r *result.Result) (any, bool, error) {
	if len(r.Records) == 0 || (r.Outcome != result.Pass && r.Outcome != result.Unmet && r.Outcome != result.Unstable) {
		return nil, false, nil
	}
	v.once.Do(v.read)
	if v.err != nil {
		return nil, false, v.err
	}
	task, ok := v.in.Model.Tasks[r.Task]
	if !ok {
		return nil, false, fmt.Errorf("unknown task %s", r.Task)
	}
	rec := r.Records[0]
	carrier, ok := v.carriers[recordAt{rec.File, rec.Line}]
	if !ok {
		return nil, false, fmt.Errorf("%s:%d: no captured record there (the records changed since the check?)", rec.File, rec.Line)
	}
	return v.in.ViewOf(r.Fixture, r.Lane, r.Stage, task.Compartment, carrier), true, nil
}

// read indexes the carriers of every captured record.
func (v *views) read() {
	v.carriers = map[recordAt]any{}
	v.err = v.in.ReadRecords(v.ctx, v.files, func(rec *instrument.Record) error {
		if rec.State == "captured" {
			v.carriers[recordAt{rec.File, rec.Line}] = rec.Carrier
		}
		return nil
	})
}

// Binding implements result.Views: the stage's compartment binding, without its basis and doc
// (given apart), and why a compartment is unbound.
func (v *views) Binding(lane, stage, compartment string) (result.CompartmentBinding, bool) {
	l, ok := v.in.Model.Lanes[lane]
	if !ok {
		return result.CompartmentBinding{}, false
	}
	sd, ok := l.Stages[stage]
	if !ok {
		return result.CompartmentBinding{}, false
	}
	b := result.CompartmentBinding{Exposure: sd.Exposure, SharedWith: sd.SharedWith, Unbound: sd.Unbound[compartment]}
	docs := []string{strings.TrimSpace(sd.Doc)}
	if c, bound := sd.Compartments[compartment]; bound {
		docs = append(docs, strings.TrimSpace(c.Doc))
		b.Rule = ruleJSON(c)
		for _, x := range c.Basis {
			b.Basis = append(b.Basis, result.Basis{Rule: x.Rule, File: x.File, Function: x.Function, Version: x.Version})
		}
	}
	b.Doc = strings.TrimSpace(strings.Join(docs, " "))
	return b, true
}

// ruleJSON is a compartment binding as a JSON tree, its empty members, doc and basis left out.
func ruleJSON(c contract.Compartment) any {
	data, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	var tree map[string]any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil
	}
	for k, val := range tree {
		if s, ok := val.(string); ok && s == "" || val == nil {
			delete(tree, k)
		}
	}
	delete(tree, "doc")
	delete(tree, "basis")
	return tree
}
