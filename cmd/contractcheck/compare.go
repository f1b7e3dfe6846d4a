package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

const compareLong = `Compare puts decoder policies and null policies side by side on the same captured carriers.

Decoder policies: every declared target field of every structured fixture (a JSON pointer into
structuredContent) is read at every lane, configuration and captured stage, through the stage's
structured compartment, by each selected decoder policy: native-slot (only the dedicated slot:
the study's native-slot), slot-or-json-text (any present slot, else every text item parsed whole
as strict JSON), slot-then-json-text (the study's JSON-text fallback: as slot-or-json-text, but
text that is not JSON where the source has no value is the correct absence, a match, not
unparseable), or a Rego package of your own defining readout (docs/design.md). Each readout is
match, missing, wrong, ambiguous, unparseable or introduced; repetitions collapse as in check.

Null policies: the check runs under --profile and under --null-profile (strict and optional-null by
default); the bindings whose outcome differs, the atoms that changed and the divergence census
under each are reported, headed by what the second profile changes (null policy, result _meta
policy). Configurations of one lane version are compared too.

The text report opens with where the decoders differ: per lane · version · configuration × stage,
the captured readings where two decoders give different readout kinds, lane losses (every decoder
wrong or missing) left out, and those readings listed. The totals give each decoder's per-field
count beside its whole-value count (target "", one readout per captured fixture × lane × version ×
configuration × stage in the run's scope: the study's decoder unit only with the run restricted as
the study's was, --suite paper, its lanes and configurations, --stage A2 --stage M3 --stage H4).
--details adds every reading that is not a match for every decoder; the JSON report holds every
reading.

Exit codes: 0 the comparison was made; 2 usage, input or output error; 3 the instrument failed
(repetitions disagree, a policy failed, or a policy or the contracts stopped at a limit). An
exit-3 compare still writes its report: one that failed before it could compare writes a report
marked incomplete that names the failure; an exit-2 compare writes none.`

const compareExample = `  contractcheck compare
  contractcheck compare --details
  contractcheck compare --null-profile withhold-private-meta
  contractcheck compare --decoder slot-or-json-text --format json --output compare.json
  contractcheck compare --policies ./my-policies --decoder native-slot,my.decoders.first_item`

// compareParams are the flags of compare.
type compareParams struct {
	compare.Options
	out output[*compare.Report]
	// details adds, in text, every reading that is not a match for every decoder.
	details bool
	// progress says whether progress is shown on standard error.
	progress progressFlags
}

func newCompareCommand() *cobra.Command {
	var p compareParams
	cmd := &cobra.Command{
		Use:     "compare",
		Short:   "Compare decoder policies and null policies on the same captured carriers",
		Long:    compareLong,
		Example: compareExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitWith(runCompare(cmd.Context(), p, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	addInputFlags(cmd, &p.Options.Options)
	addObservationsFlag(cmd, &p.Options.Options)
	cmd.Flags().StringVar(&p.NullProfile, "null-profile", compare.DefaultNullProfile, "profile whose null policy is compared with --profile's")
	cmd.Flags().StringSliceVar(&p.Decoders, "decoder", nil, "decoder policies to compare: names (native-slot, slot-or-json-text, slot-then-json-text) or Rego packages (default: every contractcheck.decoders package)")
	addOutputFlags(cmd, &p.out, compare.Outputters(), outputSpec{what: "report", format: "text"})
	cmd.Flags().BoolVarP(&p.details, "details", "v", false, "text: list every reading that is not a match for every decoder (lane losses included), not only where the decoders differ")
	addScopeFlags(cmd, &p.Scope)
	addProgressFlags(cmd, &p.progress)
	return cmd
}

// runCompare runs a compare and writes its report; it returns the exit code the report calls for.
func runCompare(ctx context.Context, p compareParams, stdout, stderr io.Writer) (int, error) {
	out, err := p.out.resolve(report.Options{Details: p.details}, inputsOf(p.Options.Options))
	if err != nil {
		return result.ExitInputError, err
	}
	ctx, meter := p.progress.start(ctx, stderr, "compare", "records")
	r, err := compare.Run(ctx, p.Options)
	meter.Stop() // the bar is gone before the report is written
	if err != nil {
		if result.IsInstrumentFailure(err) {
			// The report still goes out, naming the failure, past the memory budget too (the run
			// may have failed at it); the error is the run's, as it is without a report.
			if werr := writeFailedCompare(stdout, p, err); werr != nil {
				err = fmt.Errorf("%w\n(the report naming this failure was not written: %w)", err, werr)
			}
		}
		return result.ExitCode(err), err
	}
	if err := p.out.write(stdout, out, r); err != nil {
		return result.ExitCode(err), err // a report stopped at the memory budget is exit 3
	}
	return r.ExitCode(), nil
}

// writeFailedCompare writes the report of a compare that failed with err, an instrument failure,
// before it could compare (compare.Failed), in the format and to the file asked for.
func writeFailedCompare(stdout io.Writer, p compareParams, err error) error {
	f, ferr := p.out.formats.Unbudgeted(p.out.Format, report.Options{})
	if ferr != nil {
		return ferr
	}
	profile := p.Profile
	if profile == "" {
		profile = inputs.DefaultProfile
	}
	var scope *result.Scope
	if s := p.Scope; !s.IsZero() {
		scope = &s
	}
	return p.out.write(stdout, f, compare.Failed(profile, scope, err))
}
