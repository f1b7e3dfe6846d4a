package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/report"
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
  contractcheck test -v --run 'data.contractcheck.tasks.t2_test.test_unmet_'
  contractcheck test --coverage
  contractcheck init my-layer && contractcheck test --policies my-layer --coverage --format json`

// testParams are the flags of test.
type testParams struct {
	inputs.Options
	verbose  bool
	run      string
	coverage bool
	out      output[*policy.TestRun]
}

func newTestCommand() *cobra.Command {
	var p testParams
	cmd := &cobra.Command{
		Use:     "test",
		Short:   "Run the Rego unit tests of the policies (-v, --run, --coverage)",
		Long:    testLong,
		Example: testExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitWith(runTest(cmd.Context(), p, cmd.OutOrStdout()))
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&p.Policies, "policies", nil, "directory of Rego policies, added to the built-in policies; its tests run (repeatable)")
	f.BoolVar(&p.NoBuiltin, "no-builtin", false, "leave the built-in policies out")
	f.BoolVarP(&p.verbose, "verbose", "v", false, "list every test and what it printed, not only the failures")
	f.StringVar(&p.run, "run", "", "run only the tests whose full name (data.<package>.<rule>) matches this regular expression")
	f.BoolVar(&p.coverage, "coverage", false, "report the lines of the tested policies the tests evaluated, per file and in total")
	addOutputFlags(cmd, &p.out, testOutputters, outputSpec{what: "results", format: "text"})
	return cmd
}

func runTest(ctx context.Context, p testParams, stdout io.Writer) (int, error) {
	out, err := p.out.resolve(report.Options{Details: p.verbose}, inputsOf(p.Options))
	if err != nil {
		return result.ExitInputError, err
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
	if err := p.out.write(stdout, out, run); err != nil {
		return result.ExitCode(err), err // a write error is exit 2, one stopped at the memory budget 3
	}
	if err := run.LimitError(); err != nil {
		return result.ExitInstrument, err
	}
	if run.Failed() > 0 {
		return result.ExitUnmet, nil
	}
	return result.ExitSatisfied, nil
}
