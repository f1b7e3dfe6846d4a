package main

import (
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/buildinfo"
	"github.com/contractcheck/contractcheck/internal/challenge"
	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/lock"
	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/study"
)

const versionLong = `Version prints what this binary is: the module version, or the VCS revision of a development
build (and whether its work tree was modified); the Go toolchain; the versions of OPA, CUE and the
JSON Schema validator linked in, which decide verdicts; the versions of the files it writes and
reads; and the sha256 of each pinned MCP schema, one per revision.`

func newVersionCommand() *cobra.Command {
	var out output[buildinfo.Info]
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, the libraries, the report versions and the pinned MCP schemas' sha256",
		Long:  versionLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			return runVersion(bi, out, cmd.OutOrStdout())
		},
	}
	addOutputFlags(cmd, &out, versionOutputters, outputSpec{what: "description", format: "text"})
	return cmd
}

// formats are the versions of the files the verbs write and read, in the order `version` prints
// them: listed here, where the verbs are, so buildinfo depends on none of them.
var formats = []buildinfo.Format{
	{Name: "check report (--format json)", Field: "reportVersion", Version: result.Version},
	{Name: "compare report (--format json)", Field: "compareVersion", Version: compare.Version},
	{Name: "study report (--format json)", Field: "studyVersion", Version: study.Version},
	{Name: "challenge report (--format json)", Field: "challengeVersion", Version: challenge.Version},
	{Name: "challenge case", Field: "challengeCase", Version: mutate.CaseVersion},
	{Name: "lock file (contractcheck lock)", Field: "lockVersion", Version: lock.Version},
}

// runVersion describes the build bi records, in the format and to the file out names.
func runVersion(bi *debug.BuildInfo, out output[buildinfo.Info], stdout io.Writer) error {
	f, err := out.resolve(report.Options{}, nil)
	if err != nil {
		return err
	}
	info, err := buildinfo.FromBuildInfo(bi, formats)
	if err != nil {
		return err
	}
	return out.write(stdout, f, info)
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
