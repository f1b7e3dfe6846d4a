package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/schema"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the report version and the pinned MCP revision",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := toolVersion()
			fmt.Fprintf(cmd.OutOrStdout(), "contractcheck %s\nreportVersion %d\nMCP revision %s (selectable: %v)\n",
				v, report.Version, schema.DefaultRevision, schema.Revisions)
			return nil
		},
	}
}

// toolVersion is the version of this build: the module version, or "(devel)".
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
