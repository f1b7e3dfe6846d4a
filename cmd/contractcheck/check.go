package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/report"
)

const checkLong = `Check runs the selected profile's contracts on every observation record and gates on the result.

Each record (fixture, lane, version, configuration, stage, repetition) is validated, its carrier
projected through the lane's compartment bindings, and every task of the fixture evaluated by its
Rego policy against the W0 source. Repetitions collapse when they agree; unmet bindings carry
diagnostics; a pass followed by an unmet is localized; divergences between lanes are counted.

With no flags it runs the built-in profile (strict) on the built-in contracts, policies and data.

Exit codes: 0 the profile is satisfied; 1 a required contract is unmet; 2 usage, input or output
error; 3 the instrument failed (repetitions disagree, or a policy or the contracts stopped at
--eval-timeout, --load-timeout or --memory-budget).`

const checkExample = `  contractcheck check
  contractcheck check --profile optional-null --format json --output report.json
  contractcheck check --contracts ./my-contracts --policies ./my-policies --observations ./captures`

// checkParams are the flags of check.
type checkParams struct {
	check.Options
	format string
	output string
}

func newCheckCommand() *cobra.Command {
	p := checkParams{format: "text"}
	cmd := &cobra.Command{
		Use:     "check",
		Short:   "Check observation records against a profile's contracts (the CI gate)",
		Long:    checkLong,
		Example: checkExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code, err := runCheck(cmd.Context(), p, cmd.OutOrStdout())
			if err != nil || code != report.ExitSatisfied {
				return &exitError{code: code, err: err}
			}
			return nil
		},
	}
	addInputFlags(cmd, &p.Options)
	addObservationsFlag(cmd, &p.Observations)
	addOutputFlags(cmd, &p.format, &p.output, report.Formats())
	return cmd
}

// addInputFlags binds the flags every verb that reads the contract set shares.
func addInputFlags(cmd *cobra.Command, o *check.Options) {
	cmd.Flags().StringVar(&o.Profile, "profile", check.DefaultProfile, "profile (named contract set) to check")
	cmd.Flags().StringVar(&o.Contracts, "contracts", "", "directory of CUE contract files (default: built-in)")
	cmd.Flags().StringVar(&o.Policies, "policies", "", "directory of Rego policies (default: built-in)")
	cmd.Flags().StringVar(&o.Fixtures, "fixtures", "", "directory holding sources/<suite>/<id>.json (default: built-in)")
}

// addObservationsFlag binds --observations for the verbs that read observation records.
func addObservationsFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "observations", "", "directory of .jsonl observation records (default: <fixtures>/observations)")
}

// addOutputFlags binds --format (one of formats) and --output for the verbs that write a report.
func addOutputFlags(cmd *cobra.Command, format, output *string, formats []string) {
	cmd.Flags().StringVar(format, "format", "text", "output format: "+strings.Join(formats, ", "))
	cmd.Flags().StringVar(output, "output", "", "write the report to this file instead of standard output")
}

// runCheck runs a check and writes its report; it returns the exit code the report calls for.
func runCheck(ctx context.Context, p checkParams, stdout io.Writer) (int, error) {
	out, err := report.Get(p.format)
	if err != nil {
		return report.ExitInputError, err
	}
	if err := checkOutput(p.output, inputsOf(p.Options)); err != nil {
		return report.ExitInputError, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := check.Run(ctx, p.Options)
	if err != nil {
		return failureCode(err), err
	}
	if err := writeOutput(p.output, stdout, func(w io.Writer) error { return out.Output(w, r) }); err != nil {
		return report.ExitInputError, err
	}
	return r.ExitCode(), nil
}
