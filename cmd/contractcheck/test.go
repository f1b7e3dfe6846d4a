package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/report"
)

const testLong = `Test runs the Rego unit tests (rules named test_…) of a contract set's policies, in the same sandbox
and with the same custom builtins as check.

Policies are layers, as in check: every layer is loaded, so a user's tests can call built-in rules.
With --policies, the tests of the given layers run; without, the built-in tests run.

It exits 1 when a test fails and 2 when the policies do not compile.`

const testExample = `  contractcheck test
  contractcheck init my-layer && contractcheck test --policies my-layer`

// testParams are the flags of test.
type testParams struct {
	check.Options
}

func newTestCommand() *cobra.Command {
	var p testParams
	cmd := &cobra.Command{
		Use:     "test",
		Short:   "Run the Rego unit tests of the policies",
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
	cmd.Flags().StringArrayVar(&p.Policies, "policies", nil, "directory of Rego policies, added to the built-in policies; its tests run (repeatable)")
	cmd.Flags().BoolVar(&p.NoBuiltin, "no-builtin", false, "leave the built-in policies out")
	return cmd
}

func runTest(ctx context.Context, p testParams, stdout io.Writer) (int, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	layers := p.PolicyLayers()
	eng, err := policy.Load(layers, policy.LoadOptions{Tests: true})
	if err != nil {
		return report.ExitInputError, err
	}
	var opts policy.TestOptions
	if len(p.Policies) > 0 {
		for i := range layers {
			if !layers[i].Builtin {
				opts.Layers = append(opts.Layers, i)
			}
		}
	}
	results, err := eng.RunTests(ctx, opts)
	if err != nil {
		return failureCode(err), err
	}
	if len(results) == 0 {
		return report.ExitInputError, fmt.Errorf("no test_ rules in the selected policy layers: nothing was tested")
	}
	failed := 0
	for _, r := range results {
		status := "PASS"
		if !r.Pass {
			status = "FAIL"
			failed++
		}
		fmt.Fprintf(stdout, "%s %s.%s (%s)\n", status, r.Package, r.Name, r.Location)
		if r.Fail != "" {
			fmt.Fprintf(stdout, "    %s\n", r.Fail)
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", len(results)-failed, failed)
	if failed > 0 {
		return report.ExitUnmet, nil
	}
	return report.ExitSatisfied, nil
}
