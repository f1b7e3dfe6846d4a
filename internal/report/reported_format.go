package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
)

// writeReportedMarkdown writes the table of reported losses: per report, the buggy and the fixed
// side's outcome at the report's stages and tasks, with the report's atoms each names. The link's
// text is escape.MarkdownText and its destination escape.MarkdownURL (the catalog holds only
// https://github.com/ URLs), so that a URL cannot end the link or the cell.
func writeReportedMarkdown(w io.Writer, reported []result.Reported) {
	if len(reported) == 0 {
		return
	}
	fmt.Fprintf(w, "\nReported losses (suite `reported`): each report's payload, at the report's stages and tasks; the atoms are the report's, `–` a side not captured here (fixtures/sources/reported/README.md says why).\n\n")
	fmt.Fprintf(w, "| fixture | report | lane | buggy | fixed |\n|---|---|---|---|---|\n")
	for _, rp := range reported {
		fmt.Fprintf(w, "| %s | [%s](%s) | %s | %s | %s |\n", md(rp.Fixture), md(reportName(rp.URL)), escape.MarkdownURL(rp.URL), mdCode(rp.Lane),
			sideText(rp.Buggy), sideText(rp.Fixed))
	}
}

// writeReportedText writes one line per reported loss, each string of the data escape.Terminal.
func writeReportedText(w io.Writer, reported []result.Reported) {
	if len(reported) == 0 {
		return
	}
	fmt.Fprintf(w, "\nreported losses (buggy → fixed, at the report's stages and tasks):\n")
	for _, rp := range reported {
		fmt.Fprintf(w, "  %s %s %s: %s → %s\n", term(rp.Fixture), term(reportName(rp.URL)), term(rp.Lane), plainSide(rp.Buggy), plainSide(rp.Fixed))
	}
}

// reportName shortens a report URL to owner/repo#N.
func reportName(url string) string {
	rest := strings.TrimPrefix(url, "https://github.com/")
	parts := strings.Split(rest, "/")
	if len(parts) == 4 {
		return parts[0] + "/" + parts[1] + "#" + parts[3]
	}
	return rest
}

// sideText is one side of a reported loss as markdown: version and outcome text, atoms as code.
func sideText(s result.Side) string {
	if s.Version == "" || s.Outcome == "not captured" {
		return "–"
	}
	out := md(s.Version) + " " + s.Outcome // an outcome is contractcheck's word, not data
	if len(s.Atoms) > 0 {
		out += ": " + CodeList(s.Atoms)
	}
	return out
}

// plainSide is one side of a reported loss as text, escape.Terminal.
func plainSide(s result.Side) string {
	if s.Version == "" || s.Outcome == "not captured" {
		return "not captured"
	}
	out := term(s.Version) + " " + term(s.Outcome)
	if len(s.Atoms) > 0 {
		out += " (" + strings.Join(terms(s.Atoms), ", ") + ")"
	}
	return out
}
