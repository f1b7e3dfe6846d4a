package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

const mutateLong = `Mutate writes challenge cases: from a fixture's source (W0) and one lane stage's captured record
it derives faults (a semantic change a named task must detect) and controls (a change of
representation every task must accept), one file each under DIR/cases/, with the source under
DIR/sources/. Run it several times with one --output to build a suite; run the suite with
contractcheck challenge DIR.

Operators find what they change through the lane stage's compartment binding, so they apply to
any lane whose binding reads the atom; one that does not apply is skipped with its reason. Their
choices (which blocks, which byte, which member) are drawn from --seed and written in each case.
The record must pass every task of the fixture under the selected contract set.

--source replaces the catalogued source by a W0 document of your own for the fixture (its catalog
entry gives the revision, family and tasks); it needs a control lane (direct), whose carrier is
W0 read back unchanged.

--output must be a new or empty directory, or a suite (only cases/*.json and sources/*.json):
anything else there is refused (exit 2) unless --force. No file is ever written through a
symbolic link that leads out of the directory.`

const mutateExample = `  contractcheck mutate --fixture C16 --lane direct --stage A2 --output ./suite
  contractcheck mutate --fixture C11 --lane agent-framework --stage A2 --operators dataurl-vs-base64 --output ./suite
  contractcheck mutate --list`

type mutateParams struct {
	mutate.Options
	list bool
}

func newMutateCommand() *cobra.Command {
	var p mutateParams
	cmd := &cobra.Command{
		Use:     "mutate",
		Short:   "Write challenge cases (faults and controls) derived from a captured record",
		Long:    mutateLong,
		Example: mutateExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := laneAt(cmd, &p.Lane, &p.Configuration); err != nil {
				return inputError(err)
			}
			return exitWith(runMutate(cmd.Context(), p, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	addInputFlags(cmd, &p.Options.Options)
	f := cmd.Flags()
	addObservationsFlag(cmd, &p.Options.Options)
	f.StringVar(&p.Fixture, "fixture", "", "fixture id of the source (required)")
	f.StringVar(&p.Lane, "lane", "", "lane whose record is mutated, or LANE@CONFIGURATION (required)")
	f.StringVar(&p.Stage, "stage", "", "stage of the record: D1, A2, M3 or H4 (required)")
	f.StringVar(&p.LaneVersion, "lane-version", "", "lane version of the record (default: the first found)")
	f.StringVar(&p.Configuration, "configuration", "default", "lane configuration of the record")
	f.StringVar(&p.Source, "source", "", "a W0 document of your own standing for the fixture (control lane only)")
	f.StringSliceVar(&p.Operators, "operators", nil, "operators to apply, comma-separated (default: all)")
	f.Uint64Var(&p.Seed, "seed", 1, "seed of the operators' choices")
	f.StringVar(&p.Output, "output", "", "suite directory to write cases/ and sources/ into (required): empty, new, or a suite")
	f.BoolVar(&p.Force, "force", false, "write into an --output that holds more than a suite (never through a symbolic link out of it)")
	f.BoolVar(&p.list, "list", false, "list the operators and exit")
	return cmd
}

func runMutate(ctx context.Context, p mutateParams, stdout, stderr io.Writer) (int, error) {
	if p.list {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "operator\tkind\ttasks\twhat it does")
		for _, o := range mutate.Operators() {
			tasks := "every task"
			if o.Kind == mutate.Fault {
				tasks = fmt.Sprint(o.Tasks)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Name, o.Kind, tasks, o.Doc)
		}
		return result.ExitSatisfied, tw.Flush()
	}
	for flag, v := range map[string]string{"--fixture": p.Fixture, "--lane": p.Lane, "--stage": p.Stage, "--output": p.Output} {
		if v == "" {
			return result.ExitInputError, fmt.Errorf("%s is required (see contractcheck mutate --help)", flag)
		}
	}
	// The suite gets files under cases/ and sources/: neither may be, hold or lie in an input.
	inputs := inputsOf(p.Options.Options, p.Source)
	for _, sub := range []string{"cases", "sources"} {
		if err := safeio.CheckOutputDir(filepath.Join(p.Output, sub), inputs); err != nil {
			return result.ExitInputError, err
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	sum, err := mutate.Generate(ctx, p.Options)
	if sum != nil {
		for _, s := range sum.Skips {
			fmt.Fprintf(stderr, "skip %s: %s\n", s.Operator, escape.Terminal(s.Reason))
		}
	}
	if err != nil {
		return result.ExitCode(err), err
	}
	faults := 0
	for _, c := range sum.Cases {
		if c.Kind == mutate.Fault {
			faults++
		}
		fmt.Fprintf(stdout, "%s\t%s %s\t%s\n", escape.Terminal(c.ID), c.Kind, c.Task, escape.Terminal(c.Description))
	}
	fmt.Fprintf(stdout, "wrote %d cases (%d faults, %d controls) to %s\n", len(sum.Cases), faults, len(sum.Cases)-faults, escape.Terminal(p.Output))
	return result.ExitSatisfied, nil
}
