package report

import (
	"fmt"
	"io"
	"strings"
)

// writeReportedMarkdown writes the table of reported losses: per report, the buggy and the fixed
// side's outcome at the report's stages and tasks, with the report's atoms each names.
func writeReportedMarkdown(w io.Writer, reported []Reported) {
	if len(reported) == 0 {
		return
	}
	fmt.Fprintf(w, "\nReported losses (suite `reported`): each report's payload, at the report's stages and tasks; the atoms are the report's, `–` a side not captured here (fixtures/sources/reported/README.md says why).\n\n")
	fmt.Fprintf(w, "| fixture | report | lane | buggy | fixed |\n|---|---|---|---|---|\n")
	for _, rp := range reported {
		fmt.Fprintf(w, "| %s | [%s](%s) | `%s` | %s | %s |\n", rp.Fixture, reportName(rp.URL), rp.URL, rp.Lane, sideText(rp.Buggy), sideText(rp.Fixed))
	}
}

// writeReportedText writes one line per reported loss.
func writeReportedText(w io.Writer, reported []Reported) {
	if len(reported) == 0 {
		return
	}
	fmt.Fprintf(w, "\nreported losses (buggy → fixed, at the report's stages and tasks):\n")
	for _, rp := range reported {
		fmt.Fprintf(w, "  %s %s %s: %s → %s\n", rp.Fixture, reportName(rp.URL), rp.Lane, plainSide(rp.Buggy), plainSide(rp.Fixed))
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

func sideText(s Side) string {
	if s.Version == "" || s.Outcome == "not captured" {
		return "–"
	}
	out := s.Version + " " + s.Outcome
	if len(s.Atoms) > 0 {
		out += ": " + codeList(s.Atoms)
	}
	return out
}

func plainSide(s Side) string {
	if s.Version == "" || s.Outcome == "not captured" {
		return "not captured"
	}
	out := s.Version + " " + s.Outcome
	if len(s.Atoms) > 0 {
		out += " (" + strings.Join(s.Atoms, ", ") + ")"
	}
	return out
}
