package compare

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Markdown writes the report's tables for a pull request or a README: matches per decoder policy
// by lane × configuration × stage, totals by readout kind, the configuration comparison and the
// null-policy sensitivity. Every single reading is in the text and JSON formats.
type Markdown struct{}

// Output implements Outputter.
func (Markdown) Output(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	ns := r.NullPolicies
	fmt.Fprintf(bw, "Decoder policies %s on %d captured target readings (%d unstable); null policies `%s` vs `%s`.\n",
		code(decoderNames(r)), r.Summary.Captured, r.Summary.Unstable, ns.Base.Profile, ns.Other.Profile)
	if lanes := reconstructedLanes(r); len(lanes) > 0 {
		fmt.Fprintf(bw, "\nEvery table and total below includes the reconstructed lanes %s: carriers derived from the framework's source, not captured by running it.\n", code(lanes))
	}

	fmt.Fprintf(bw, "\nMatches per decoder policy: matches out of the captured target readings; `–` when none was captured.\n")
	for _, d := range decoderNames(r) {
		fmt.Fprintf(bw, "\n`%s`\n\n| lane | version | configuration | %s |\n|---|---|---|%s\n", d, strings.Join(stages, " | "), strings.Repeat("---|", len(stages)))
		for _, row := range matchRows(r, d) {
			fmt.Fprintf(bw, "| `%s` | %s | %s | %s |\n", row.lane, row.version, row.configuration, strings.Join(row.cells, " | "))
		}
	}

	fmt.Fprintf(bw, "\nTotals by readout kind (framework lanes; control lanes left out).\n\n| decoder | %s | total |\n|---|%s---|\n", strings.Join(Kinds, " | "), strings.Repeat("---|", len(Kinds)))
	for _, t := range r.Totals {
		cells := make([]string, len(Kinds))
		for i, k := range Kinds {
			cells[i] = fmt.Sprint(t.Kinds[k])
		}
		fmt.Fprintf(bw, "| `%s` | %s | %d |\n", t.Decoder, strings.Join(cells, " | "), t.Total)
	}

	for _, c := range r.Configurations {
		fmt.Fprintf(bw, "\nConfiguration `%s` %s: %s → %s.\n\n| fixture | what | stages | before | after | atoms (after, or before when fixed) |\n|---|---|---|---|---|---|\n",
			c.Lane, c.LaneVersion, c.From, c.To)
		for _, g := range foldTaskChanges(c.Tasks) {
			fmt.Fprintf(bw, "| %s | %s (%s) | %s | %s | %s | %s |\n", g.fixture, g.task, g.role, strings.Join(g.stages, " "), g.before, g.after, code(g.atoms))
		}
		for _, g := range foldDecoderChanges(c.Decoders) {
			fmt.Fprintf(bw, "| %s | `%s` %s | %s | %s | %s | |\n", g.fixture, g.decoder, g.target, strings.Join(g.stages, " "), g.before, g.after)
		}
	}

	fmt.Fprintf(bw, "\nNull-policy sensitivity, `%s` vs `%s` (tasks with optional atoms: %s): %d bindings change.\n",
		ns.Base.Profile, ns.Other.Profile, strings.Join(ns.Tasks, ", "), len(ns.Changes))
	if len(ns.Changes) > 0 {
		fmt.Fprintf(bw, "\n| fixture | task | lane | version | configuration | stage | %s | %s | atoms |\n|---|---|---|---|---|---|---|---|---|\n", ns.Base.Profile, ns.Other.Profile)
		for _, c := range ns.Changes {
			fmt.Fprintf(bw, "| %s | %s | `%s` | %s | %s | %s | %s | %s | %s |\n", c.Fixture, c.Task, c.Lane, c.LaneVersion, c.Configuration, c.Stage, c.BaseOutcome, c.OtherOutcome, code(c.Atoms))
		}
	}
	fmt.Fprintf(bw, "\n| | `%s` | `%s` |\n|---|---|---|\n", ns.Base.Profile, ns.Other.Profile)
	for _, row := range nullRows(ns) {
		fmt.Fprintf(bw, "| %s | %s | %s |\n", row[0], row[1], row[2])
	}
	return bw.Flush()
}

func code(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "`" + x + "`"
	}
	return strings.Join(out, ", ")
}
