package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/challenge"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

const challengeLong = `Challenge runs a suite of faults and controls against the oracle (the selected contract set:
built-in unless --contracts and --policies say otherwise) and reports the faults detected, the
controls accepted and every misclassified case with its diagnostics. Beside the oracle it scores
two baselines on the same cases: schema-only (accepts any schema-valid carrier) and a
channel-insensitive recursive search (finds a source value anywhere in the carrier).

SUITE is a suite directory (cases/ and sources/, see fixtures/challenge/README.md) or the name of
a built-in suite: ` + "`alpha`, `beta`" + `.

Every case is validated before anything runs: the case against
schemas/contractcheck/challenge-case.schema.json, its source against the MCP schema of its
fixture's revision, its record as check validates observation records.

--score reports the mutation score by operator (for each fault operator, whether the contract set
detects it or is blind to it) and exits 0 whatever the classification: use it to see what a custom
contract set cannot distinguish.

Exit codes: 0 every case classified as expected (or --score); 2 usage, input or output error; 3 a
case misclassified by the oracle, a policy that failed, or a policy or the contracts stopped at a
limit.`

const challengeExample = `  contractcheck challenge alpha
  contractcheck challenge ./my-suite --format json --output challenge.json
  contractcheck challenge beta --contracts ./my-contracts --policies ./my-policies --score`

type challengeParams struct {
	inputs.Options
	out   output[*challenge.Report]
	score bool
	// progress says whether progress is shown on standard error.
	progress progressFlags
}

func newChallengeCommand() *cobra.Command {
	var p challengeParams
	cmd := &cobra.Command{
		Use:     "challenge SUITE",
		Short:   "Run a fault/control suite against the oracle and two baselines",
		Long:    challengeLong,
		Example: challengeExample,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(runChallenge(cmd.Context(), p, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	addInputFlags(cmd, &p.Options)
	addOutputFlags(cmd, &p.out, challenge.Outputters(), outputSpec{what: "report", format: "text"})
	addProgressFlags(cmd, &p.progress)
	cmd.Flags().BoolVar(&p.score, "score", false, "report the mutation score by operator and exit 0 whatever the classification")
	return cmd
}

func runChallenge(ctx context.Context, p challengeParams, suite string, stdout, stderr io.Writer) (int, error) {
	out, err := p.out.resolve(report.Options{}, inputsOf(p.Options, existingDir(suite)))
	if err != nil {
		return result.ExitInputError, err
	}
	ctx, meter := p.progress.start(ctx, stderr, "challenge", "cases")
	r, err := challenge.Run(ctx, challenge.Options{Options: p.Options, Suite: suite})
	meter.Stop() // the bar is gone before the report is written
	if err != nil {
		return result.ExitCode(err), err
	}
	if err := p.out.write(stdout, out, r); err != nil {
		return result.ExitInputError, err
	}
	if len(r.Misclassified()) > 0 && !p.score {
		return result.ExitInstrument, nil
	}
	return result.ExitSatisfied, nil
}
