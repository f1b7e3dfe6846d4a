package report

import (
	"fmt"
	"io"
	"strings"
)

// visibilityRow is one lane, version and configuration of the visibility readout: its groups in
// stage order.
type visibilityRow struct {
	label  string // lane version configuration, escaped for the sink
	groups []Visibility
}

// visibilityRows groups the readout by lane, version and configuration, keeping its order; name
// escapes each name for the sink.
func visibilityRows(vs []Visibility, name func(string) string) []visibilityRow {
	var rows []visibilityRow
	for _, v := range vs {
		label := name(v.Lane) + " " + name(v.Version) + " " + name(v.Configuration)
		if n := len(rows); n > 0 && rows[n-1].label == label {
			rows[n-1].groups = append(rows[n-1].groups, v)
			continue
		}
		rows = append(rows, visibilityRow{label: label, groups: []Visibility{v}})
	}
	return rows
}

// writeVisibilityText writes one line per lane, version and configuration: each stage's category
// (`openai-agents 0.22.0 default  M3 content-only  H4 content-only`), the label column aligned and
// a stage that does not fit the width on a continuation line.
func writeVisibilityText(w io.Writer, vs []Visibility, width int) {
	if len(vs) == 0 {
		return
	}
	rows := visibilityRows(vs, term)
	col := 0
	for _, r := range rows {
		col = max(col, len([]rune(r.label)))
	}
	col = min(col, max(20, width/2))
	fmt.Fprintf(w, "\nwhat reaches the model (visibility; docs/visibility.md):\n")
	for _, r := range rows {
		line := "  " + r.label
		if pad := col - len([]rune(r.label)); pad > 0 {
			line += strings.Repeat(" ", pad)
		}
		indent := strings.Repeat(" ", 2+col)
		first := true
		for _, v := range r.groups {
			cell := term(v.Stage) + " " + term(v.Summary())
			if !first && len([]rune(line))+2+len([]rune(cell)) > width {
				fmt.Fprintln(w, line)
				line = indent
			}
			line += "  " + cell
			first = false
		}
		fmt.Fprintln(w, line)
	}
}
