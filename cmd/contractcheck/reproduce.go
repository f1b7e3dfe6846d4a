package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/reproduce"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

const reproduceLong = `Reproduce turns an unmet binding into a test the framework's maintainers can run: it finds the
binding's first captured record, evaluates the task on it, and writes to DIR

  testdata/w0.json  the tool result as the fixture has it, byte for byte
  a test            in the framework's language and conventions (go test for a Go SDK, node --test
                    for a TypeScript framework, unittest for Python): a raw MCP server that serves the W0 bytes,
                    the seam the lane's capture program reads, and the consumer decision the loss
                    breaks as assertions ("structuredContent.sequence 9007199254740993 must reach D1
                    exactly"), held once on the direct reading of what was sent (it passes) and once
                    on what the framework hands the application (it fails while the loss exists)
  ISSUE.md          an issue body: what was sent, what arrived, which consumer decision it breaks,
                    and the stage, with the binding's basis
  README.md         what to run, where it was written or in the framework's own tests

and .contractcheck-reproduce.json, which lists the files reproduce wrote (with their SHA-256).
DIR is written whole or not at all, and never into an input of the run. DIR must be new, empty,
or hold only reproduce's own earlier output as it wrote it: any other directory with anything in
it is refused (exit 2) unless --force. With --force,
reproduce writes its files into DIR and leaves every other file there as it is: it replaces a
file only when it wrote it (the list says so and the file still has those bytes); a README.md or
ISSUE.md it did not write is kept, and any other file of the same name as one of its own, a file
that is not regular, or a symbolic link on the way to a file refuses the write (exit 2): it
never writes through a link.

The run's words (keys, values, messages, docs, the command line) reach the generated test only
as string literals its language's escaper wrote, or in testdata/checks.json (JS, Python), never
in a comment; the fixture, task, version and configuration must be identifiers of their kind.

Lanes and stages with a seam: ` + "%s" + `.

Exit codes: 0 written; 2 usage, input or output error (the binding passes, was not captured, or
its lane has no seam; DIR is not empty and --force was not given, or --force would replace a
file reproduce did not write); 3 the instrument failed.`

type reproduceParams struct {
	reproduce.Options
	output string
	force  bool
}

func newReproduceCommand() *cobra.Command {
	var p reproduceParams
	cmd := &cobra.Command{
		Use:   "reproduce --fixture F --lane L --version V --stage S --task T --output DIR [--force]",
		Short: "Write a regression test for an unmet binding, in the framework's own test conventions",
		Long:  fmt.Sprintf(reproduceLong, strings.Join(reproduce.Supported(), ", ")),
		Example: `  contractcheck reproduce --fixture C02 --lane go-sdk --version v1.8.0 --stage D1 --task T2 --output repro-go-sdk
  contractcheck reproduce --fixture C02 --lane langchain-mcp-adapters-js --version 1.1.4 --stage A2 --task T2 --output repro-lc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := laneAt(cmd, &p.Lane, &p.Configuration); err != nil {
				return inputError(err)
			}
			return exitWith(runReproduce(cmd.Context(), p, cmd.OutOrStdout()))
		},
	}
	addInputFlags(cmd, &p.Options.Options)
	addObservationsFlag(cmd, &p.Options.Options)
	f := cmd.Flags()
	f.StringVar(&p.Fixture, "fixture", "", "fixture id (required)")
	f.StringVar(&p.Lane, "lane", "", "lane, or LANE@CONFIGURATION (required)")
	f.StringVar(&p.Version, "version", "", "lane version (required)")
	f.StringVar(&p.Configuration, "configuration", "default", "lane configuration")
	f.StringVar(&p.Stage, "stage", "", "stage: D1, A2, M3 or H4 (required)")
	f.StringVar(&p.Task, "task", "", "task whose consumer decision the loss breaks (required)")
	f.StringVar(&p.output, "output", "", "directory to write the reproduction into, new or empty (required)")
	f.BoolVar(&p.force, "force", false, "write into a non-empty --output directory: keep its other files, replace only files reproduce wrote")
	return cmd
}

func runReproduce(ctx context.Context, p reproduceParams, stdout io.Writer) (int, error) {
	if p.output == "" {
		return result.ExitInputError, errors.New("--output is required (see contractcheck reproduce --help)")
	}
	if err := safeio.CheckOutputDir(p.output, inputsOf(p.Options.Options)); err != nil {
		return result.ExitInputError, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	p.Command = fmt.Sprintf("contractcheck reproduce --fixture %s --lane %s --version %s --configuration %s --stage %s --task %s",
		p.Fixture, p.Lane, p.Version, p.Configuration, p.Stage, p.Task)
	r, err := reproduce.Generate(ctx, p.Options)
	if err != nil {
		return result.ExitCode(err), err
	}
	files, kept, err := reproduce.Output(p.output, r.Files, p.force)
	if err != nil {
		return result.ExitInputError, &result.InputError{Err: err}
	}
	if err := safeio.WriteTree(p.output, files); err != nil {
		return result.ExitInputError, &result.InputError{Err: fmt.Errorf("write %s: %w", escape.Terminal(p.output), err)}
	}
	fmt.Fprintf(stdout, "wrote %d files to %s (%s, from %s); run it there: %s\n", len(files), escape.Terminal(p.output), r.Language, escape.Terminal(r.Record), r.Run)
	for _, name := range kept {
		fmt.Fprintf(stdout, "  kept %s: it was there and reproduce did not write it\n", escape.Terminal(name))
	}
	for _, c := range r.Observed {
		fmt.Fprintf(stdout, "  %s\n", escape.Terminal(c.Message))
	}
	return result.ExitSatisfied, nil
}
