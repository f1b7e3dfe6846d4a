package report

import (
	"fmt"
	"io"
	"strings"
)

// markdownViolations bounds the violations the markdown gate lists: a pull-request comment or a
// job summary stays readable, and the JSON report lists them all.
const markdownViolations = 50

// writeMarkdownGate writes the gate: its verdict, the requirements out of the run's scope, and a
// table of the violations, each with the record it comes from and the requirement it breaks.
func writeMarkdownGate(w io.Writer, r *Report) {
	g := r.Gate
	gated := g.Gated()
	fmt.Fprintln(w)
	switch g.Verdict {
	case VerdictSatisfied:
		fmt.Fprintf(w, "**Gate:** profile `%s` satisfied (%s, %d bindings gated).\n", r.Profile, plural(len(g.Requirements), "requirement"), gated)
	case VerdictUnmet:
		fmt.Fprintf(w, "**Gate:** profile `%s` **NOT satisfied** (%s, %d bindings gated).\n", r.Profile, plural(len(g.Violations), "violation"), gated)
	case VerdictSelectedNothing:
		fmt.Fprintf(w, "**Gate:** profile `%s` selected nothing: no verdict.\n", r.Profile)
		for _, q := range g.Requirements {
			if q.Unmatched != "" {
				fmt.Fprintf(w, "\n- `%s`: %s\n", q.Name, mdCell(q.Unmatched))
			}
		}
		return
	case VerdictInstrumentFailed:
		fmt.Fprintf(w, "**Gate:** the instrument failed (%d unstable bindings): no verdict for profile `%s`.\n", r.Summary.Unstable, r.Profile)
	}
	if scope := r.ScopeText(); scope != "" {
		for _, q := range g.Requirements {
			if q.OutOfScope {
				fmt.Fprintf(w, "\n`%s` is out of the run's scope (%s).\n", q.Name, mdCell(scope))
			}
		}
	}
	if len(g.Violations) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| fixture | lane | version | configuration | stage | task | outcome | atoms | record | requirement |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for i, v := range g.Violations {
		if i == markdownViolations {
			fmt.Fprintf(w, "\n… and %d more violations (`--format json` lists them all).\n", len(g.Violations)-markdownViolations)
			break
		}
		record := ""
		if at := RecordAt(v.Records); at != "" {
			record = "`" + at + "`"
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage, v.Task,
			v.Outcome, codeList(Atoms(v.Diagnostics)), record, mdCell(oneLine(v.Requirement)))
	}
}

// mdCell keeps text inside one markdown table cell: a '|' would end it.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
