package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/checkreport"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
)

const checkLong = `Check runs the selected profile's contracts on every observation record and gates on the result.

Each record (fixture, lane, version, configuration, stage, repetition) is validated, its carrier
projected through the lane's compartment bindings, and every task of the fixture evaluated by its
Rego policy against the W0 source. Repetitions collapse when they agree; unmet bindings carry
diagnostics; a pass followed by an unmet is localized; divergences between lanes are counted.

With no flags it runs the built-in profile (strict) on the built-in contracts, policies and data.
Contracts, policies, carrier schemas and fixtures are layers: each --contracts, --policies,
--schemas or --fixtures directory adds to the built-in layer (--no-builtin starts empty), so a
custom task or profile is a directory of its own beside the built-ins (contractcheck init).

--lane, --version, --configuration, --stage, --suite, --fixture and --task restrict the run to some
bindings (names or globs, repeatable). --lane LANE@CONFIGURATION picks one lane's configuration and
leaves the other lanes to --configuration: --configuration default --lane direct --lane
openai-agents@application-context judges direct at default and openai-agents at application-context
only. A profile may carry such a selection (its cohort): --profile study judges the study's cohort,
the four Python framework lanes and direct on suite paper, openai-agents at application-context
(the study's A2); the flags narrow it further.

The gate is never satisfied by nothing: a profile without requirements, a requirement that
selects no binding and a run without records are errors (exit 2), and any unstable binding fails
the instrument (exit 3).

With --decision-logs the verdicts are not evaluated here but read from OPA decision logs of the
contract set's bundle (contractcheck bundle, served by a stock OPA with decision logging): the
census, the gate and the report are check's own. The expected bindings are what was posted (the
suites the logs hold decisions of at each lane, version, configuration and stage they hold
decisions at, narrowed by the run's scope), or the records' with --observations; a census that
lacks any of them, or holds decisions that are errors or on a fixture never recorded (no
--fixtures layer holds its source; each named with its file and line), gives no verdict (gate
verdict incomplete, exit 2) and the report lists what is lacking (docs/opa.md).

With --census-out DIR the run's census (every reading, part by part, each part written durably
before its name exists) is written to DIR; --census DIR reports on such a census instead of
records, at any time (a census still being written gives no verdict: gate verdict incomplete,
exit 2), and --census repeated on their union, as one run over all their inputs: repetitions
collapse and the gate is applied after the merge (docs/production.md). A census names the digest
of the contract set that made it (its layers' bytes, the profile, --revision): one of another
contract set, or of an older contractcheck that named none, is refused (exit 2). A census collect --census
folds OPA's uploads into is read at any time, as --decision-logs reads collect's batches: the same
expected bindings and lacking list, and the note says the batches it covers. --census-out with
censuses of decision logs, or with --decision-logs, writes a compacted census of decision logs
(their union, marked complete; its header keeps each collector's window) that --census reads to
the same report.

Exit codes: 0 the profile is satisfied; 1 a required contract is unmet; 2 usage, input or output
error, the gate selected nothing, or decision logs lack expected bindings or hold decisions that
are errors; 3 the instrument
failed (repetitions disagree, a policy failed or broke the policy interface, or a policy or the
contracts stopped at --eval-timeout, --load-timeout or --memory-budget). An exit-3 run still
writes its report, to --output or standard output: one that failed before its verdict writes a
report marked incomplete that names the failure. An exit-2 gate verdict (the gate selected
nothing, or decision logs lack expected bindings) writes its whole report too, which says why, so
a CI step uploading it finds one; any other exit-2 run (usage, bad input, lock drift, an
unwritable --output) writes none and leaves a previous --output file as it was.`

const checkExample = `  contractcheck check
  contractcheck check --profile optional-null --format json --output report.json
  contractcheck check --profile study
  contractcheck check --suite paper --configuration default --lane direct --lane openai-agents@application-context
  contractcheck init my-layer && contractcheck check --contracts my-layer --policies my-layer --profile my-layer
  contractcheck check --contracts ./my-contracts --policies ./my-policies --observations ./captures
  contractcheck check --decision-logs opa-console.log --lane go-sdk --fixture 'C0*'
  contractcheck check --stage D1 --census-out d1 && contractcheck check --stage A2 --stage M3 --stage H4 --census-out rest && contractcheck check --census d1 --census rest`

// checkParams are the flags of check.
type checkParams struct {
	inputs.Options
	out     output[*result.Report]
	details bool
	noCache bool
	// locked compares the inputs with lockFile before the run and refuses any drift.
	locked   bool
	lockFile string
	// decisionLogs are OPA decision logs of the contract set's bundle to take the verdicts from.
	decisionLogs []string
	// censuses are census directories to report on (their union) instead of records.
	censuses []string
	// censusOut is the directory the run's census is written to.
	censusOut string
	// stdin is the command's input stream, for --decision-logs -.
	stdin io.Reader
	// progress says whether progress is shown on standard error.
	progress progressFlags
	// getenv reads the environment the text style follows (os.Getenv when nil).
	getenv func(string) string
}

