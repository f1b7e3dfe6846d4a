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
and with the same custom builtins as check. It exits 1 when a test fails and 2 when the policies do
not compile.`

func newTestCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "test",
		Short: "Run the Rego unit tests of the policies",
		Long:  testLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code, err := runTest(cmd.Context(), dir, cmd.OutOrStdout())
			if err != nil || code != 0 {
				return &exitError{code: code, err: err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "policies", "", "directory of Rego policies (default: built-in)")
	return cmd
}

func runTest(ctx context.Context, dir string, stdout io.Writer) (int, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	d := check.Builtin("policies")
	if dir != "" {
		d = check.UserDir(dir)
	}
	eng, err := policy.Load(d.FS, d.Root, d.Display)
	if err != nil {
		return report.ExitInputError, err
	}
	results, err := eng.RunTests(ctx)
	if err != nil {
		return failureCode(err), err
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
