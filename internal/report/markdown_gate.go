package report

import (
	"fmt"
	"io"

	"github.com/contractcheck/contractcheck/internal/result"
)

// markdownViolations bounds the violations the markdown gate lists: a pull-request comment or a
// job summary stays readable, and the JSON report lists them all.
const markdownViolations = 50

// writeMarkdownGate writes the gate: its verdict, the requirements out of the run's scope, the
// groups its visibility.reached clause found nothing served in, and a table of the violations,
// each with the record it comes from and the requirement it breaks.
func writeMarkdownGate(w io.Writer, r *result.Report) {
	g := r.Gate
	gated := g.Gated()
	profile := mdCode(r.Profile)
	fmt.Fprintln(w)
	switch g.Verdict {
	case result.VerdictSatisfied:
		fmt.Fprintf(w, "**Gate:** profile %s satisfied (%s, %d bindings gated).\n", profile, plural(len(g.Requirements), "requirement"), gated)
	case result.VerdictUnmet:
		fmt.Fprintf(w, "**Gate:** profile %s **NOT satisfied** (%s, %d bindings gated).\n", profile, plural(len(g.Violations), "violation"), gated)
	case result.VerdictSelectedNothing:
		fmt.Fprintf(w, "**Gate:** profile %s selected nothing: no verdict.\n", profile)
		for _, q := range g.Requirements {
			if q.Unmatched != "" {
				fmt.Fprintf(w, "\n- %s: %s\n", mdCode(q.Name), md(q.Unmatched))
			}
		}
		return
	case result.VerdictInstrumentFailed:
		fmt.Fprintf(w, "**Gate:** the instrument failed (%d unstable bindings): no verdict for profile %s.\n", r.Summary.Unstable, profile)
	case result.VerdictIncomplete:
		what := ""
		if r.Lacking != nil {
			what = ": " + md(r.Lacking.Summary())
		}
		fmt.Fprintf(w, "**Gate:** no verdict for profile %s over an incomplete census%s.\n", profile, what)
	}
	if scope := r.ScopeText(); scope != "" {
		for _, q := range g.Requirements {
			if q.OutOfScope {
				fmt.Fprintf(w, "\n%s is out of the run's scope (%s).\n", mdCode(q.Name), md(scope))
			}
		}
	}
	for _, q := range g.Reached {
		for _, u := range q.Unreached {
			at := ""
			if len(u.Records) > 0 {
				at = " (record " + mdCode(u.Records[0]) + ")"
			}
			fmt.Fprintf(w, "\n- %s %s %s %s: nothing of what was served reached the model%s; required by %s (docs/visibility.md).\n",
				mdCode(u.Lane), md(u.Version), md(u.Configuration), md(q.Stage), at, mdCode(q.Name))
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
			record = mdCode(at)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", md(v.Fixture), mdCode(v.Lane), md(v.LaneVersion), md(v.Configuration), md(v.Stage), md(v.Task),
			v.Outcome, CodeList(Atoms(v.Diagnostics)), record, md(oneLine(v.Requirement)))
	}
}
