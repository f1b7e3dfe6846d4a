package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/probe"
	"github.com/contractcheck/contractcheck/internal/result"
)

const probeLong = `Probe runs your agent, in any language, against the catalogue's fixtures and records what
reaches the model: no capture program of your own.

For each selected fixture and repetition it starts, on loopback only, an MCP server that serves
the fixture's W0 bytes exactly (Streamable HTTP, and stdio through the command in
CONTRACTCHECK_MCP_COMMAND) and a fake model provider (OpenAI Responses, Chat Completions,
Anthropic Messages and Gemini generateContent, plain and streamed), then runs COMMAND as a fresh
process with the caller's environment plus:

  CONTRACTCHECK_MCP_URL       the Streamable HTTP endpoint ({url} in COMMAND is replaced by it)
  CONTRACTCHECK_MCP_COMMAND   a shell word list that starts the same server over stdio
  CONTRACTCHECK_TOOL          the tool's name; CONTRACTCHECK_PROMPT a user prompt to send
  CONTRACTCHECK_OBSERVE_URL   POST {"stage": "A2", "carrier": …} to report a deeper carrier
  OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL and dummy API keys
  MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION (the conformance suite's convention)

The fake model answers the first request with a call to the tool and the next with a final text.
H4 is the provider request item that carries the tool result; D1, A2 and M3 are not_observable
unless the command reports them. A command that exits non-zero, runs past --run-timeout, never
calls the tool or never sends the result on gives execution_failed with the tail of its output;
after --max-failures consecutive runs failed alike before a fixture was served, or timed out
alike, the runs left are execution_failed, not run.
When a run ends, what the command left behind is ended and said: its process group and, on
Linux, the processes it detached (probe is their subreaper).
--jobs runs that many at once (default: the cores), each with its own servers and loopback port;
the records, probe.json, probe.cue and traffic are byte for byte those of --jobs 1, and the lines
come in run order. An agent that cannot run twice at once (a daemon or a lock in its home
directory) needs a home directory per run (HOME=$(mktemp -d) in COMMAND), or --jobs 1.

DIR then holds the records (<lane>/<version>/<configuration>.jsonl), probe.json and probe.cue
(the lane, its H4 read through the provider's generic binding, and a profile "probe"):

  contractcheck check --observations DIR --contracts DIR --profile probe

With --traffic, every exchange of each run with the MCP server, the fake provider and the observe
hook (request method, path, headers with credentials redacted, body; response status, headers,
body, a stream whole) is kept, in arrival order, failed runs included, in
DIR/traffic/<lane>/<version>/<configuration>/<fixture>/<repetition>.ndjson (_batch/ for --batch),
written as each run ends, so it is there even when probe then fails. Show one run's with:

  contractcheck inspect traffic --probe-output DIR --fixture ID --repetition N

A lane declared in a --contracts layer keeps its own bindings (and may observe D1, A2 or M3
through the observe hook). docs/probe.md walks from an empty directory to a gated CI job.

Exit codes: 0 every run reached the model; 1 a run failed (its records say why); 2 usage or
input error; 3 the instrument failed; 130 or 143 interrupted by SIGINT or SIGTERM, the agent's
run ended first.`

type probeParams struct {
	probe.Options
	verbose bool
	// progress: a probe's progress is its line per run, plain on a terminal or not; --quiet
	// leaves those lines out, --progress is the default.
	progress progressFlags
}

