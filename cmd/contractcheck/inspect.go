package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/inspect"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

const inspectLong = `Inspect shows what a run reads, as the run reads it.

inspect fixture ID prints the fixture's entry in use: its suite, family, revision, the source
binding its source is read through (its revision's, and where that is written), tasks (a task's
appliesTo included), decoder targets and source file with its sha256, and where the entry came
from — a catalogue entry (file:line:col) or, for a source no catalogue entry names, derived from the
source file itself (docs/uncatalogued.md). It reads the same layers a check does.

inspect record prints, for one observation record, what each of its tasks' policies is given and
gives back: the policy input exactly as the policy reads it (the task, the stage, the fixture, the
contract, the source view and the observed view, docs/design.md "The canonical view"), then the
outcome, the readout and the diagnostics. Name the record by FILE:LINE, as a report shows it
(builtin:fixtures/observations/adk-go/v1.7.0/default.jsonl:6, or a path of your own), or by its
position: --fixture, --lane, --version, --configuration, --stage (names or globs) and
--repetition; every record that matches is printed, at most 100. A record that was not captured
has no input: its state is every task's outcome.

inspect traffic prints one probe run's exchanges, as probe --traffic kept them: every MCP message,
provider request and response and observe hook call of the run, in the order they arrived, with
headers (credentials redacted) and bodies. Name the run by its file
(DIR/traffic/<lane>/<version>/<configuration>/<fixture>/<repetition>.ndjson) or by
--probe-output DIR, --fixture and --repetition. Every string is escaped for the terminal (a byte
that is not UTF-8 as \xNN); --format json gives the bytes exactly (docs/probe.md, "Traffic").

Exit codes: 0 printed; 2 usage or input error (an unknown fixture names the fixtures there are, a
record that cannot be read names its file and line, no record matches, no traffic of the run);
3 a policy failed.`

const inspectFixtureExample = `  contractcheck inspect fixture C01
  contractcheck inspect fixture MYPROD-1 --fixtures ./my-results --format json`

const inspectRecordExample = `  contractcheck inspect record builtin:fixtures/observations/adk-go/v1.7.0/default.jsonl:6
  contractcheck inspect record --fixture C05 --lane adk-go --version v1.7.0 --stage A2 --format json
  contractcheck inspect record captures/my-agent/1.0/default.jsonl:3 --contracts my-layer --policies my-layer --profile my-layer`

func newInspectCommand() *cobra.Command {
	return groupCommand(&cobra.Command{
		Use:   "inspect",
		Short: "Show what a run reads: a fixture's entry, a record's policy inputs and verdicts, a probe run's traffic",
		Long:  inspectLong,
	}, "inspect: name what to inspect (contractcheck inspect fixture ID, inspect record FILE:LINE, or inspect traffic FILE)",
		newInspectFixtureCommand(), newInspectRecordCommand(), newInspectTrafficCommand())
}

// inspectFixtureParams are the flags of inspect fixture.
type inspectFixtureParams struct {
	inputs.Options
	out output[inspect.Entry]
}

func newInspectFixtureCommand() *cobra.Command {
	var p inspectFixtureParams
	cmd := &cobra.Command{
		Use:     "fixture ID",
		Short:   "Print a fixture's entry in use (catalogued or derived from its source) and where it came from",
		Long:    inspectLong,
		Example: inspectFixtureExample,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitOn(runInspectFixture(cmd.Context(), p, args[0], cmd.OutOrStdout()))
		},
	}
	addInputFlags(cmd, &p.Options)
	addOutputFlags(cmd, &p.out, inspectFixtureOutputters, outputSpec{what: "entry", format: "text"})
	return cmd
}

// runInspectFixture loads the instrument as a check would and writes fixture id's entry.
func runInspectFixture(ctx context.Context, p inspectFixtureParams, id string, stdout io.Writer) error {
	f, err := p.out.resolve(report.Options{}, inputsOf(p.Options))
	if err != nil {
		return err
	}
	in, err := instrument.Load(ctx, p.Options)
	if err != nil {
		return err
	}
	e, err := inspect.Fixture(in, id)
	if err != nil {
		return err
	}
	return p.out.write(stdout, f, e)
}

// maxInspected bounds how many records inspect record prints: a selection that matches more is
// refused, never cut short.
const maxInspected = 100

