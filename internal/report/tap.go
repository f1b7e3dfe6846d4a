package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TAP writes the gate as TAP version 14: one test point per binding a requirement gates ("not ok"
// when a requirement does not allow its outcome, with a YAML block of the outcome, the diagnostics
// and the record), comments counting the bindings no requirement gates, and the verdict. A gate
// that selected nothing has a failing test point saying so. A test point's description is
// escape.TAPDescription of the binding, each value of its YAML block escape.YAMLString, a
// comment's data escape.Terminal: no string of the data can end a line, start a directive or
// break the block; the whole goes through an escape.LogWriter.
type TAP struct{}

// Output implements Outputter.
func (TAP) Output(w io.Writer, r *result.Report) error {
	return writeLog(w, func(w io.Writer) error { return writeTAP(w, r) })
}

// writeTAP writes the stream as it is made: the plan, which comes first, is counted in a pass of
// its own over the results (a TAP stream of a million bindings had been held whole before it was
// written).
func writeTAP(w io.Writer, r *result.Report) error {
	if r.Failure != nil {
		return writeTAPFailure(w, r)
	}
	violated := violatedBindings(r)
	n, unrequired := 0, 0
	for _, res := range r.Each() {
		switch {
		case res.Required:
			n++
		case !noFinding(res.Outcome):
			unrequired++
		}
	}
	for _, q := range r.Gate.Requirements {
		if q.Unmatched != "" {
			n++
		}
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "TAP version 14\n1..%d\n", n)
	n = 0
	point := func(ok bool, desc string, yaml []string) {
		n++
		status := "ok"
		if !ok {
			status = "not ok"
		}
		fmt.Fprintf(b, "%s %d - %s\n", status, n, escape.TAPDescription(desc))
		if len(yaml) > 0 {
			b.WriteString("  ---\n")
			for _, l := range yaml {
				b.WriteString("  " + l + "\n")
			}
			b.WriteString("  ...\n")
		}
	}
	for _, res := range r.Each() {
		if !res.Required {
			continue
		}
		if _, err := b.Write(nil); err != nil {
			return err // a write failed (the memory budget was reached): the rest is not made
		}
		id := bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)
		if !violated[id] {
			point(true, id, nil)
			continue
		}
		yaml := []string{"outcome: " + yamlString(res.Outcome), "requiredBy: " + yamlString(strings.Join(res.RequiredBy, ", "))}
		if at := RecordAt(res.Records); at != "" {
			yaml = append(yaml, "at: "+yamlString(at))
		}
		if len(res.Diagnostics) > 0 {
			yaml = append(yaml, "diagnostics:")
			for _, d := range res.Diagnostics {
				yaml = append(yaml, "  - "+yamlString(FormatDiagnostic(d)))
			}
		}
		if res.Error != "" {
			yaml = append(yaml, "error: "+yamlString(oneLine(res.Error)))
		}
		point(false, id, yaml)
	}
	for _, q := range r.Gate.Requirements {
		if q.Unmatched != "" {
			point(false, q.Name+" selects a binding", []string{"unmatched: " + yamlString(q.Unmatched)})
		}
	}
	fmt.Fprintf(b, "# %d bindings did not pass but no requirement gates them (--format json lists them)\n", unrequired)
	fmt.Fprintf(b, "# gate: profile %s %s\n", term(r.Profile), r.VerdictText())
	return b.Flush()
}

// yamlString quotes a string for the YAML block: escape.YAMLString, a double-quoted scalar on
// one line that reads back as the string.
func yamlString(s string) string { return escape.YAMLString(s) }