func newProbeCommand() *cobra.Command {
	p := probeParams{}
	p.Configuration = "default"
	cmd := &cobra.Command{
		Use:   "probe --lane NAME --version V [flags] -- COMMAND [ARGS...]",
		Short: "Run your agent against fixture MCP servers and a fake model provider, and record what reaches the model",
		Long:  probeLong,
		Example: `  contractcheck probe --lane my-agent --version 1.4.0 --output probe-out -- node agent.mjs
  contractcheck probe --lane my-agent --version 1.4.0 --provider openai-chat --suite paper --output probe-out -- python agent.py
  contractcheck probe --lane my-agent --version 1.4.0 --append-url --output probe-out -- ./conformance-client
  contractcheck check --observations probe-out --contracts probe-out --profile probe`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return usage("probe: give the agent command after --, e.g. contractcheck probe --lane my-agent --version 1.0.0 --output probe-out -- node agent.mjs")
			}
			p.Command = args
			return exitWith(runProbe(cmd.Context(), p, cmd.ErrOrStderr()))
		},
	}
	f := cmd.Flags()
	addLaneFlags(cmd, &p.Lane, &p.Version, &p.Configuration)
	f.StringVar(&p.Provider, "provider", "", "the provider API whose generic H4 binding a lane no layer declares gets: openai-responses, openai-chat, anthropic, gemini (default: the API the command spoke)")
	f.IntVar(&p.Repetitions, "repetitions", 3, "fresh runs of the command per fixture")
	f.IntVar(&p.Jobs, "jobs", 0, "runs made at once, each with its own MCP server, fake provider and port; the records and traffic are those of one at a time (default 0: the cores; 1 one at a time)")
	f.IntVar(&p.MaxFailures, "max-failures", 3, "stop after this many consecutive runs failed the same way before a fixture was served, or timed out alike, the runs left execution_failed (not run); 0 never stops")
	f.StringVar(&p.Output, "output", "", "directory the records, probe.json and probe.cue are written to: empty, or an earlier probe's (required)")
	f.DurationVar(&p.RunTimeout, "run-timeout", 60*time.Second, "time limit of one run of the command; over it the run is execution_failed")
	f.BoolVar(&p.AppendURL, "append-url", false, "append the MCP endpoint to COMMAND's arguments (the MCP conformance suite's convention)")
	f.BoolVar(&p.Batch, "batch", false, "run all selected fixtures in one process per repetition: the fake model calls the tool once per fixture")
	f.BoolVar(&p.Body, "h4-body", false, "record the whole provider request body at H4, for a lane of your own whose H4 binding reads the body")
	f.BoolVar(&p.OutOfRevision, "serve-out-of-revision", false, "serve a fixture the negotiated MCP revision's schema refuses (a 2026-07-28 result to a 2025-11-25 client) instead of failing its run; the H4 record's notes say so")
	f.BoolVarP(&p.verbose, "verbose", "v", false, "show the command's output")
	f.BoolVar(&p.Traffic, "traffic", false, "keep every MCP message and provider request and response of each run, byte for byte, in DIR/traffic/ (contractcheck inspect traffic shows one run's)")
	f.StringArrayVar(&p.Inputs.Scope.Suites, "suite", nil, "only the fixtures of this suite (repeatable; names or globs)")
	addProbeInputFlags(cmd, &p.Inputs)
	addProgressFlags(cmd, &p.progress)
	f.Lookup("progress").Usage = "show the line per run, with the runs done and the time left (the default, on a terminal or not)"
	f.Lookup("quiet").Usage = "leave out the line per run (the summary and the command's output with -v stay)"
	return cmd
}

// addLaneFlags binds --lane, --version and --configuration (default "default"): what the records
// a probe or a recording writes are for.
func addLaneFlags(cmd *cobra.Command, lane, version, configuration *string) {
	f := cmd.Flags()
	f.StringVar(lane, "lane", "", "the lane the records are for: your framework or agent (required)")
	f.StringVar(version, "version", "", "the lane version the records are for (required)")
	f.StringVar(configuration, "configuration", "default", "the lane configuration the records are for")
}

// addProbeInputFlags binds the layers and the fixture selection a probe reads.
func addProbeInputFlags(cmd *cobra.Command, o *inputs.Options) {
	addLayerFlags(cmd, o)
	cmd.Flags().StringArrayVar(&o.Fixtures, "fixtures", nil, "directory holding sources/<suite>/<id>.json, added to the built-in fixtures (repeatable)")
	cmd.Flags().StringArrayVar(&o.Schemas, "schemas", nil, "directory holding carriers/<name>.schema.json or mcp/<revision>/schema.json (an MCP revision of its own), added to the built-in schemas (repeatable)")
	cmd.Flags().BoolVar(&o.NoBuiltin, "no-builtin", false, "leave the built-in contracts, policies and fixtures out: only the given layers are read")
	addRevisionFlag(cmd, o)
	cmd.Flags().StringArrayVar(&o.Scope.Fixtures, "fixture", nil, "only this fixture (repeatable; names or globs)")
}

// signalError is why a probe stopped on SIGINT or SIGTERM.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "interrupted by " + unix.SignalName(e.sig) }

