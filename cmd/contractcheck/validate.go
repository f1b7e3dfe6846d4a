package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
)

const validateLong = `Validate checks source results against the pinned MCP schema only: #/$defs/CallToolResult of the
revision, or a JSON-RPC response envelope (a result response is unwrapped and its result validated;
an error response is a valid source). Formats byte (base64) and uri are asserted.

With no files it validates every catalogued source against the revision its catalog entry names.
The file - is standard input (named <stdin> in messages; at most 16 MiB).

Every source is validated, a bad one does not stop the others: each valid one is listed on
standard output, each invalid one on standard error with the file and the JSON pointer (or
line:col), and the command exits 2 when any is invalid.`

const validateExample = `  contractcheck validate
  contractcheck validate --revision 2026-07-28 result.json
  contractcheck validate - < result.json`

func newValidateCommand() *cobra.Command {
	var opts instrument.Options
	var revision string
	cmd := &cobra.Command{
		Use:     "validate [FILE...|-]",
		Short:   "Validate source results against the pinned MCP schema",
		Long:    validateLong,
		Example: validateExample,
		RunE: func(cmd *cobra.Command, files []string) error {
			opts.Stdin = instrument.NewStdin(cmd.InOrStdin())
			if err := runValidate(opts, revision, files, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
				return &exitError{code: result.ExitCode(err), err: err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&revision, "revision", "", fmt.Sprintf("MCP revision, one of %v (default: %s, or each catalog entry's own)", schema.Revisions, schema.DefaultRevision))
	cmd.Flags().StringArrayVar(&opts.Contracts, "contracts", nil, "directory of CUE contract files for the fixture catalog, added to the built-in contracts (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Fixtures, "fixtures", nil, "directory holding sources/<suite>/<id>.json, added to the built-in fixtures (repeatable)")
	cmd.Flags().BoolVar(&opts.NoBuiltin, "no-builtin", false, "leave the built-in contracts and fixtures out")
	return cmd
}

// runValidate validates and lists every source: the valid ones on stdout, the invalid ones, each
// with its error, on stderr. The error returned says how many were invalid. A file name is
// written escape.Terminal, an error escape.TerminalLines, and stdout through an
// escape.LogWriter (stderr is one already, main's).
func runValidate(opts instrument.Options, revision string, files []string, stdout, stderr io.Writer) error {
	results, err := instrument.Validate(opts, revision, files)
	out := escape.NewLogWriter(stdout)
	for _, v := range results {
		if v.Err != nil {
			fmt.Fprintf(stderr, "contractcheck: %s\n", escape.TerminalLines(v.Err.Error()))
			continue
		}
		fmt.Fprintf(out, "ok %s (%s, %s)\n", escape.Terminal(v.File), escape.Terminal(v.Revision), escape.Terminal(v.Kind))
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		return fmt.Errorf("write the results: %w", ferr)
	}
	return err
}
