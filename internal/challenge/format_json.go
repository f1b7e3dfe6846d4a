package challenge

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// JSON writes the challenge report as JSON (challengeVersion 1; --format json).
type JSON struct{}

// Output implements Outputter.
func (JSON) Output(w io.Writer, r *Report) error { return r.writeJSON(w) }

func tallyJSON(t Tally) map[string]any {
	return map[string]any{"faults": t.Faults, "detected": t.Detected, "controls": t.Controls,
		"accepted": t.Accepted, "misclassified": t.Misclassified()}
}

// JSON returns the report as a JSON tree (challengeVersion 1).
func (r *Report) JSON() map[string]any {
	summary := map[string]any{}
	for cl, t := range Tallies(r.Cases) {
		summary[cl] = tallyJSON(t)
	}
	var ops []any
	for _, s := range r.Score() {
		row := map[string]any{"operator": s.Operator, "kind": s.Kind, "cases": s.Cases}
		for _, cl := range Classifiers {
			row[cl] = s.Verdicts[cl]
		}
		if len(s.Blind) > 0 {
			row["misclassified"] = s.Blind
		}
		ops = append(ops, row)
	}
	cases := []any{}
	mis := []any{}
	for _, c := range r.Cases {
		var tasks []any
		for _, t := range c.Tasks {
			ds := make([]any, len(t.Diagnostics))
			for i, d := range t.Diagnostics {
				ds[i] = d
			}
			tasks = append(tasks, map[string]any{"task": t.Task, "outcome": t.Outcome, "diagnostics": ds})
		}
		row := map[string]any{
			"id": c.ID, "file": c.File, "operator": c.Operator, "kind": c.Kind, "fixture": c.Fixture,
			"lane": c.Lane, "stage": c.Stage, "task": c.Task, "compartment": c.Compartment,
			"description": c.Description,
			"expected":    map[string]any{"outcome": c.Expected.Outcome, "tasks": c.Expected.Tasks},
			"oracle":      c.Oracle, "correct": c.Correct, "tasks": tasks,
			"schemaOnly": c.SchemaOnly, "recursiveSearch": c.RecursiveSearch,
		}
		if len(c.Missing) > 0 {
			sort.Strings(c.Missing)
			row["recursiveSearchMissing"] = c.Missing
		}
		cases = append(cases, row)
		if !c.Correct {
			mis = append(mis, c.ID)
		}
	}
	return map[string]any{"challengeVersion": Version, "suite": r.Suite, "profile": r.Profile,
		"summary": summary, "operators": ops, "cases": cases, "misclassified": mis}
}

func (r *Report) writeJSON(w io.Writer) error {
	b, err := strictjson.Marshal(jsonable(r.JSON()))
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// jsonable converts the Go values of a report tree ([]string, []any of maps, bools, ints) into
// the types strictjson.Marshal accepts.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case []int:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case nil:
		return nil
	}
	return v
}
