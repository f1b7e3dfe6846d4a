package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/contractcheck/contractcheck/internal/escape"
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

// inspectTrafficOutputters are inspect traffic's formats.
var inspectTrafficOutputters = report.TextAndJSON[trafficInspection](writeTrafficText)

// writeTrafficText writes each run's exchanges for a reader: the run, then per exchange its number,
// endpoint, method, path and status, the request's headers and body (">"), the response's ("<").
// Every string is escaped for a terminal (escape.Terminal; bytes that are not UTF-8 as \xNN), a
// body one line per line it holds, and the whole goes through an escape.LogWriter: an agent's
// bytes are data, never a terminal's or a CI log's commands. --format json has the exact bytes.
func writeTrafficText(b *strings.Builder, ins trafficInspection) error {
	for i, t := range ins.Runs {
		if i > 0 {
			b.WriteString("\n")
		}
		h := t.Header
		fmt.Fprintf(b, "traffic %s\n", escape.Terminal(t.File))
		fmt.Fprintf(b, "  %s %s %s %s repetition %d: %d exchanges", escape.Terminal(h.Lane), escape.Terminal(h.LaneVersion),
			escape.Terminal(h.Configuration), escape.Terminal(h.Run), h.Repetition, len(t.Exchanges))
		if h.Run == "batch" {
			fmt.Fprintf(b, " (fixtures %s)", escape.Terminal(strings.Join(h.Fixtures, ", ")))
		}
		b.WriteString("\n")
		for _, x := range t.Exchanges {
			target := x.Path
			if x.Query != "" {
				target += "?" + x.Query
			}
			fmt.Fprintf(b, "#%d %s %s %s → %d", x.Seq, escape.Terminal(x.Endpoint), escape.Terminal(x.Method), escape.Terminal(target), x.Status)
			if x.Redacted {
				b.WriteString(" (a credential redacted in a body)")
			}
			if x.Incomplete {
				b.WriteString(" (still under way when the run ended)")
			}
			b.WriteString("\n")
			writeMessage(b, ">", x.RequestHeaders, x.Request, x.RequestOmitted)
			writeMessage(b, "<", x.ResponseHeaders, x.Response, x.ResponseOmitted)
		}
	}
	return nil
}

// writeMessage writes one side of an exchange: its headers by name, then its body's size and
// lines, each line marked (">" a request, "<" a response).
func writeMessage(b *strings.Builder, mark string, headers map[string][]string, body []byte, omitted int64) {
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range headers[k] {
			fmt.Fprintf(b, "  %s %s: %s\n", mark, escape.Terminal(k), showBytes([]byte(v)))
		}
	}
	size := strconv.Itoa(len(body)) + " bytes"
	if !utf8.Valid(body) {
		size += ", not UTF-8: its stray bytes shown as \\xNN"
	}
	if omitted > 0 {
		size += fmt.Sprintf(", %d more past the bound not kept", omitted)
	}
	if len(body) == 0 {
		fmt.Fprintf(b, "  %s body (%s)\n", mark, size)
		return
	}
	fmt.Fprintf(b, "  %s body (%s):\n", mark, size)
	lines := strings.Split(string(body), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the line break that ends the body ends its last line
	}
	for _, line := range lines {
		if line == "" {
			fmt.Fprintf(b, "  %s\n", mark)
			continue
		}
		fmt.Fprintf(b, "  %s   %s\n", mark, showBytes([]byte(line)))
	}
}

// showBytes is b for a terminal: valid UTF-8 as escape.Terminal shows it, every byte that is not
// UTF-8 as \xNN.
func showBytes(b []byte) string {
	var out strings.Builder
	for len(b) > 0 {
		i := 0
		for i < len(b) {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		out.WriteString(escape.Terminal(string(b[:i])))
		if i < len(b) {
			fmt.Fprintf(&out, `\x%02x`, b[i])
			i++
		}
		b = b[i:]
	}
	return out.String()
}
