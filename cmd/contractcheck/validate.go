package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/validate"
)

const validateLong = `Validate checks source results against the MCP schema only: #/$defs/CallToolResult of the
revision (or the definition a --schemas revision's revision.json names), or a JSON-RPC response envelope (a result response is unwrapped and its result validated;
an error response is a valid source). Formats byte (base64) and uri are asserted.

With no files it validates every catalogued source against the revision its catalog entry names
(with --revision, only those of that revision), and every source of the fixture layers that no
catalogue entry names against --revision (default 2025-11-25), as check derives them
(docs/uncatalogued.md): a layer of a draft revision is validated with --schemas S --fixtures F
--revision R. The file - is standard input (named <stdin> in messages; at most 16 MiB).

Every source is validated, a bad one does not stop the others: each valid one is listed on
standard output (or in the --output file), each invalid one on standard error with the file and
the JSON pointer (or line:col), and the command exits 2 when any is invalid. --format json lists
every source, valid or not, with its error, as one JSON document.`

const validateExample = `  contractcheck validate
  contractcheck validate --revision 2026-07-28 result.json
  contractcheck validate --schemas my-schemas --fixtures mine --revision DRAFT-2026-12-01
  contractcheck validate - < result.json
  contractcheck validate --format json --output validation.json`

func newValidateCommand() *cobra.Command {
	var opts inputs.Options
	var revision string
	var out output[[]validate.Validated]
	cmd := &cobra.Command{
		Use:     "validate [FILE...|-]",
		Short:   "Validate source results against the pinned MCP schema",
		Long:    validateLong,
		Example: validateExample,
		RunE: func(cmd *cobra.Command, files []string) error {
			opts.Stdin = inputs.NewStdin(cmd.InOrStdin())
			return exitOn(runValidate(cmd.Context(), opts, revision, files, out, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	cmd.Flags().StringVar(&revision, "revision", "", fmt.Sprintf("MCP revision: one a schema layer holds (built in: %s; a --schemas directory adds more) (default: %s, or each catalog entry's own)", strings.Join(inputs.BuiltinRevisions(), ", "), schema.DefaultRevision))
	cmd.Flags().StringArrayVar(&opts.Schemas, "schemas", nil, "directory holding mcp/<revision>/schema.json (an MCP revision of its own) or carriers/, added to the built-in schemas (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Contracts, "contracts", nil, "directory of CUE contract files for the fixture catalog, added to the built-in contracts (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Fixtures, "fixtures", nil, "directory holding sources/<suite>/<id>.json, added to the built-in fixtures (repeatable)")
	cmd.Flags().BoolVar(&opts.NoBuiltin, "no-builtin", false, "leave the built-in contracts and fixtures out")
	addOutputFlags(cmd, &out, validateOutputters, outputSpec{what: "results", format: "text"})
	return cmd
}

// runValidate validates every source and writes the results in out's format, to stdout or the
// --output file; then each invalid one, with its error, goes to stderr (escape.TerminalLines;
// stderr is an escape.LogWriter already, main's). The error returned says how many were invalid.
// When validation stopped altogether (an unknown revision, contracts that do not load) nothing is
// written.
func runValidate(ctx context.Context, opts inputs.Options, revision string, files []string, out output[[]validate.Validated], stdout, stderr io.Writer) error {
	var named []string
	for _, f := range files {
		if f != inputs.StdinArg {
			named = append(named, f)
		}
	}
	f, err := out.resolve(report.Options{}, inputsOf(opts, named...))
	if err != nil {
		return err
	}
	results, err := validate.Validate(ctx, opts, revision, files)
	if results == nil && err != nil {
		return err
	}
	if werr := out.write(stdout, f, results); werr != nil {
		return werr
	}
	for _, v := range results {
		if v.Err != nil {
			fmt.Fprintf(stderr, "contractcheck: %s\n", escape.TerminalLines(v.Err.Error()))
		}
	}
	return err
}
