package study

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// Markdown writes the four tables as GitHub-flavoured markdown tables, each with its title and
// what it counts. A string of the data is written as escape.MarkdownText in a line or a cell, so
// that none can end a cell or a line or hold raw HTML; the whole goes through an escape.LogWriter.
type Markdown struct{}

// mdTable writes a markdown table; every cell is escaped.
func mdTable(b *strings.Builder, header []string, rows [][]string) {
	cells := func(row []string) string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = escape.MarkdownText(c)
		}
		return "| " + strings.Join(out, " | ") + " |\n"
	}
	b.WriteString(cells(header))
	b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
	for _, row := range rows {
		b.WriteString(cells(row))
	}
}

// mdList writes a bulleted list of escaped items.
func mdList(b *strings.Builder, items []string) {
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", escape.MarkdownText(it))
	}
}

// Output implements Outputter.
func (Markdown) Output(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "The study's tables under profiles %s (null policy %s) and %s; decoder policies %s.\n",
		escape.MarkdownCode(r.Profile), escape.MarkdownText(nullPolicy(r, 0)), escape.MarkdownText(nullProfile(r)), escape.MarkdownText(strings.Join(r.Decoders, ", ")))
	if s := r.selection(); s != "" {
		fmt.Fprintf(&b, "\nSelection: %s.\n", escape.MarkdownText(s))
	}
	if r.Failure != nil {
		fmt.Fprintf(&b, "\n**Incomplete**: the study failed before it could count (exit %d): %s\n", r.Failure.Exit, escape.MarkdownText(r.Failure.Error))
		return writeLog(w, b.String())
	}
	if rc := r.reconstructed(); len(rc) > 0 {
		fmt.Fprintf(&b, "\nEvery table includes the reconstructed lanes %s: carriers derived from the framework's source, not captured.\n", escape.MarkdownText(strings.Join(rc, ", ")))
	}

	fmt.Fprintf(&b, "\n### %s\n\nProfile %s: %s.\n\n", titleIV, escape.MarkdownCode(r.Profile), escape.MarkdownText(noteIV))
	mdTable(&b, append([]string{"lane", "version", "configuration", "stage"}, r.Tasks...), r.passRows())
	if lines := r.unjudgedLines(); len(lines) > 0 {
		b.WriteString("\nNo binding judged at:\n\n")
		mdList(&b, lines)
	}
	if notes := r.passNotes(); len(notes) > 0 {
		b.WriteString("\nJudged bindings neither pass nor unmet:\n\n")
		mdList(&b, notes)
	}

	fmt.Fprintf(&b, "\n### %s\n\n%s.\n\n", titleV, escape.MarkdownText(noteV))
	mdTable(&b, r.censusHeader(), r.censusRows())
	if t1 := r.t1Lines(); len(t1) > 0 {
		b.WriteString("\nT1 divergences:\n\n")
		mdList(&b, t1)
	}

	fmt.Fprintf(&b, "\n### %s\n\nStages %s: %s.\n\n", titleVI, escape.MarkdownText(strings.Join(r.DecoderStages, " ")), escape.MarkdownText(noteVI))
	if len(r.JSONText) == 0 {
		fmt.Fprintf(&b, "%s.\n", noReadings)
	} else {
		mdTable(&b, r.jsonTextHeader(), r.jsonTextRows())
	}

	fmt.Fprintf(&b, "\n### %s\n\n%s.\n\n", titleVII, escape.MarkdownText(noteVII))
	if len(r.Positions) == 0 {
		fmt.Fprintf(&b, "%s.\n", noReadings)
	} else {
		mdTable(&b, totalsHeader(), r.totalsRows())
		fmt.Fprintf(&b, "\nPer position (%s):\n\n", escape.MarkdownText(strings.Join(r.Decoders, " / ")))
		mdTable(&b, r.positionHeader(), r.positionRows())
	}

	if r.Unstable > 0 {
		fmt.Fprintf(&b, "\n**Repetitions disagree**: %d bindings and readings unstable (exit 3).\n", r.Unstable)
	}
	return writeLog(w, b.String())
}
