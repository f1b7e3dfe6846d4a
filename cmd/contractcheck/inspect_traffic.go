package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/probe"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

const inspectTrafficExample = `  contractcheck inspect traffic --probe-output probe-out --fixture C09 --repetition 2
  contractcheck inspect traffic probe-out/traffic/acme-agent/1.0.0/default/C09/2.ndjson
  contractcheck inspect traffic --probe-output probe-out --fixture C09 --lane acme-agent --version 1.0.0 --format json`

// maxTrafficFile bounds a traffic file inspect reads: a run's bodies are bounded by the
// provider's 256 MiB, and the file's JSON escapes or base64 may double that.
const maxTrafficFile = 1 << 30

// inspectTrafficParams are the flags of inspect traffic.
type inspectTrafficParams struct {
	dir, lane, version, configuration, fixture string
	repetition                                 int
	out                                        output[trafficInspection]
}

// trafficInspection is what inspect traffic prints: the runs named, each its traffic file read.
type trafficInspection struct {
	Runs []*probe.Traffic `json:"runs"`
}

func newInspectTrafficCommand() *cobra.Command {
	var p inspectTrafficParams
	cmd := &cobra.Command{
		Use:     "traffic [FILE]...",
		Short:   "Print one probe run's exchanges (probe --traffic): every MCP message and provider request and response, in order",
		Long:    inspectLong,
		Example: inspectTrafficExample,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := laneAt(cmd, &p.lane, &p.configuration); err != nil {
				return inputError(err)
			}
			return exitOn(runInspectTraffic(p, args, cmd.OutOrStdout()))
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.dir, "probe-output", "", "the `DIR` a probe --traffic wrote (its --output): find the run there by --fixture and --repetition")
	f.StringVar(&p.fixture, "fixture", "", "the run's fixture `ID` (a batch run that served it is found too)")
	f.IntVar(&p.repetition, "repetition", 1, "the run's repetition `N`")
	f.StringVar(&p.lane, "lane", "", "the run's lane, or LANE@CONFIGURATION, when the directory holds several (default: any)")
	f.StringVar(&p.version, "version", "", "the run's lane version, when the directory holds several (default: any)")
	f.StringVar(&p.configuration, "configuration", "", "the run's configuration, when the directory holds several (default: any)")
	addOutputFlags(cmd, &p.out, inspectTrafficOutputters, outputSpec{what: "exchanges", format: "text"})
	return cmd
}

// runInspectTraffic reads the traffic files named by args, or the one --probe-output and the
// run's position name, and writes their exchanges.
func runInspectTraffic(p inspectTrafficParams, args []string, stdout io.Writer) error {
	files := slices.Clone(args)
	switch {
	case len(args) > 0 && p.dir != "":
		return &result.InputError{Err: fmt.Errorf("inspect traffic: name a run by FILE or by --probe-output and --fixture, not both")}
	case len(args) == 0 && (p.dir == "" || p.fixture == ""):
		return &result.InputError{Err: fmt.Errorf("inspect traffic: name a run: a traffic FILE, or --probe-output DIR --fixture ID [--repetition N] (probe --traffic writes DIR/traffic/)")}
	}
	inputs := slices.Clone(args)
	if p.dir != "" {
		inputs = append(inputs, p.dir)
	}
	f, err := p.out.resolve(report.Options{}, inputs)
	if err != nil {
		return err
	}
	if p.dir != "" {
		file, err := probe.FindTraffic(p.dir, p.lane, p.version, p.configuration, p.fixture, p.repetition)
		if err != nil {
			return &result.InputError{Err: fmt.Errorf("inspect %w", err)}
		}
		files = []string{file}
	}
	var ins trafficInspection
	for _, file := range files {
		t, err := probe.ReadTraffic(file, maxTrafficFile)
		if err != nil {
			return &result.InputError{Err: fmt.Errorf("inspect %w", err)}
		}
		ins.Runs = append(ins.Runs, t)
	}
	return p.out.write(stdout, f, ins)
}
