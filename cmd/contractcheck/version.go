package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/buildinfo"
	"github.com/contractcheck/contractcheck/internal/challenge"
	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/lock"
	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/result"
)

const versionLong = `Version prints what this binary is: the module version, or the VCS revision of a development
build (and whether its work tree was modified); the Go toolchain; the versions of OPA, CUE and the
JSON Schema validator linked in, which decide verdicts; the versions of the files it writes and
reads; and the sha256 of each pinned MCP schema, one per revision.`

func newVersionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, the libraries, the report versions and the pinned MCP schemas' sha256",
		Long:  versionLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			return runVersion(bi, format, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json")
	return cmd
}

// formats are the versions of the files the verbs write and read, in the order `version` prints
// them: listed here, where the verbs are, so buildinfo depends on none of them.
var formats = []buildinfo.Format{
	{Name: "check report (--format json)", Field: "reportVersion", Version: result.Version},
	{Name: "compare report (--format json)", Field: "compareVersion", Version: compare.Version},
	{Name: "challenge report (--format json)", Field: "challengeVersion", Version: challenge.Version},
	{Name: "challenge case", Field: "challengeCase", Version: mutate.CaseVersion},
	{Name: "lock file (contractcheck lock)", Field: "lockVersion", Version: lock.Version},
}

// runVersion describes the build bi records. The text is escape.TerminalLines (the build's
// strings — module paths and versions, the VCS revision — shown without a control character) and
// goes through an escape.LogWriter.
func runVersion(bi *debug.BuildInfo, format string, stdout io.Writer) error {
	info, err := buildinfo.FromBuildInfo(bi, formats)
	if err != nil {
		return err
	}
	switch format {
	case "text":
		var b strings.Builder
		if err := info.WriteText(&b); err != nil {
			return err
		}
		lw := escape.NewLogWriter(stdout)
		if _, err := io.WriteString(lw, escape.TerminalLines(b.String())); err != nil {
			return fmt.Errorf("write the version: %w", err)
		}
		return lw.Flush()
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false) // as every other JSON writer: the bytes are the values
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	}
	return &exitError{code: 2, err: fmt.Errorf("--format %s: unknown format (text, json)", format)}
}

// toolVersion is the version of this build: the module version, or "(devel)".
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return buildinfo.Devel
}

// lockToolVersion is the version a lock records: the module version, or for a development build
// the VCS revision it was built from.
func lockToolVersion() string { return buildinfo.Tool() }
