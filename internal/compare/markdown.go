package compare

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// Markdown writes the report's tables for a pull request or a README: where the decoders differ
// (per lane · version · configuration × stage, lane losses left out, and by fixture, target and
// readout kinds), matches per decoder policy by lane × configuration × stage, totals by readout
// kind (per field and of the whole value), what reaches the model beside what each decoder
// recovers, the configuration comparison and what the second profile changes (Heading). Every
// single reading is in the JSON format and in text with Details. A string of the data is written as escape.MarkdownText
// where it is text and escape.MarkdownCode where it is code, so that none can end a table cell or
// a line, or hold raw HTML; the whole goes through an escape.LogWriter.
type Markdown struct{}

// Output implements Outputter.
func (Markdown) Output(w io.Writer, r *Report) error {
	var b strings.Builder
	if err := writeMarkdown(&b, r); err != nil {
		return err
	}
	return report.WriteLog(w, b.String())
}

func writeMarkdown(w io.Writer, r *Report) error {
	if r.Failure != nil {
		return writeMarkdownFailure(w, r)
	}
	bw := bufio.NewWriter(w)
	ns := r.NullPolicies
	fmt.Fprintf(bw, "Decoder policies %s on %d captured target readings (%d unstable); null policies %s vs %s.\n",
		report.CodeList(decoderNames(r)), r.Summary.Captured, r.Summary.Unstable, escape.MarkdownCode(ns.Base.Profile), escape.MarkdownCode(ns.Other.Profile))
	if lanes := reconstructedLanes(r); len(lanes) > 0 {
		fmt.Fprintf(bw, "\nEvery table and total below includes the reconstructed lanes %s: carriers derived from the framework's source, not captured by running it.\n", report.CodeList(lanes))
	}

	differs, losses, captured := differenceTotals(r)
	fmt.Fprintf(bw, "\n%s: %d of %d captured target readings (lane losses left out: %d); %s.\n", differencesTitle, differs, captured, losses, differencesNote)
	if differs > 0 {
		fmt.Fprintf(bw, "\n| lane | version | configuration | %s |\n|---|---|---|%s\n", strings.Join(stages, " | "), strings.Repeat("---|", len(stages)))
		for _, row := range differenceRows(r) {
			cells := make([]string, len(row.cells))
			for i, c := range row.cells {
				cells[i] = differenceCell(c)
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", escape.MarkdownCode(row.lane), escape.MarkdownText(row.version), escape.MarkdownText(row.configuration), strings.Join(cells, " | "))
		}
		fmt.Fprintf(bw, "\n| fixture | target | readout kinds | readings | lanes |\n|---|---|---|---|---|\n")
		for _, g := range differenceKinds(r) {
			fmt.Fprintf(bw, "| %s | %s | %s | %d | %s |\n", escape.MarkdownText(g.fixture), escape.MarkdownText(targetName(g.target)), escape.MarkdownText(g.kinds), g.readings, report.CodeList(g.lanes))
		}
	}

	fmt.Fprintf(bw, "\nMatches per decoder policy: matches out of the captured target readings; `–` when none was captured.\n")
	for _, d := range decoderNames(r) {
		fmt.Fprintf(bw, "\n%s\n\n| lane | version | configuration | %s |\n|---|---|---|%s\n", escape.MarkdownCode(d), strings.Join(stages, " | "), strings.Repeat("---|", len(stages)))
		for _, row := range matchRows(r, d) {
			fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", escape.MarkdownCode(row.lane), escape.MarkdownText(row.version), escape.MarkdownText(row.configuration), strings.Join(row.cells, " | "))
		}
	}

	fmt.Fprintf(bw, "\n%s.\n\n| decoder | count | %s | total |\n|---|---|%s---|\n", escape.MarkdownText(totalsTitle), strings.Join(Kinds, " | "), strings.Repeat("---|", len(Kinds)))
	for _, row := range totalsRows(r) {
		fmt.Fprintf(bw, "| %s | %s |\n", escape.MarkdownCode(row[0]), strings.Join(row[1:], " | "))
	}

	if len(r.Visibility) > 0 {
		names := decoderNames(r)
		heads := make([]string, len(names))
		for i, n := range names {
			heads[i] = escape.MarkdownCode(n)
		}
		fmt.Fprintf(bw, "\n%s.\n\n%s\n\n| lane | version | configuration | stage | what reaches the model | %s |\n|---|---|---|---|---|%s\n",
			visibilityTitle, visibilityNote, strings.Join(heads, " | "), strings.Repeat("---|", len(names)))
		for _, v := range r.Visibility {
			cells := make([]string, len(v.Recovered))
			for i, c := range v.Recovered {
				cells[i] = recoveryCell(c)
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n", escape.MarkdownCode(v.Lane), escape.MarkdownText(v.Version), escape.MarkdownText(v.Configuration), escape.MarkdownText(v.Stage), escape.MarkdownText(v.Summary()), strings.Join(cells, " | "))
		}
	}

	for _, c := range r.Configurations {
		fmt.Fprintf(bw, "\nConfiguration %s %s: %s → %s.\n\n| fixture | what | stages | before | after | atoms (after, or before when fixed) |\n|---|---|---|---|---|---|\n",
			escape.MarkdownCode(c.Lane), escape.MarkdownText(c.LaneVersion), escape.MarkdownText(c.From), escape.MarkdownText(c.To))
		for _, g := range foldTaskChanges(c.Tasks) {
			fmt.Fprintf(bw, "| %s | %s (%s) | %s | %s | %s | %s |\n", escape.MarkdownText(g.fixture), escape.MarkdownText(g.task), escape.MarkdownText(g.role), escape.MarkdownText(strings.Join(g.stages, " ")), escape.MarkdownText(g.before), escape.MarkdownText(g.after), report.CodeList(g.atoms))
		}
		for _, g := range foldDecoderChanges(c.Decoders) {
			fmt.Fprintf(bw, "| %s | %s %s | %s | %s | %s | |\n", escape.MarkdownText(g.fixture), escape.MarkdownCode(g.decoder), escape.MarkdownText(g.target), escape.MarkdownText(strings.Join(g.stages, " ")), escape.MarkdownText(g.before), escape.MarkdownText(g.after))
		}
	}

	tasks := make([]string, len(ns.Tasks))
	for i, t := range ns.Tasks {
		tasks[i] = escape.MarkdownText(t)
	}
	fmt.Fprintf(bw, "\n%s: %d bindings change (tasks with optional atoms: %s).\n", ns.Heading(escape.MarkdownText), len(ns.Changes), strings.Join(tasks, ", "))
	if len(ns.Changes) > 0 {
		fmt.Fprintf(bw, "\n| fixture | task | lane | version | configuration | stage | %s | %s | atoms |\n|---|---|---|---|---|---|---|---|---|\n", escape.MarkdownText(ns.Base.Profile), escape.MarkdownText(ns.Other.Profile))
		for _, c := range ns.Changes {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", escape.MarkdownText(c.Fixture), escape.MarkdownText(c.Task), escape.MarkdownCode(c.Lane), escape.MarkdownText(c.LaneVersion), escape.MarkdownText(c.Configuration), escape.MarkdownText(c.Stage),
				escape.MarkdownText(c.BaseOutcome), escape.MarkdownText(c.OtherOutcome), report.CodeList(c.Atoms))
		}
	}
	fmt.Fprintf(bw, "\n| | %s | %s |\n|---|---|---|\n", escape.MarkdownCode(ns.Base.Profile), escape.MarkdownCode(ns.Other.Profile))
	for _, row := range nullRows(ns) {
		fmt.Fprintf(bw, "| %s | %s | %s |\n", escape.MarkdownText(row[0]), escape.MarkdownText(row[1]), escape.MarkdownText(row[2]))
	}
	return bw.Flush()
}
