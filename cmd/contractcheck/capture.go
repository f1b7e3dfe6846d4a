package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/capture"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

const captureLong = `Capture writes the observation records of a lane that needs no program to run: capture direct
writes the control lane's, every source read back unchanged.`

const captureDirectLong = `Capture direct writes the control lane's observation records (JSONL) for the sources of a
fixtures layer: each source compacted (numbers, escapes and key order kept) as the captured carrier
at D1, A2, M3 and H4, with the source's sha256 — what examples/capture/direct writes for the
built-in fixtures, byte for byte. check judges them like any lane's; the control must pass every
task, so a layer's own sources, of any revision a schema layer holds, get a baseline to compare a
framework's lane against.

The sources are those of the --fixtures layers (catalogued ones, and those no catalogue entry names,
at --revision: docs/uncatalogued.md, read through that revision's source binding, which a layer
adding a revision declares in --contracts), or with no --fixtures the built-in ones; --suite and --fixture
narrow them. Each is validated against its revision first; a bad one is an error (exit 2) and
nothing is written. The records go to --output (standard output without it), repetition by
repetition, each the fixtures in id order; check reads a layer's records from
<layer>/observations/<lane>/<version>/<configuration>.jsonl, so write them there.`

const captureDirectExample = `  contractcheck capture direct --suite paper --repetitions 1
  contractcheck capture direct --schemas my-schemas --contracts my-contracts --fixtures mine --revision DRAFT-2026-12-01 --output mine/observations/direct/v1/default.jsonl`

// captureDirectParams are the flags of capture direct.
type captureDirectParams struct {
	opts        inputs.Options
	repetitions int
	output      string
}

func newCaptureCommand() *cobra.Command {
	return groupCommand(&cobra.Command{
		Use:   "capture",
		Short: "Write the observation records of a lane that needs no program: capture direct (the control)",
		Long:  captureLong,
	}, "capture: name the lane (contractcheck capture direct)", newCaptureDirectCommand())
}

func newCaptureDirectCommand() *cobra.Command {
	var p captureDirectParams
	cmd := &cobra.Command{
		Use:     "direct",
		Short:   "Write the control lane's records for a fixtures layer's sources: each read back unchanged",
		Long:    captureDirectLong,
		Example: captureDirectExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitOn(runCaptureDirect(cmd.Context(), p, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	f := cmd.Flags()
	f.IntVar(&p.repetitions, "repetitions", 3, "records per fixture and stage, repetitions 1 to N (the built-in records have 3)")
	f.StringVar(&p.output, "output", "", "write the records to `FILE` instead of standard output; written whole or not at all, never over a source, contract or schema of the run (a fixtures layer's observations/ is where the records belong)")
	f.StringArrayVar(&p.opts.Contracts, "contracts", nil, "directory of CUE contract files (a fixture catalog), added to the built-in contracts (repeatable)")
	f.StringArrayVar(&p.opts.Fixtures, "fixtures", nil, "directory holding sources/<suite>/<id>.json: its sources are recorded (repeatable; default: the built-in fixtures)")
	f.StringArrayVar(&p.opts.Schemas, "schemas", nil, "directory holding mcp/<revision>/schema.json (an MCP revision of its own), added to the built-in schemas (repeatable)")
	f.BoolVar(&p.opts.NoBuiltin, "no-builtin", false, "leave the built-in contracts and fixtures out")
	addRevisionFlag(cmd, &p.opts)
	f.StringArrayVar(&p.opts.Scope.Suites, "suite", nil, "only the fixtures of this suite (repeatable; names or globs)")
	f.StringArrayVar(&p.opts.Scope.Fixtures, "fixture", nil, "only this fixture (repeatable; names or globs)")
	return cmd
}

// runCaptureDirect writes the records (capture.Direct) to --output or stdout, and says
// on stderr what it wrote. --output is refused, before anything is read, when it is or lies in a
// contract, schema or source directory of the run: the observations/ directory of a fixtures
// layer is where the records belong.
func runCaptureDirect(ctx context.Context, p captureDirectParams, stdout, stderr io.Writer) error {
	if err := checkOutput(p.output, captureInputs(p.opts, p.output)); err != nil {
		return &result.InputError{Err: err}
	}
	var c capture.Capture
	write := func(w io.Writer) error {
		var err error
		c, err = capture.Direct(ctx, p.opts, p.repetitions, w)
		return err
	}
	if p.output == "" {
		if err := write(stdout); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Dir(p.output), 0o755); err != nil {
		return &result.InputError{Err: fmt.Errorf("--output %s: %w", p.output, err)}
	} else if err := safeio.WriteFile(p.output, write); err != nil {
		if result.ExitCode(err) != result.ExitInputError {
			err = &result.InputError{Err: fmt.Errorf("write the records to %s: %w", p.output, err)}
		}
		return err
	}
	to := "standard output"
	if p.output != "" {
		to = p.output
	}
	fmt.Fprintf(stderr, "capture direct: %d records (%d fixtures × %d stages × %d repetitions) of lane %s %s %s written to %s\n",
		c.Records, len(c.Fixtures), len(c.Stages), c.Repetitions, c.Lane, c.Version, c.Configuration, escape.Terminal(to))
	return nil
}

// captureInputs are the directories capture direct reads, that output may not lie in: its schema
// layers, each fixtures layer's sources/ (its observations/ is where the records go), and, for an
// output named .cue, its contract layers (which it reads the .cue files of: a directory may be
// both a contracts and a fixtures layer, as docs/writing-a-contract.md's orders/ is).
func captureInputs(o inputs.Options, output string) []string {
	var out []string
	dirs := o.SchemaLayers()
	if strings.HasSuffix(output, ".cue") {
		dirs = append(dirs, o.ContractLayers()...)
	}
	for _, d := range dirs {
		if d.Local != "" {
			out = append(out, d.Local)
		}
	}
	for _, d := range o.FixtureLayers() {
		if d.Local != "" {
			out = append(out, filepath.Join(d.Local, "sources"))
		}
	}
	return out
}
