package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/policy"
)

// testText writes a test run for a terminal or a CI log: the tests that failed (every test with
// Verbose), each failure with the expression that failed and its variables, the counts, and the
// coverage when there is one.
type testText struct {
	// Verbose lists every test and what it printed, not only the failures (-v).
	Verbose bool
}

// Output implements report.Formatter.
func (t testText) Output(w io.Writer, run *policy.TestRun) error {
	var b bytes.Buffer
	for _, r := range run.Results {
		if r.Pass && !t.Verbose {
			continue
		}
		status := "PASS"
		if !r.Pass {
			status = "FAIL"
		}
		fmt.Fprintf(&b, "%s %s.%s (%s)\n", status, escape.Terminal(r.Package), escape.Terminal(r.Name), escape.Terminal(r.Location))
		if r.Fail != "" {
			fmt.Fprintf(&b, "%s\n", indent(r.Fail, "    "))
		}
		if r.FailedAt != "" {
			fmt.Fprintf(&b, "%s\n", indent(r.FailedAt, "    "))
		}
		if out := strings.TrimRight(r.Output, "\n"); out != "" && (t.Verbose || !r.Pass) {
			fmt.Fprintf(&b, "    printed:\n%s\n", indent(out, "      "))
		}
	}
	failed := run.Failed()
	fmt.Fprintf(&b, "%d passed, %d failed\n", len(run.Results)-failed, failed)
	if c := run.Coverage; c != nil {
		fmt.Fprintf(&b, "coverage: %.2f%% (%d of %d lines) in %d policy %s\n", c.Percent, c.CoveredLines, c.CoveredLines+c.NotCoveredLines,
			len(c.Files), plural(len(c.Files), "file", "files"))
		for _, f := range c.Files {
			var not []string
			for _, r := range f.NotCovered {
				not = append(not, r.String())
			}
			missed := ""
			switch {
			case len(not) == 1 && f.NotCovered[0].Start == f.NotCovered[0].End:
				missed = "; not covered: line " + not[0]
			case len(not) > 0:
				missed = "; not covered: lines " + strings.Join(not, ", ")
			}
			fmt.Fprintf(&b, "  %6.2f%%  %s (%d of %d lines%s)\n", f.Percent, escape.Terminal(f.File), f.CoveredLines, f.CoveredLines+f.NotCoveredLines, missed)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// indent prefixes each line of s, escaped for the terminal (escape.TerminalLines: control and
// bidi characters shown as escapes, line breaks kept), and neutralizes a line a CI runner would
// read as a command (what a test printed is the policy's data).
func indent(s, prefix string) string {
	lines := strings.Split(escape.TerminalLines(s), "\n")
	for i, l := range lines {
		lines[i] = escape.NeutralizeLine(prefix + l)
	}
	return strings.Join(lines, "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
