package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

const inspectLong = `Inspect shows what a run reads, as the run reads it.

inspect fixture ID prints the fixture's entry in use: its suite, family, revision, tasks (a task's
appliesTo included), decoder targets and source file with its sha256, and where the entry came
from — a catalogue entry (file:line:col) or, for a source no catalogue entry names, derived from the
source file itself (docs/uncatalogued.md). It reads the same layers a check does.

Exit codes: 0 printed; 2 usage or input error (an unknown fixture names the fixtures there are).`

const inspectFixtureExample = `  contractcheck inspect fixture C01
  contractcheck inspect fixture MYPROD-1 --fixtures ./my-results --format json`

func newInspectCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Show what a run reads: a fixture's entry in use and where it came from",
		Long:  inspectLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &exitError{code: result.ExitInputError, err: fmt.Errorf("inspect: name what to inspect (contractcheck inspect fixture ID)")}
		},
	}
	cmd.AddCommand(newInspectFixtureCommand())
	return cmd
}

// inspectFixtureParams are the flags of inspect fixture.
type inspectFixtureParams struct {
	instrument.Options
	out output[instrument.Entry]
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
			if err := runInspectFixture(cmd.Context(), p, args[0], cmd.OutOrStdout()); err != nil {
				return &exitError{code: result.ExitCode(err), err: err}
			}
			return nil
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
	e, err := in.Entry(id)
	if err != nil {
		return err
	}
	return p.out.write(stdout, f, e)
}

// inspectFixtureOutputters are inspect fixture's formats.
var inspectFixtureOutputters = report.Registry[instrument.Entry]{
	"text": report.Fixed[instrument.Entry](entryText{}),
	"json": report.Fixed[instrument.Entry](entryJSON{}),
}

// entryText writes an entry for a reader, one field a line, every string escape.Terminal (a
// file name or a doc may hold anything), through an escape.LogWriter.
type entryText struct{}

// Output implements report.Formatter.
func (entryText) Output(w io.Writer, e instrument.Entry) error {
	var b strings.Builder
	from := "catalogue entry at " + e.At
	if e.Origin == "derived" {
		from = "derived from its source (no catalogue entry names it)"
	}
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "(none)"
		}
		q := make([]string, len(xs))
		for i, x := range xs {
			if x == "" {
				x = `"" (the whole value)`
			}
			q[i] = escape.Terminal(x)
		}
		return strings.Join(q, ", ")
	}
	fmt.Fprintf(&b, "fixture %s: %s\n", escape.Terminal(e.ID), escape.Terminal(from))
	fmt.Fprintf(&b, "  suite      %s\n", escape.Terminal(e.Suite))
	fmt.Fprintf(&b, "  family     %s\n", escape.Terminal(e.Family))
	fmt.Fprintf(&b, "  revision   %s\n", escape.Terminal(e.Revision))
	fmt.Fprintf(&b, "  tasks      %s\n", list(e.Tasks))
	fmt.Fprintf(&b, "  targets    %s\n", list(e.Targets))
	if len(e.Holds) > 0 {
		fmt.Fprintf(&b, "  holds      %s\n", list(e.Holds))
	}
	if len(e.PrivateMeta) > 0 {
		fmt.Fprintf(&b, "  private    %s\n", list(e.PrivateMeta))
	}
	fmt.Fprintf(&b, "  source     %s\n", escape.Terminal(e.Source))
	fmt.Fprintf(&b, "  sha256     %s\n", escape.Terminal(e.Sha256))
	fmt.Fprintf(&b, "  doc        %s\n", escape.Terminal(e.Doc))
	lw := escape.NewLogWriter(w)
	if _, err := io.WriteString(lw, b.String()); err != nil {
		return fmt.Errorf("write the entry: %w", err)
	}
	return lw.Flush()
}

// entryJSON writes an entry as JSON (report.WriteJSON).
type entryJSON struct{}

// Output implements report.Formatter.
func (entryJSON) Output(w io.Writer, e instrument.Entry) error { return report.WriteJSON(w, e) }
