package challenge

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/report"
)

// Text writes the challenge report for a terminal or a CI log (--format text).
type Text struct{}

// Output implements Outputter.
func (Text) Output(w io.Writer, r *Report) error { return r.writeText(w) }

var classifierNames = map[string]string{"oracle": "oracle", "schemaOnly": "schema-only", "recursiveSearch": "recursive search"}

// term is escape.Terminal: a string of the data as a terminal or a CI log may show it.
func term(s string) string { return escape.Terminal(s) }

// writeText writes the report for a terminal or a CI log: every string of the suite (case ids,
// files, descriptions, diagnostics) escape.Terminal where it meets the text, the text through an
// escape.LogWriter, so that no line starts a CI runner's command.
func (r *Report) writeText(w io.Writer) error {
	var b bytes.Buffer
	tallies := Tallies(r.Cases)
	o := tallies["oracle"]
	fmt.Fprintf(&b, "Challenge suite %s (profile %s): %d cases, %d faults, %d controls.\n\n", term(r.Suite), term(r.Profile), len(r.Cases), o.Faults, o.Controls)
	rows := [][]string{{"classifier", "faults detected", "controls accepted", "misclassified"}}
	for _, cl := range Classifiers {
		t := tallies[cl]
		rows = append(rows, []string{classifierNames[cl], fmt.Sprintf("%d/%d", t.Detected, t.Faults), fmt.Sprintf("%d/%d", t.Accepted, t.Controls),
			fmt.Sprint(t.Misclassified())})
	}
	writeTable(&b, rows)
	fmt.Fprintf(&b, "\nMutation score by operator (a fault operator the oracle is blind to is a distinction the contract set cannot make):\n\n")
	rows = [][]string{{"operator", "kind", "cases", "oracle", "schema-only", "recursive search"}}
	for _, s := range r.Score() {
		t := s.Tallies["oracle"]
		ok, total := t.Detected, t.Faults
		if s.Kind == mutate.Control {
			ok, total = t.Accepted, t.Controls
		}
		rows = append(rows, []string{term(s.Operator), term(s.Kind), fmt.Sprint(s.Cases), fmt.Sprintf("%s (%d/%d)", term(s.Verdicts["oracle"]), ok, total),
			term(s.Verdicts["schemaOnly"]), term(s.Verdicts["recursiveSearch"])})
	}
	writeTable(&b, rows)
	mis := r.Misclassified()
	if len(mis) == 0 {
		fmt.Fprintf(&b, "\nThe oracle classified every case as expected: every fault detected, every control accepted.\n")
	} else {
		fmt.Fprintf(&b, "\nMisclassified by the oracle: %d\n", len(mis))
		for _, c := range mis {
			fmt.Fprintf(&b, "\n%s (%s %s on %s %s %s; %s)\n", term(c.ID), term(c.Kind), term(c.Operator), term(c.Fixture), term(c.Lane), term(c.Stage), term(c.File))
			fmt.Fprintf(&b, "  %s\n", term(c.Description))
			if c.Kind == mutate.Fault {
				fmt.Fprintf(&b, "  expected %s unmet; the oracle %s it:", term(strings.Join(c.Expected.Tasks, ", ")), term(c.Oracle))
			} else {
				fmt.Fprintf(&b, "  expected every task to pass; the oracle %s it:", term(c.Oracle))
			}
			for _, t := range c.Tasks {
				fmt.Fprintf(&b, " %s %s", term(t.Task), term(t.Outcome))
			}
			b.WriteString("\n")
			for _, t := range c.Tasks {
				for _, d := range t.Diagnostics {
					fmt.Fprintf(&b, "    %s %s\n", term(t.Task), term(diagnostic(d)))
				}
			}
		}
	}
	return report.WriteLog(w, b.String())
}

func diagnostic(d map[string]any) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%v %v", d["atom"], d["kind"])
	if p, ok := d["path"]; ok && p != "" {
		fmt.Fprintf(&sb, " at %v", p)
	}
	if blk, ok := d["block"]; ok {
		fmt.Fprintf(&sb, " (block %v)", blk)
	}
	for _, k := range []string{"expected", "observed"} {
		if v, ok := d[k]; ok {
			fmt.Fprintf(&sb, "; %s %s", k, short(v))
		}
	}
	return sb.String()
}

// short is a diagnostic's value in 80 terminal columns, the last three dots.
func short(v any) string { return report.JSONText(v, 80, "...") }

// writeTable writes rows as a table: each cell but a row's last padded with spaces to its
// column's widest cell and two more. Cells are measured in terminal columns (escape.Width: a
// CJK character or an emoji takes 2, a combining mark none), where text/tabwriter counts runes
// and would leave a row holding an operator named in CJK out of line.
func writeTable(b *bytes.Buffer, rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, c := range row[:len(row)-1] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], escape.Width(c))
		}
	}
	for _, row := range rows {
		for i, c := range row {
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-escape.Width(c)+2))
			}
		}
		b.WriteByte('\n')
	}
}
