package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/result"
)

const testLong = `Test runs the Rego unit tests (rules named test_…) of a contract set's policies, in the same sandbox
and with the same custom builtins as check.

Policies are layers, as in check: every layer is loaded, so a user's tests can call built-in rules.
With --policies, the tests of the given layers run; without, the built-in tests run.

A failing test shows the expression that failed and the values of its variables (as opa test
--var-values), and what it printed (print()); -v lists every test, and what each printed, control
and bidi characters shown as escapes. --run REGEX runs only the tests whose
full name (data.<package>.<rule>) matches. --coverage reports, per policy file of the tested
layers (the _test.rego files left out) and in total, the lines the tests evaluated, and the
lines they did not. --format json writes all of it as one JSON document.

Each test runs under --eval-timeout and the memory budget, and under the sandbox's limits on
what one builtin call may make (a number of at most 100000 bits, a string of at most 16 MiB, …):
a test stopped at one of them is listed as failed, with the limit.

It exits 1 when a test fails, 2 when the policies do not compile or no test ran, and 3 when a
test was stopped at a limit (the instrument failed; this takes precedence over failed tests).`

const testExample = `  contractcheck test
  contractcheck test -v --run 'data.contractcheck.tasks.t2_test.test_key_'
  contractcheck test --coverage
  contractcheck init my-layer && contractcheck test --policies my-layer --coverage --format json`

// testParams are the flags of test.
type testParams struct {
	instrument.Options
	verbose  bool
	run      string
	coverage bool
	format   string
}

func newTestCommand() *cobra.Command {
	p := testParams{format: "text"}
	cmd := &cobra.Command{
		Use:     "test",
		Short:   "Run the Rego unit tests of the policies (-v, --run, --coverage)",
		Long:    testLong,
		Example: testExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code, err := runTest(cmd.Context(), p, cmd.OutOrStdout())
			if err != nil || code != 0 {
				return &exitError{code: code, err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&p.Policies, "policies", nil, "directory of Rego policies, added to the built-in policies; its tests run (repeatable)")
	f.BoolVar(&p.NoBuiltin, "no-builtin", false, "leave the built-in policies out")
	f.BoolVarP(&p.verbose, "verbose", "v", false, "list every test and what it printed, not only the failures")
	f.StringVar(&p.run, "run", "", "run only the tests whose full name (data.<package>.<rule>) matches this regular expression")
	f.BoolVar(&p.coverage, "coverage", false, "report the lines of the tested policies the tests evaluated, per file and in total")
	f.StringVar(&p.format, "format", p.format, "output format: text, json")
	return cmd
}

func runTest(ctx context.Context, p testParams, stdout io.Writer) (int, error) {
	if p.format != "text" && p.format != "json" {
		return result.ExitInputError, fmt.Errorf("--format %s: unknown format (text, json)", p.format)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	layers := p.PolicyLayers()
	eng, err := policy.Load(layers, policy.LoadOptions{Tests: true})
	if err != nil {
		return result.ExitInputError, err
	}
	opts := policy.TestOptions{Run: p.run, Coverage: p.coverage}
	if len(p.Policies) > 0 {
		opts.Layers = []int{}
		for i := range layers {
			if !layers[i].Builtin {
				opts.Layers = append(opts.Layers, i)
			}
		}
	}
	run, err := eng.RunTests(ctx, opts)
	if err != nil {
		return result.ExitCode(err), err
	}
	if len(run.Results) == 0 {
		if p.run != "" {
			return result.ExitInputError, fmt.Errorf("--run %q matches no test_ rule of the selected policy layers: nothing was tested", p.run)
		}
		return result.ExitInputError, fmt.Errorf("no test_ rules in the selected policy layers: nothing was tested")
	}
	failed := run.Failed()
	if p.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		doc := struct {
			*policy.TestRun
			Passed int `json:"passed"`
			Failed int `json:"failed"`
		}{run, len(run.Results) - failed, failed}
		if err := enc.Encode(doc); err != nil {
			return result.ExitInputError, err
		}
	} else {
		writeTestText(stdout, run, p.verbose)
	}
	if err := run.LimitError(); err != nil {
		return result.ExitInstrument, err
	}
	if failed > 0 {
		return result.ExitUnmet, nil
	}
	return result.ExitSatisfied, nil
}

// writeTestText writes the tests that failed (every test with verbose), each failure with the
// expression that failed and its variables, the counts, and the coverage when there is one.
func writeTestText(w io.Writer, run *policy.TestRun, verbose bool) {
	for _, r := range run.Results {
		if r.Pass && !verbose {
			continue
		}
		status := "PASS"
		if !r.Pass {
			status = "FAIL"
		}
		fmt.Fprintf(w, "%s %s.%s (%s)\n", status, escape.Terminal(r.Package), escape.Terminal(r.Name), escape.Terminal(r.Location))
		if r.Fail != "" {
			fmt.Fprintf(w, "%s\n", indent(r.Fail, "    "))
		}
		if r.FailedAt != "" {
			fmt.Fprintf(w, "%s\n", indent(r.FailedAt, "    "))
		}
		if out := strings.TrimRight(r.Output, "\n"); out != "" && (verbose || !r.Pass) {
			fmt.Fprintf(w, "    printed:\n%s\n", indent(out, "      "))
		}
	}
	failed := run.Failed()
	fmt.Fprintf(w, "%d passed, %d failed\n", len(run.Results)-failed, failed)
	if c := run.Coverage; c != nil {
		fmt.Fprintf(w, "coverage: %.2f%% (%d of %d lines) in %d policy %s\n", c.Percent, c.CoveredLines, c.CoveredLines+c.NotCoveredLines,
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
			fmt.Fprintf(w, "  %6.2f%%  %s (%d of %d lines%s)\n", f.Percent, f.File, f.CoveredLines, f.CoveredLines+f.NotCoveredLines, missed)
		}
	}
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
