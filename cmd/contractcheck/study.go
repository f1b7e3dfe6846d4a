package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/study"
)

const studyLong = `Study prints the tables of the study contractcheck is built after, computed from the observation
records in one run (docs/study.md):

  IV   pass counts per framework × stage × task (passes / bindings judged);
  V    divergences by family under both null policies: unique divergences and manifestations,
       each by family and by origin, the T1 (content, a guard) divergences, every guard
       divergence, those reported apart, and the leave-one-lane-out recount;
  VI   JSON-text matches per setting: at each lane × stage (A2 M3 H4), the captured whole-value
       readings, each decoder's matches, and the matches native-slot does not make;
  VII  decoder readouts per position: each decoder's readouts of the whole structured value
       (match, source-absent, missing, wrong, unparseable, ambiguous, introduced), counted over
       the framework lanes and, apart, the control lanes, and listed per position.

The selection is --profile's cohort (the built-in profile study: the study's four Python framework
lanes, openai-agents at application-context, the others at default, the control lane direct,
suite paper), narrowed by the scope flags as in check. The second null policy is
--null-profile's (optional-null). The decoder policies are the study's two, native-slot and
slot-then-json-text (its JSON-text fallback), unless --decoder names others. A layer's lanes,
fixtures and records join through --contracts, --policies, --fixtures and --observations and a
profile of its own with a cohort.

It is one compare run (the check under both profiles and every decoder on the same records),
arranged as the study's tables: the counts are check's and compare's.

Exit codes: 0 the tables were computed; 2 usage, input or output error, or the selection holds no
binding; 3 the instrument failed (repetitions disagree, a policy failed, a limit was reached). An
exit-3 study still writes its report, marked incomplete when it failed before it could count; an
exit-2 study writes none.`

const studyExample = `  contractcheck study
  contractcheck study --format markdown --output study.md
  contractcheck study --format json --output study.json
  contractcheck study --profile optional-null --null-profile strict --lane direct --lane openai-agents --configuration default`

// studyParams are the flags of study.
type studyParams struct {
	study.Options
	out      output[*study.Report]
	progress progressFlags
}

func newStudyCommand() *cobra.Command {
	var p studyParams
	cmd := &cobra.Command{
		Use:     "study",
		Short:   "Print the study's tables IV–VII from the records",
		Long:    studyLong,
		Example: studyExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitWith(runStudy(cmd.Context(), p, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	addInputFlags(cmd, &p.Options.Options.Options)
	profile := cmd.Flags().Lookup("profile")
	profile.DefValue, profile.Usage = study.DefaultProfile, "profile whose cohort and null policy the tables are computed under"
	p.Profile = study.DefaultProfile
	addObservationsFlag(cmd, &p.Options.Options.Options)
	cmd.Flags().StringVar(&p.NullProfile, "null-profile", compare.DefaultNullProfile, "profile of the second null policy (table V)")
	cmd.Flags().StringSliceVar(&p.Decoders, "decoder", nil, fmt.Sprintf("decoder policies of tables VI and VII: names or Rego packages (default %s, %s)", study.NativeDecoder, study.FallbackDecoder))
	addOutputFlags(cmd, &p.out, study.Outputters(), outputSpec{what: "report", format: "text"})
	addScopeFlags(cmd, &p.Scope)
	addProgressFlags(cmd, &p.progress)
	return cmd
}

// runStudy computes the study's tables and writes them; it returns the exit code the report
// calls for.
func runStudy(ctx context.Context, p studyParams, stdout, stderr io.Writer) (int, error) {
	out, err := p.out.resolve(report.Options{}, inputsOf(p.Options.Options.Options))
	if err != nil {
		return result.ExitInputError, err
	}
	ctx, meter := p.progress.start(ctx, stderr, "study", "records")
	r, err := study.Run(ctx, p.Options)
	meter.Stop()
	if err != nil {
		if result.IsInstrumentFailure(err) {
			if werr := writeFailedStudy(stdout, p, err); werr != nil {
				err = fmt.Errorf("%w\n(the report naming this failure was not written: %w)", err, werr)
			}
		}
		return result.ExitCode(err), err
	}
	if err := p.out.write(stdout, out, r); err != nil {
		return result.ExitCode(err), err
	}
	return r.ExitCode(), nil
}

// writeFailedStudy writes the report of a study that failed with err before it could count.
func writeFailedStudy(stdout io.Writer, p studyParams, err error) error {
	f, ferr := p.out.formats.Unbudgeted(p.out.Format, report.Options{})
	if ferr != nil {
		return ferr
	}
	var scope *result.Scope
	if s := p.Scope; !s.IsZero() {
		scope = &s
	}
	return p.out.write(stdout, f, study.Failed(p.Options, scope, err))
}
