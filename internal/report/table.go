package report

import (
	"fmt"
	"io"
	"strings"
)

// Table writes one row per binding that did not pass or that a requirement gates (every binding
// with All): the gate's result for it (FAIL, ok, not gated), its position, task, outcome, the
// record it comes from, and the atoms its diagnostics name. Columns are aligned; rows are never
// cut, so the table stays a table for grep and awk. Every cell is written through
// escape.Terminal (a cell holds no line break, tab or control), the table through an
// escape.LogWriter.
type Table struct {
	All   bool
	Style Style
}

// Output implements Outputter.
func (t Table) Output(w io.Writer, r *Report) error {
	violated := violatedBindings(r)
	header := []string{"GATE", "FIXTURE", "LANE", "VERSION", "CONFIGURATION", "STAGE", "TASK", "OUTCOME", "RECORD", "ATOMS"}
	rows := [][]string{header}
	for _, res := range r.Each() {
		if !t.All && !res.Required && noFinding(res.Outcome) {
			continue
		}
		gate := "-"
		switch {
		case violated[bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)]:
			gate = "FAIL"
		case res.Required:
			gate = "ok"
		}
		rows = append(rows, terms([]string{gate, res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task,
			res.Outcome, RecordAt(res.Records), strings.Join(Atoms(res.Diagnostics), ", ")}))
	}
	widths := make([]int, len(header))
	for _, row := range rows {
		for i, c := range row[:len(row)-1] {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			if i == len(row)-1 {
				b.WriteString(c)
				continue
			}
			fmt.Fprintf(&b, "%-*s  ", widths[i], c)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "gate: profile %s %s\n", term(r.Profile), verdictText(r))
	// Rows are records for grep and for tools, not for a narrow terminal: never cut.
	return Style{ASCII: t.Style.ASCII, Width: 1 << 20}.write(w, b.String())
}