// onSignal returns a context that ends with a signalError cause on the first SIGINT or SIGTERM
// (a second one then ends the process as it would without probe), and a stop to call when done.
func onSignal(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(signalError{s.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(sigs)
		cancel(nil)
	}
}

// runProbe runs a probe and says what it wrote; the exit code is 1 when a run failed. On SIGINT
// or SIGTERM the agent's run ends (its process group, and what it left behind) before probe
// exits, with 128 plus the signal's number, as a shell reports a process the signal ended.
func runProbe(ctx context.Context, p probeParams, stderr io.Writer) (int, error) {
	p.Log, p.Verbose, p.Quiet = stderr, p.verbose, p.progress.quiet
	if p.Jobs == 0 {
		p.Jobs = runtime.GOMAXPROCS(0) // the cores probe may use (a container's CPU limit included)
	}
	ctx, stop := onSignal(ctx)
	defer stop()
	res, err := probe.Run(ctx, p.Options)
	var se signalError
	if cause := context.Cause(ctx); errors.As(cause, &se) {
		return 128 + int(se.sig), fmt.Errorf("probe: %w: the agent's process group and what it left behind were ended; nothing was written to %s", se, shownPath(p.Output))
	}
	if err != nil {
		writeProbeTraffic(stderr, p, false) // the runs made before the error are on disk
		return result.ExitCode(err), err
	}
	notRun := ""
	if res.NotRun > 0 {
		notRun = fmt.Sprintf(" (%d not run: --max-failures)", res.NotRun)
	}
	fmt.Fprintf(stderr, "probe: %d runs; H4 captured for %d fixture repetitions, execution_failed for %d%s; lane %s %s %s (H4: %s) written to %s\n",
		res.Runs, res.Captured, res.Failed, notRun, p.Lane, p.Version, p.Configuration, h4Binding(res), shownPath(p.Output))
	writeProbeTraffic(stderr, p, res.Failed > 0)
	// Judging is the next step's (check's) job; the category is said here when the records can be
	// judged as they are, and why not otherwise (a lane of a layer whose carriers need the
	// capture program's envelope, say): the probe itself succeeded either way.
	var vs []result.Visibility
	judged, verr := check.Run(ctx, probe.JudgeOptions(p.Options, res))
	if cause := context.Cause(ctx); errors.As(cause, &se) {
		return 128 + int(se.sig), fmt.Errorf("probe: %w while judging the records, which are written to %s", se, shownPath(p.Output))
	}
	if verr != nil {
		verr = fmt.Errorf("probe: judging the records in %s: %w", p.Output, verr)
	} else {
		vs = judged.VisibilityReadout() // one lane's groups: a handful
	}
	writeProbeVisibility(stderr, vs, verr)
	fmt.Fprintf(stderr, "judge it: %s\n", judgeCommand(p.Options))
	if res.Failed > 0 {
		return result.ExitUnmet, nil
	}
	return result.ExitSatisfied, nil
}

// writeProbeTraffic says where the runs' traffic went (with --traffic, whatever the probe ended
// with: each run's is written as it ends), and how to keep it when runs failed without it.
func writeProbeTraffic(w io.Writer, p probeParams, failed bool) {
	if !p.Traffic {
		if failed {
			fmt.Fprintln(w, "probe: to see every message the command sent and got, probe again with --traffic")
		}
		return
	}
	dir := filepath.Join(p.Output, probe.TrafficDir, p.Lane, p.Version, p.Configuration)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return
	}
	fmt.Fprintf(w, "probe: the traffic of every run is in %s (show one: contractcheck inspect traffic --probe-output %s --fixture ID --repetition N)\n",
		shownPath(dir), shownPath(p.Output))
}

// judgeCommand is the check command line that judges what a probe wrote, as probe.JudgeOptions
// judges it: every layer the probe read (the user's --contracts before the probe's own output,
// --policies, --schemas, --fixtures, --revision, --no-builtin) is the check's too, so that a lane
// declared in a layer of the user's is known to it. Each word is escape.Shell'd.
func judgeCommand(o probe.Options) string {
	words := []string{"contractcheck", "check", "--observations", o.Output}
	for _, c := range append(append([]string(nil), o.Inputs.Contracts...), o.Output) {
		words = append(words, "--contracts", c)
	}
	for _, flag := range []struct {
		name string
		dirs []string
	}{{"--policies", o.Inputs.Policies}, {"--schemas", o.Inputs.Schemas}, {"--fixtures", o.Inputs.Fixtures}} {
		for _, d := range flag.dirs {
			words = append(words, flag.name, d)
		}
	}
	if o.Inputs.Revision != "" {
		words = append(words, "--revision", o.Inputs.Revision)
	}
	if o.Inputs.NoBuiltin {
		words = append(words, "--no-builtin")
	}
	words = append(words, "--profile", probe.ProfileName)
	return escape.Shell(words...)
}

// writeProbeVisibility says what of a result's channels reaches the model through the probed
// agent, one line per stage (docs/visibility.md) and a warning under a stage whose records carry
// nothing of what was served, how to find out when no fixture of the readout was probed, or why
// the records could not be judged here (err).
func writeProbeVisibility(w io.Writer, vs []result.Visibility, err error) {
	if err != nil {
		fmt.Fprintf(w, "probe: what reaches the model: not judged here (check will say the same): %s\n", escape.Terminal(err.Error()))
		return
	}
	if len(vs) == 0 {
		fmt.Fprintln(w, "probe: no fixture of the visibility readout was probed (add --suite visibility to see what of a result reaches the model)")
		return
	}
	for _, v := range vs {
		fmt.Fprintf(w, "probe: what reaches the model at %s: %s (docs/visibility.md)\n", escape.Terminal(v.Stage), escape.Terminal(v.Summary()))
		if v.NothingServed() {
			fmt.Fprintf(w, "probe: WARNING: %s\n", escape.Terminal(v.NothingServedWarning()))
		}
	}
}

// shownPath is a path as a terminal or CI log may show it: a shell word on one line
// (escape.Shell).
func shownPath(p string) string { return escape.Shell(p) }

// h4Binding says what reads the lane's H4 records.
func h4Binding(res *probe.Result) string {
	switch {
	case res.Declared:
		return "the lane's own binding"
	case res.Provider == "":
		return "bound to nothing, the provider API unknown"
	}
	return res.Provider
}
