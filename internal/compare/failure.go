package compare

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// A compare that failed before it could compare (Report.Failure: the instrument failed, exit 3)
// still writes its report, each format a short one naming the failure: the text an INCOMPLETE
// line, markdown the same in bold, the html page a banner, json the failure member. The message
// is escaped for each grammar as every other string is.

// failedLine is what a failed compare's report says after the failure.
func failedLine(r *Report, profile string) string {
	return fmt.Sprintf("no comparison for profile %s: the run failed before it could make one (exit %d)", profile, r.ExitCode())
}

// writeTextFailure writes the text of a failed compare: the failure's lines, each further one
// indented, and the line saying no comparison was made.
func writeTextFailure(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "contractcheck compare: profile %s\n", term(r.Profile))
	if r.Scope != nil {
		fmt.Fprintf(&b, "restricted to %s\n", term(r.Scope.Text()))
	}
	b.WriteString("\n")
	report.WriteIncomplete(&b, r.Failure.Error)
	fmt.Fprintf(&b, "%s\n", failedLine(r, term(r.Profile)))
	return report.WriteLog(w, b.String())
}

// writeMarkdownFailure writes the markdown of a failed compare (report.WriteMarkdownFailure).
func writeMarkdownFailure(w io.Writer, r *Report) error {
	return report.WriteMarkdownFailure(w, r.Profile, r.Scope.Text(), r.Failure.Error, failedLine(r, escape.MarkdownCode(r.Profile)))
}

// writeHTMLFailure writes the page of a failed compare: its header with the failure as a banner.
func writeHTMLFailure(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	p := &htmlPage{R: r, CSS: template.CSS(report.HTMLStyle() + compareCSS)}
	if err := htmlTemplate.ExecuteTemplate(bw, "failed", p); err != nil {
		return err
	}
	return bw.Flush()
}
