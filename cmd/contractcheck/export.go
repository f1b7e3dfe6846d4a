package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/scaffold"
)

const exportLong = `Export writes the built-in files embedded in the binary to DIR, as they are: the contract model
(contracts/), the policies (policies/), the schemas (schemas/) and the fixtures with their
observation records (fixtures/). Read them beside your own layers, or fork them and run with
--no-builtin. DIR must not exist or be empty; it is written whole or not at all.`

func newExportCommand() *cobra.Command {
	var parts []string
	cmd := &cobra.Command{
		Use:     "export DIR",
		Short:   "Write the built-in contracts, policies, schemas and fixtures to a directory",
		Long:    exportLong,
		Example: "  contractcheck export builtin\n  contractcheck export --only contracts,policies builtin",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(args[0], parts, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringSliceVar(&parts, "only", nil, "write only these parts: "+strings.Join(scaffold.Parts, ", "))
	return cmd
}

func runExport(dir string, parts []string, stdout io.Writer) error {
	files, err := scaffold.Export(dir, parts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files to %s\n", len(files), escape.Terminal(dir))
	return nil
}
