package challenge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Formats are the challenge report formats.
var Formats = []string{"text", "json"}

// Write writes the report in a format.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text", "":
		return r.writeText(w)
	case "json":
		return r.writeJSON(w)
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))
}

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
	lw := escape.NewLogWriter(w)
	if _, err := lw.Write(b.Bytes()); err != nil {
		return err
	}
	return lw.Flush()
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

func short(v any) string {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	// 80 terminal columns, the last three dots (escape.Cut: between grapheme clusters, a JSON
	// escape such as \u00e9 kept whole).
	return escape.Cut(string(b), 80, "...")
}

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
