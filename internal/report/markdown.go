package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Markdown writes the findings for a README or a pull-request comment: a table of lanes by task
// (passes out of captured bindings), the divergence census, the reported losses, what reaches the
// model (the visibility readout), what each upgrade changed, and the gate: its verdict and a
// table of its violations, each at its record. A string of the data is written as
// escape.MarkdownText where it is text and escape.MarkdownCode where it is code, so that none can
// end a table cell or a line, or hold raw HTML; the whole goes through an escape.LogWriter.
type Markdown struct{}

// md is escape.MarkdownText: a string of the data as markdown text inside a line or a cell.
func md(s string) string { return escape.MarkdownText(s) }

// mdCode is escape.MarkdownCode: a string of the data as an inline code span.
func mdCode(s string) string { return escape.MarkdownCode(s) }

// Output implements Outputter.
func (Markdown) Output(w io.Writer, r *result.Report) error {
	return writeLog(w, func(w io.Writer) error { return writeMarkdown(w, r) })
}

// writeMarkdown writes the report as Markdown describes, buffered.
func writeMarkdown(w io.Writer, r *result.Report) error {
	if r.Failure != nil {
		return writeMarkdownFailure(w, r)
	}
	bw := bufio.NewWriter(w)
	if c := r.CohortText(); c != "" {
		fmt.Fprintf(bw, "Cohort of the profile: %s.\n\n", md(c))
	}
	fmt.Fprintf(bw, "Profile %s (null policy %s). Each cell: bindings that pass out of the captured ones (pass or unmet) for that lane and task; `–` when none was captured.\n\n", mdCode(r.Profile), mdCode(r.NullPolicy))
	tasks, rows := Findings(r)
	writeFindings(bw, tasks, rows)
	reconstructed := reconstructedRows(rows)
	if len(reconstructed) > 0 {
		fmt.Fprintf(bw, "\nRows of origin `reconstructed` (%s) are carriers derived from the framework's source, not captured by running it.\n", CodeList(reconstructed))
	}
	type census struct {
		label    string
		d        result.Divergences
		byOrigin bool
	}
	// With every lane captured the two censuses are one; otherwise both are given, so that a
	// reconstructed carrier never moves a headline number unsaid, and the one over every lane
	// splits its counts by origin.
	censuses := []census{{"Unique divergences", r.Divergences, false}}
	if len(reconstructed) > 0 {
		censuses = []census{{"Captured lanes only (no reconstructed carrier): unique divergences", r.CapturedDivergences, false},
			{"All lanes, the reconstructed " + CodeList(reconstructed) + " included: unique divergences", r.Divergences, true}}
	}
	for _, c := range censuses {
		d := c.d
		fmt.Fprintf(bw, "\n%s **%d**, manifestations **%d**", c.label, len(d.Unique), d.Manifestations)
		fmt.Fprintf(bw, "; guard divergences: %d; reported apart: %d.", len(d.Guard), len(d.Apart))
		if len(d.LeaveOneOut) > 0 {
			fmt.Fprintf(bw, " %s: %s.", upperFirst(LabelLeaveOneOut), leaveOneOut(d, md))
		}
		fmt.Fprintln(bw)
		if counts := censusCounts(d, c.byOrigin, md); len(counts) > 0 {
			fmt.Fprintln(bw)
			for _, n := range counts {
				fmt.Fprintf(bw, "- %s: %s\n", n.Label, n.Text())
			}
		}
	}
	writeReportedMarkdown(bw, r.Reported)
	writeVisibilityMarkdown(bw, r)
	for _, u := range r.Upgrades {
		fmt.Fprintf(bw, "\nUpgrade %s %s → %s (%s): %d bindings changed.\n", mdCode(u.Lane), md(u.From), md(u.To), md(u.Configuration), u.Count())
		if u.Count() == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n| fixture | task | stages | before | after | atoms (after, or before when fixed) |\n|---|---|---|---|---|---|\n")
		for _, g := range groupChanges(u) {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n", md(g.fixture), md(g.task), md(strings.Join(g.stages, " ")), g.before, g.after, g.atoms)
		}
	}
	writeMarkdownGate(bw, r)
	return bw.Flush()
}

