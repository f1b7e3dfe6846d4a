package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
)

// GitHub writes GitHub Actions workflow commands: an ::error annotation at the record's .jsonl file
// and line for every violation of the gate, a ::warning for each binding that did not pass but no
// requirement gates, at most 50 of each, and a ::notice summing up (the verdict, the counts, and
// how many annotations were left out). A record inside the binary (builtin:…) has no file in the
// repository; its annotation names it in the message instead.
//
// Every line is a command of this format. Its message and title are escape.TerminalLines (a
// control or bidi character of the data shown escaped, as the log would otherwise render or
// hide it; line breaks kept) and then escaped as the Actions toolkit escapes a command's data
// and properties (escapeData, escapeProperty): a line break of the data is %0A, so no line of
// the data can start a command of its own. A file property is the record's path as it is, when a
// terminal shows that path as itself; any other path is named in the message, escaped.
type GitHub struct{}

// maxAnnotations bounds the errors and, separately, the warnings written.
const maxAnnotations = 50

// Output implements Outputter.
func (GitHub) Output(w io.Writer, r *result.Report) error {
	if r.Failure != nil {
		return writeGitHubFailure(w, r)
	}
	var b strings.Builder
	errors, warnings := 0, 0
	for i := range r.Gate.Violations {
		v := &r.Gate.Violations[i]
		errors++
		if errors > maxAnnotations {
			continue
		}
		title := fmt.Sprintf("contractcheck %s %s: %s %s %s %s", v.Task, v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage)
		msg := v.Outcome
		if atoms := Atoms(v.Diagnostics); len(atoms) > 0 {
			msg += ": " + strings.Join(atoms, ", ")
		}
		msg += fmt.Sprintf(" (%s: %s)", v.RequirementName, v.Requirement)
		annotate(&b, "error", v.Records, title, msg)
	}
	for _, res := range r.Each() {
		if res.Required || noFinding(res.Outcome) {
			continue
		}
		warnings++
		if warnings > maxAnnotations {
			continue
		}
		title := fmt.Sprintf("contractcheck %s %s: %s %s %s %s (not gated)", res.Task, res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage)
		annotate(&b, "warning", res.Records, title, failureMessage(res))
	}
	summary := fmt.Sprintf("contractcheck profile %s: %s; %d bindings, %d violations, %d unrequired findings",
		r.Profile, r.VerdictText(), r.Len(), errors, warnings)
	if errors > maxAnnotations || warnings > maxAnnotations {
		summary += fmt.Sprintf(" (annotations shown: %d errors, %d warnings; the JSON report lists all)", min(errors, maxAnnotations), min(warnings, maxAnnotations))
	}
	fmt.Fprintf(&b, "::notice title=contractcheck::%s\n", escapeData(escape.TerminalLines(summary)))
	_, err := io.WriteString(w, b.String())
	return err
}

// annotate writes one workflow command located at the first record, when it is a file of the
// repository.
func annotate(b *strings.Builder, level string, records []result.RecordRef, title, msg string) {
	props := []string{}
	if len(records) > 0 {
		rec := records[0]
		// A record inside the binary has no file in the repository, and a path a terminal cannot
		// show as itself (a control or bidi character) could only reach the log raw in a file
		// property: both are named in the message, escaped, instead.
		if strings.HasPrefix(rec.File, BuiltinPrefix) || escape.Terminal(rec.File) != rec.File {
			msg += fmt.Sprintf(" [record %s:%d]", rec.File, rec.Line)
		} else {
			props = append(props, "file="+escapeProperty(rec.File), fmt.Sprintf("line=%d", rec.Line))
		}
	}
	props = append(props, "title="+escapeProperty(escape.TerminalLines(title)))
	fmt.Fprintf(b, "::%s %s::%s\n", level, strings.Join(props, ","), escapeData(escape.TerminalLines(msg)))
}

// BuiltinPrefix starts the name of a file embedded in the binary.
const BuiltinPrefix = "builtin:"

// escapeData escapes a workflow command's message, as the Actions toolkit does.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