// inspectRecordParams are the flags of inspect record.
type inspectRecordParams struct {
	inputs.Options
	repetition int
	out        output[inspection]
}

// inspection is what inspect record prints: the records named, each with its tasks' inputs and
// verdicts.
type inspection struct {
	Records []inspect.Inspection `json:"records"`
}

func newInspectRecordCommand() *cobra.Command {
	var p inspectRecordParams
	cmd := &cobra.Command{
		Use:     "record [FILE:LINE]...",
		Short:   "Print each task's policy input for a record, with its outcome, readout and diagnostics",
		Long:    inspectLong,
		Example: inspectRecordExample,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitOn(runInspectRecord(cmd.Context(), p, args, cmd.OutOrStdout()))
		},
	}
	addInputFlags(cmd, &p.Options)
	addObservationsFlag(cmd, &p.Options)
	addScopeFlags(cmd, &p.Scope)
	cmd.Flags().IntVar(&p.repetition, "repetition", 0, "only this repetition (default: every one)")
	addOutputFlags(cmd, &p.out, inspectRecordOutputters, outputSpec{what: "inspection", format: "text"})
	return cmd
}

// runInspectRecord loads the instrument as a check would, finds the records named by args
// (FILE:LINE) or by the scope flags, and writes each one's inspection.
func runInspectRecord(ctx context.Context, p inspectRecordParams, args []string, stdout io.Writer) error {
	f, err := p.out.resolve(report.Options{}, inputsOf(p.Options))
	if err != nil {
		return err
	}
	type place struct {
		file string
		line int
	}
	var places []place
	for _, a := range args {
		i := strings.LastIndexByte(a, ':')
		n, convErr := strconv.Atoi(a[i+1:])
		if i <= 0 || convErr != nil || n < 1 {
			return &result.InputError{Err: fmt.Errorf("inspect record: %s is not FILE:LINE (a record's place, as a report shows it)", escape.Terminal(a))}
		}
		places = append(places, place{a[:i], n})
	}
	s := p.Scope
	if len(places) == 0 && len(s.Fixtures)+len(s.Lanes)+len(s.Versions)+len(s.Configurations)+len(s.Stages)+len(s.Suites) == 0 && p.repetition == 0 {
		return &result.InputError{Err: fmt.Errorf("inspect record: name a record: FILE:LINE, or its position (--fixture, --lane, --version, --configuration, --stage, --repetition)")}
	}
	if p.repetition < 0 {
		return &result.InputError{Err: fmt.Errorf("inspect record: --repetition %d: a repetition counts from 1", p.repetition)}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	in, err := instrument.Load(ctx, p.Options)
	if err != nil {
		return err
	}
	rep := func(r *instrument.Record) bool { return p.repetition == 0 || r.Repetition == p.repetition }
	var recs []*instrument.Record
	if len(places) == 0 {
		if recs, err = inspect.FindRecords(ctx, in, "", rep); err != nil {
			return result.AsInput(err)
		}
		if len(recs) == 0 {
			return &result.InputError{Err: fmt.Errorf("inspect record: no record within --fixture, --lane, --version, --configuration, --stage, --suite and --repetition (records: %s)", in.Options().DescribeObservations())}
		}
	}
	for _, pl := range places {
		found, err := inspect.FindRecords(ctx, in, pl.file, func(r *instrument.Record) bool { return r.Line == pl.line && rep(r) })
		if err != nil {
			return result.AsInput(err)
		}
		if len(found) == 0 {
			return &result.InputError{Err: fmt.Errorf("inspect record: %s:%d: no record there within the run's scope (a blank line, past the end, or outside --fixture, --lane, … and --repetition)", escape.Terminal(pl.file), pl.line)}
		}
		recs = append(recs, found...)
	}
	if len(recs) > maxInspected {
		return &result.InputError{Err: fmt.Errorf("inspect record: %d records match; inspect prints at most %d: narrow the selection (--fixture, --lane, --version, --configuration, --stage, --repetition, or FILE:LINE)", len(recs), maxInspected)}
	}
	var out inspection
	for _, r := range recs {
		ins, err := inspect.Record(ctx, in, r)
		if err != nil {
			return err
		}
		out.Records = append(out.Records, ins)
	}
	return p.out.write(stdout, f, out)
}