// writeVisibilityMarkdown writes the visibility readout, when the report has one: the policy
// that judged it, then a table with a row per lane, version and configuration, a column per
// stage holding the group's Summary, and the fixtures of the row's first group with their shape
// (fixtureShape); then a warning for each group whose records carry nothing of what was served.
// Every string of the data is escape.MarkdownText, the policy escape.MarkdownCode.
func writeVisibilityMarkdown(w io.Writer, r *result.Report) {
	if r.VisibilityGroups() == 0 {
		return
	}
	policy := ""
	if r.VisibilityPolicy != "" {
		policy = " (policy " + mdCode(r.VisibilityPolicy) + ")"
	}
	fmt.Fprintf(w, "\n**What reaches the model**%s: for each lane, version and configuration, which of a tool result's channels (content, structuredContent, the isError marker) reach the model at each model-facing stage, as a category; the fixtures are the first stage's, each with what of it reaches the model. docs/visibility.md defines the categories.\n\n", policy)
	stages := visibilityStages(r.Visibility)
	header := make([]string, len(stages))
	for i, st := range stages {
		header[i] = md(st)
	}
	fmt.Fprintf(w, "| lane version configuration | %s | fixtures |\n|---|%s---|\n", strings.Join(header, " | "), strings.Repeat("---|", len(stages)))
	for row := range visibilityRows(r.Visibility, md) {
		cols := make([]string, len(stages))
		for i, st := range stages {
			cols[i] = "–"
			if v, ok := row.at(st); ok {
				cols[i] = md(v.Summary())
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", row.label, strings.Join(cols, " | "), visibilityFixtures(row.groups[0].Fixtures, md))
	}
	for _, v := range r.EachVisibility() {
		if v.NothingServed() {
			fmt.Fprintf(w, "\n> **Warning:** %s\n", md(v.NothingServedWarning()))
		}
	}
}

// CodeList writes names as `a`, `b` (escape.MarkdownCode each): the markdown formats of every
// verb list names with it.
func CodeList(names []string) string { return strings.Join(escape.Each(mdCode, names), ", ") }

// writeFindings writes the findings table (Findings): one row per lane, version and
// configuration, a column per task.
func writeFindings(w io.Writer, taskIDs []string, rows []FindingRow) {
	header := escape.Each(md, taskIDs)
	fmt.Fprintf(w, "| lane | version | configuration | origin | %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|---|---|---|---|%s\n", strings.Repeat("---|", len(taskIDs)))
	for _, row := range rows {
		cols := make([]string, len(taskIDs))
		for i, t := range taskIDs {
			cols[i] = row.Cells[t].String()
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdCode(row.Lane), md(row.LaneVersion), md(row.Configuration), md(row.Origin), strings.Join(cols, " | "))
	}
}

// changeGroup is the changes of one fixture and task that read the same at several stages.
type changeGroup struct {
	fixture, task, before, after, atoms string
	stages                              []string
}

// groupChanges folds the stages of a fixture and task whose change reads the same, and names only
// the atoms and kinds involved: the full diagnostics are in the text and JSON reports. The atoms
// are markdown code spans; the other fields are as the report holds them.
func groupChanges(u result.Upgrade) []changeGroup {
	var out []changeGroup
	index := map[[5]string]int{}
	for _, c := range u.Each() {
		ds := c.DiagnosticsAfter
		if len(ds) == 0 {
			ds = c.DiagnosticsBefore
		}
		var atoms []string
		for _, a := range Atoms(ds) {
			atoms = append(atoms, mdCode(a))
		}
		sort.Strings(atoms)
		k := [5]string{c.Fixture, c.Task, c.Before, c.After, strings.Join(atoms, ", ")}
		if i, ok := index[k]; ok {
			out[i].stages = append(out[i].stages, c.Stage)
			continue
		}
		index[k] = len(out)
		out = append(out, changeGroup{fixture: k[0], task: k[1], before: k[2], after: k[3], atoms: k[4], stages: []string{c.Stage}})
	}
	return out
}