func newCheckCommand() *cobra.Command {
	var p checkParams
	cmd := &cobra.Command{
		Use:     "check",
		Short:   "Check observation records against a profile's contracts (the CI gate)",
		Long:    checkLong,
		Example: checkExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.locked = lockedRun(cmd, p.locked)
			return exitWith(runCheck(cmd.Context(), p, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	addInputFlags(cmd, &p.Options)
	addObservationsFlag(cmd, &p.Options)
	addOutputFlags(cmd, &p.out, report.Outputters(), outputSpec{what: "report", format: "text"})
	addScopeFlags(cmd, &p.Scope)
	addLockFlags(cmd, &p.locked, &p.lockFile)
	addProgressFlags(cmd, &p.progress)
	cmd.Flags().BoolVar(&p.noCache, "no-cache", false, "run the check even when an unchanged run's output is cached (CONTRACTCHECK_CACHE=off turns the cache off)")
	cmd.Flags().BoolVarP(&p.details, "details", "v", false, "text: every diagnostic, the per-task matrices and the boundaries; table: every binding")
	cmd.Flags().StringArrayVar(&p.decisionLogs, "decision-logs", nil, "take the verdicts from OPA decision logs of the contract set's bundle: a file, a directory of them, or - for standard input (repeatable; docs/opa.md)")
	cmd.Flags().StringArrayVar(&p.censuses, "census", nil, "report on a census directory (one check --census-out or collect --census wrote; read while it is written, as far as its whole parts go) instead of records; repeated: on the union of them, as one run over all their inputs (docs/production.md)")
	cmd.Flags().StringVar(&p.censusOut, "census-out", "", "also write the run's census (its readings, part by part, durably) to this new directory, for check --census; with --census: their union; with --decision-logs or censuses of decision logs: a compacted census of them")
	observations := cmd.PreRun
	cmd.PreRun = func(cmd *cobra.Command, args []string) {
		observations(cmd, args)
		p.stdin = cmd.InOrStdin()
	}
	return cmd
}

// addScopeFlags binds the filters that restrict a run to some bindings (names or globs).
func addScopeFlags(cmd *cobra.Command, s *result.Scope) {
	f := cmd.Flags()
	f.StringArrayVar(&s.Lanes, "lane", nil, "only this lane; LANE@CONFIGURATION: that lane at that configuration only, whatever --configuration says (repeatable; names or globs)")
	f.StringArrayVar(&s.Versions, "version", nil, "only this lane version (repeatable; names or globs)")
	f.StringArrayVar(&s.Configurations, "configuration", nil, "only this configuration, for the lanes --lane names without one (repeatable; names or globs)")
	f.StringArrayVar(&s.Stages, "stage", nil, "only this stage: D1, A2, M3, H4 (repeatable; names or globs)")
	f.StringArrayVar(&s.Suites, "suite", nil, "only the fixtures of this suite (repeatable; names or globs)")
	f.StringArrayVar(&s.Fixtures, "fixture", nil, "only this fixture (repeatable; names or globs)")
	f.StringArrayVar(&s.Tasks, "task", nil, "only this task (repeatable; names or globs)")
}

// laneAt reads the --lane of a verb that names one position (mutate, reproduce, inspect traffic)
// when it names its configuration too, LANE@CONFIGURATION as the scope flags take it: lane and
// configuration become its two parts. A --configuration given beside it must say the same.
func laneAt(cmd *cobra.Command, lane, configuration *string) error {
	if !strings.Contains(*lane, contract.LaneConfigSep) {
		return nil
	}
	l, c, _, err := contract.SplitLaneEntry(*lane)
	if err != nil {
		return &result.InputError{Err: fmt.Errorf("--lane %q: %w", *lane, err)}
	}
	if cmd.Flags().Changed("configuration") && *configuration != c {
		return &result.InputError{Err: fmt.Errorf("--lane %q names configuration %q, --configuration %q: give one", *lane, c, *configuration)}
	}
	*lane, *configuration = l, c
	return nil
}

// addInputFlags binds the flags every verb that reads the contract set shares.
func addInputFlags(cmd *cobra.Command, o *inputs.Options) {
	cmd.Flags().StringVar(&o.Profile, "profile", inputs.DefaultProfile, "profile (named contract set) to check")
	addLayerFlags(cmd, o)
	cmd.Flags().StringArrayVar(&o.Fixtures, "fixtures", nil, "directory holding sources/<suite>/<id>.json and observations/, added to the built-in fixtures (repeatable)")
	cmd.Flags().StringArrayVar(&o.Schemas, "schemas", nil, "directory holding carriers/<name>.schema.json or mcp/<revision>/schema.json (an MCP revision of its own), added to the built-in schemas (repeatable)")
	cmd.Flags().BoolVar(&o.NoBuiltin, "no-builtin", false, "leave the built-in contracts, policies and fixtures out: only the given layers are read")
	addRevisionFlag(cmd, o)
}

// addRevisionFlag binds --revision: the MCP revision of the sources no catalogue entry names.
func addRevisionFlag(cmd *cobra.Command, o *inputs.Options) {
	cmd.Flags().StringVar(&o.Revision, "revision", "", fmt.Sprintf("MCP revision of the --fixtures sources no catalogue entry names: one a schema layer holds (built in: %s; a --schemas directory adds more) (default %s; docs/uncatalogued.md)", strings.Join(inputs.BuiltinRevisions(), ", "), schema.DefaultRevision))
}

// addLayerFlags binds the repeatable --contracts and --policies layers.
func addLayerFlags(cmd *cobra.Command, o *inputs.Options) {
	cmd.Flags().StringArrayVar(&o.Contracts, "contracts", nil, "directory of CUE contract files, added to the built-in contracts (repeatable)")
	cmd.Flags().StringArrayVar(&o.Policies, "policies", nil, "directory of Rego policies, added to the built-in policies (repeatable)")
}

// addObservationsFlag binds --observations for the verbs that read observation records; "-" is
// standard input, which the command's input stream supplies.
func addObservationsFlag(cmd *cobra.Command, o *inputs.Options) {
	cmd.Flags().StringArrayVar(&o.Observations, "observations", nil, "directory of .jsonl observation records, or - for JSONL on standard input (repeatable; default: the observations/ of each fixture layer)")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) { o.Stdin = inputs.NewStdin(cmd.InOrStdin()) }
}

// runCheck runs a check (checkreport.Execute: check.Execute, rendered) and writes its report; it returns the exit code the
// report calls for and, when the gate selected nothing or the instrument failed, the error that
// says why.
func runCheck(ctx context.Context, p checkParams, stdout, stderr io.Writer) (int, error) {
	getenv := p.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	style := report.StyleFor(stdout, getenv)
	if p.out.toFile() {
		style.Color = false // a file is read later, not on this terminal
	}
	opts := report.Options{Details: p.details, Style: style, ToolVersion: toolVersion()}
	if _, err := p.out.resolve(opts, inputsOf(p.Options)); err != nil {
		return result.ExitInputError, err
	}
	req := checkreport.Request{Check: check.Request{Options: p.Options}, Format: p.out.Format, Render: opts, NoCache: p.noCache}
	if len(p.decisionLogs) > 0 {
		if slices.Contains(p.decisionLogs, inputs.StdinArg) && slices.Contains(p.Observations, inputs.StdinArg) {
			return result.ExitInputError, &result.InputError{Err: fmt.Errorf("--decision-logs - and --observations - both read standard input: it is read once")}
		}
		req.Check.DecisionLogs = &check.DecisionLogs{Paths: p.decisionLogs, Stdin: p.stdin}
	}
	if len(p.censuses) > 0 {
		if len(p.decisionLogs) > 0 || len(p.Observations) > 0 {
			return result.ExitInputError, &result.InputError{Err: fmt.Errorf("--census reads a census instead of records: give it without --observations and --decision-logs")}
		}
		req.Check.Censuses = p.censuses
	}
	if p.censusOut != "" {
		req.Check.CensusOut = p.censusOut
	}
	if p.locked {
		req.Check.LockFile, req.Check.LockTool = p.lockFile, lockToolVersion()
	}
	ctx, meter := p.progress.start(ctx, stderr, "check", "records")
	defer meter.Stop()
	o, err := checkreport.Execute(ctx, req, func(write func(io.Writer) error) error {
		meter.Stop() // the bar is gone before the report is written
		return writeOutput(p.out.File, stdout, write)
	})
	meter.Stop()
	if p.out.toFile() && o.Verdict != "" {
		// The report went to a file: the verdict still reaches the log.
		replayed := ""
		if o.Replayed {
			replayed = " (inputs unchanged: replayed from the cache)"
		}
		fmt.Fprintf(stderr, "contractcheck: %s; report written to %s%s\n", escape.Terminal(o.Verdict), escape.Terminal(p.out.File), replayed)
	}
	if o.Note != "" {
		fmt.Fprintf(stderr, "contractcheck: %s\n", escape.Terminal(o.Note))
	}
	return o.Exit, err
}
