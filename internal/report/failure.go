package report

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/result"
)

// A report whose run failed before it could give a verdict (result.Report.Failure: the instrument
// failed, exit 3) has no result; each format writes it as its own short document, so that a CI
// step reading the report finds the failure where it looks: the text and table formats an
// INCOMPLETE line and the gate's no verdict, markdown the same in bold, TAP a "Bail out!", github
// an ::error annotation, junit a testcase with an <error>, sarif an invocation whose execution was
// not successful, with the message as a notification; json has the failure member, and the html
// page a banner (its header template). The message may hold anything a policy file or a record
// path holds: each format escapes it for its own grammar, as it escapes every other string.

// failureIntro is how every format but json introduces the failure's message.
const failureIntro = "the instrument failed: "

// failureGate is the gate's line for a failed run, without a format's markup.
func failureGate(r *result.Report, profile string) string {
	return fmt.Sprintf("no verdict for profile %s: the run failed before it could give one (exit %d)", profile, r.ExitCode())
}

// writeTextFailure writes the text format's body of a failed run: the failure (WriteIncomplete)
// and the gate.
func writeTextFailure(w io.Writer, r *result.Report) {
	fmt.Fprintln(w)
	WriteIncomplete(w, r.Failure.Error)
	fmt.Fprintf(w, "gate: %s\n", failureGate(r, term(r.Profile)))
}

// WriteIncomplete writes a text format's INCOMPLETE line for a failure's message, a verb's run
// that failed before its result (check's, compare's): the message's lines escaped for a
// terminal, each after the first indented (the style wraps a long line, never cuts it).
func WriteIncomplete(w io.Writer, msg string) {
	for i, l := range strings.Split(msg, "\n") {
		if i == 0 {
			fmt.Fprintf(w, "INCOMPLETE: %s%s\n", failureIntro, term(l))
			continue
		}
		fmt.Fprintf(w, "  %s\n", term(l))
	}
}

// writeMarkdownFailure writes the markdown format of a failed run.
func writeMarkdownFailure(w io.Writer, r *result.Report) error {
	return WriteMarkdownFailure(w, r.Profile, r.ScopeText(), r.Failure.Error, "**Gate:** "+failureGate(r, mdCode(r.Profile)))
}

// WriteMarkdownFailure writes the markdown of a verb's run that failed before its result: the
// profile, the scope (scope, "" when the run was not restricted), the failure's message in bold
// INCOMPLETE, and last, a line already in markdown saying what the run does not give.
func WriteMarkdownFailure(w io.Writer, profile, scope, msg, last string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Profile %s.\n\n", mdCode(profile))
	if scope != "" {
		fmt.Fprintf(bw, "Restricted to %s.\n\n", md(scope))
	}
	fmt.Fprintf(bw, "**INCOMPLETE:** %s%s\n\n", failureIntro, md(msg))
	fmt.Fprintf(bw, "%s.\n", last)
	return bw.Flush()
}

// writeTAPFailure writes the TAP stream of a failed run: a bail out, which every TAP consumer
// takes as the run failing, after the gate as a comment.
func writeTAPFailure(w io.Writer, r *result.Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "TAP version 14\n# gate: %s\n", failureGate(r, term(r.Profile)))
	fmt.Fprintf(bw, "Bail out! %s\n", escape.TAPDescription(failureIntro+r.Failure.Error))
	return bw.Flush()
}

// writeTableFailure writes the table of a failed run: the header, no row, the failure and the
// gate.
func writeTableFailure(w io.Writer, r *result.Report, header []string) error {
	return writeLog(w, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s\nINCOMPLETE: %s%s\ngate: profile %s %s\n", strings.Join(header, "  "),
			failureIntro, term(r.Failure.Error), term(r.Profile), r.VerdictText())
		return err
	})
}

// writeGitHubFailure writes the workflow commands of a failed run: an ::error annotation with the
// failure, and the ::notice summing up.
func writeGitHubFailure(w io.Writer, r *result.Report) error {
	var b strings.Builder
	annotate(&b, "error", nil, "contractcheck profile "+r.Profile+": the instrument failed", failureIntro+r.Failure.Error)
	fmt.Fprintf(&b, "::notice title=contractcheck::%s\n", escapeData(escape.TerminalLines("contractcheck profile "+r.Profile+": "+failureGate(r, r.Profile))))
	_, err := io.WriteString(w, b.String())
	return err
}

// junitFailure is the JUnit document of a failed run: one testsuite, one testcase ("the run
// gives a verdict") in error, its message the failure's first line, its text the whole message.
func junitFailure(r *result.Report) junitSuites {
	first, _, _ := strings.Cut(r.Failure.Error, "\n")
	c := junitCase{Name: "the run gives a verdict", Classname: "contractcheck",
		Error: &junitMessage{Message: failureIntro + first, Type: result.VerdictInstrumentFailed, Text: r.Failure.Error + "\n"}}
	s := junitSuite{Name: "the instrument: " + failureGate(r, r.Profile), Tests: 1, Errors: 1,
		Properties: []junitProperty{{"exit", fmt.Sprint(r.Failure.Exit)}}, Cases: []junitCase{c}}
	return junitSuites{Name: "contractcheck profile " + r.Profile, Tests: 1, Errors: 1, Suites: []junitSuite{s}}
}

// writeJUnitFailure writes junitFailure as the JUnit format writes every document.
func writeJUnitFailure(w io.Writer, r *result.Report) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitFailure(r)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// sarifInvocation is a SARIF run's invocation: written only for a failed run, whose execution was
// not successful, with the failure as a notification.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ExitCode                   int                 `json:"exitCode"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level   string       `json:"level"`
	Message sarifMessage `json:"message"`
}

// sarifFailure is the invocation of a failed run.
func sarifFailure(r *result.Report) []sarifInvocation {
	return []sarifInvocation{{ExecutionSuccessful: false, ExitCode: r.Failure.Exit,
		ToolExecutionNotifications: []sarifNotification{{Level: "error", Message: sarifMessage{failureIntro + r.Failure.Error}}}}}
}
