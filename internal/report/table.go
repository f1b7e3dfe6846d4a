package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// Table writes one row per binding that did not pass or that a requirement gates (every binding
// with All): the gate's result for it (FAIL, ok, not gated), its position, task, outcome, the
// record it comes from, and the atoms its diagnostics name. Columns are aligned in terminal
// columns, measured as the cells are written (textWidth: a CJK character or an emoji takes 2, a
// mark spelled in ASCII the width of its spelling); rows are never cut, so the table stays a
// table for grep and awk. Every cell is written through escape.Terminal (a cell holds no line
// break, tab or control), the table through an escape.LogWriter.
type Table struct {
	All   bool
	Style Style
}

// Output implements Outputter. The table is written as it is made: one pass over the results
// measures the columns, a second writes the rows, a few at a time (a table of a million bindings
// had been held whole, as rows and then as text, before it was written).
func (t Table) Output(w io.Writer, r *result.Report) error {
	violated := violatedBindings(r)
	header := []string{"GATE", "FIXTURE", "LANE", "VERSION", "CONFIGURATION", "STAGE", "TASK", "OUTCOME", "RECORD", "ATOMS"}
	if r.Failure != nil {
		return writeTableFailure(w, r, header)
	}
	row := func(res *result.Result) []string { // nil for a binding the table leaves out
		if !t.All && !res.Required && noFinding(res.Outcome) {
			return nil
		}
		gate := "-"
		switch {
		case violated[bindingID(res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task)]:
			gate = "FAIL"
		case res.Required:
			gate = "ok"
		}
		return terms([]string{gate, res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Task,
			res.Outcome, RecordAt(res.Records), strings.Join(Atoms(res.Diagnostics), ", ")})
	}
	widths := make([]int, len(header))
	measure := func(row []string) {
		for i, c := range row[:len(row)-1] {
			widths[i] = max(widths[i], textWidth(c, t.Style.ASCII))
		}
	}
	measure(header)
	for _, res := range r.Each() {
		if cells := row(res); cells != nil {
			measure(cells)
		}
	}
	// Rows are records for grep and for tools, not for a narrow terminal: never cut.
	style := Style{ASCII: t.Style.ASCII, Width: 1 << 20}
	return writeLog(w, func(w io.Writer) error {
		var b strings.Builder
		line := func(row []string) {
			for i, c := range row {
				b.WriteString(c)
				if i < len(row)-1 {
					b.WriteString(strings.Repeat(" ", widths[i]-textWidth(c, t.Style.ASCII)+2))
				}
			}
			b.WriteString("\n")
		}
		flush := func() error { // whole lines: written as the whole text would be
			err := style.writeLines(w, b.String())
			b.Reset()
			return err
		}
		line(header)
		for _, res := range r.Each() {
			cells := row(res)
			if cells == nil {
				continue
			}
			line(cells)
			if b.Len() >= 64<<10 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		fmt.Fprintf(&b, "gate: profile %s %s\n", term(r.Profile), r.VerdictText())
		return flush()
	})
}
