// Package probe runs a user's agent command against the catalogue's fixtures and records what
// reaches the model: for each selected fixture and repetition it serves the fixture's W0 bytes
// from an MCP server on loopback (package mcpserve, over Streamable HTTP and, through
// `contractcheck serve --stdio --probe`, over stdio), plays the model provider on loopback
// (package fakeprovider: OpenAI Responses, Chat Completions, Anthropic Messages and Gemini, plain
// and streamed), runs the command as a fresh process, and writes observation records: H4 is the
// provider request item that carries the tool result, D1, A2 and M3 are what the command
// reports to the observe hook, or not_observable. A run that fails in any way gives
// execution_failed with what went wrong, never a silent gap.
//
// The output directory is a complete input of `contractcheck check`: the records under
// <lane>/<version>/<configuration>.jsonl, and probe.cue with the lane's definition (its H4
// stage from the provider's generic binding, `_providerH4` in contracts/providers.cue) and a
// profile `probe` that requires every probed fixture to reach the model.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package probe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/mcpserve"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Stages are the observed stages a probe writes a record for, in pipeline order.
var Stages = []string{"D1", "A2", "M3", "H4"}

// DefaultPrompt is the user prompt the command is given (CONTRACTCHECK_PROMPT).
const DefaultPrompt = "Call fixture_tool, then answer in one sentence."

// Options are what a probe runs and where it writes.
type Options struct {
	// Inputs selects the contract, schema and fixture layers and, through Scope.Fixtures and
	// Scope.Suites, the fixtures probed (every catalogued fixture when both are empty).
	Inputs inputs.Options
	// Lane names the user's framework; Version and Configuration its version and setting.
	Lane, Version, Configuration string
	// Provider is the API whose generic H4 binding the lane gets when no layer declares it; empty
	// means the API the command spoke to.
	Provider string
	// Body records the whole provider request body at H4 rather than the item that carries the
	// tool result (for a lane whose H4 binding reads the body, as adk-go's and genkit-go's do).
	Body bool
	// Repetitions is how many fresh runs each fixture gets (at least 1).
	Repetitions int
	// MaxFailures stops the probe after this many consecutive runs failed the same way before
	// any fixture was served, or timed out alike (0: never): the runs not run are
	// execution_failed, "not run: …".
	MaxFailures int
	// Output is the directory the records and probe.cue go to.
	Output string
	// RunTimeout bounds one run of the command.
	RunTimeout time.Duration
	// Command is the agent command and its arguments; "{url}" in an argument is replaced by the
	// MCP endpoint.
	Command []string
	// AppendURL appends the MCP endpoint to the command's arguments (the MCP conformance suite's
	// convention).
	AppendURL bool
	// Batch runs all selected fixtures in one process per repetition: the fake model calls the
	// tool once per fixture, naming the fixture in the call's arguments.
	Batch bool
	// OutOfRevision serves a fixture the negotiated revision's schema refuses all the same (as
	// the capture programs' raw server does) instead of failing the run; the H4 record's notes
	// say so (mcpserve.Server.OutOfRevision).
	OutOfRevision bool
	// Tool is the MCP tool's name (mcpserve.DefaultTool when empty); Prompt the user prompt.
	Tool, Prompt string
	// Executable is the contractcheck binary that `CONTRACTCHECK_MCP_COMMAND` starts.
	Executable string
	// Env is the environment the command inherits (os.Environ() when nil).
	Env []string
	// Log receives one line per run, with the runs done and the time left (none when Quiet),
	// and the command's output when Verbose is set; with Jobs above 1 each run's lines at once,
	// in run order, when the runs before it have ended (runs.go).
	Log     io.Writer
	Verbose bool
	Quiet   bool
	// Traffic writes every exchange of each run with its MCP server, fake provider and observe
	// hook to <Output>/traffic/ (traffic.go), as each run ends.
	Traffic bool
	// Jobs is how many runs are made at once (runs.go): each run has its own MCP server, fake
	// provider, observe hook and loopback port, and the records, probe.json, probe.cue and traffic
	// files are byte for byte those of one run at a time. 0 means 1 (the command line's --jobs
	// defaults to the cores).
	Jobs int

	// traffic is the traffic log when Traffic is set, made by Run.
	traffic *trafficLog
	// revisions are the revisions the MCP server offers: the schema layers' dated ones
	// (mcpserve.Servable), set by Run.
	revisions []string
	// validate checks each tools/call response against the negotiated revision's pinned schema
	// (mcpserve.SchemaValidator on the run's validator), set by Run.
	validate func(revision string, response []byte) error
}

// Result is what a probe did.
type Result struct {
	// Runs counts the command's runs; Captured and Failed the fixture repetitions whose H4 was
	// captured or failed; NotRun those of Failed not run because of MaxFailures.
	Runs, Captured, Failed, NotRun int
	// Files are the files written, relative to the output directory.
	Files []string
	// Provider is the API the lane's H4 binding follows: empty when a layer declares the lane
	// (Declared), or when no model request was understood and none was named (H4 bound to
	// nothing).
	Provider string
	// Traffic is the directory, relative to the output directory and slash-separated, that holds
	// the runs' traffic (Options.Traffic), or empty.
	Traffic string
	// Declared reports that a layer declares the lane (its own bindings read the records).
	Declared bool
	// Fixtures are the fixtures the lane version's record file holds after the probe: its own,
	// and those an earlier probe into the directory wrote (a probe merges by fixture).
	Fixtures []string
}

// fixture is one selected source.
type fixture struct {
	id, revision, sha string
	data              []byte
}

// laneDef is what the probe knows of the lane: declared by a layer, or generated.
type laneDef struct {
	declared bool
	// exposure of each observed stage (declared lanes); generated lanes observe H4 only.
	exposure map[string]string
}

// Run probes the command and writes the records. The error is a *result.InputError for bad input
// (exit 2), or the cause of an instrument failure (the loopback listener, a write).
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	in, err := instrument.Load(ctx, o.Inputs)
	if err != nil {
		return nil, err
	}
	o.revisions = mcpserve.Servable(in.Validator.Revisions())
	o.validate = mcpserve.SchemaValidator(in.Validator)
	fixtures, err := selectFixtures(in, o.Inputs)
	if err != nil {
		return nil, err
	}
	lane, err := laneOf(in.Model, o)
	if err != nil {
		return nil, err
	}
	man, err := readManifest(o.Output)
	if err != nil {
		return nil, err
	}

	o.traffic = newTrafficLog(&o) // --traffic (traffic.go)

	res := &Result{}
	records, apis, err := o.runAll(ctx, fixtures, lane, res)
	if err != nil {
		return nil, err
	}
	// --traffic: every run's exchanges are on disk by now, whatever follows (traffic.go).
	trafficDir, err := o.traffic.finish()
	if err != nil {
		return nil, err
	}

	provider := o.Provider
	if provider == "" && !lane.declared {
		switch len(apis) {
		case 0:
			// Nothing was captured, and no binding is guessed: the lane's H4 is bound to
			// nothing (laneout), its records are execution_failed, and the directory is
			// written so that the user can look, and check fails the profile on it.
			fmt.Fprintf(o.Log, "probe: no model request was understood in any run, so the provider API is unknown: lane %s's H4 is bound to nothing and every run is execution_failed (name the API with --provider: %s)\n", o.Lane, apiList())
		case 1:
			for a := range apis {
				provider = string(a)
			}
		default:
			var names []string
			for a := range apis {
				names = append(names, string(a))
			}
			slices.Sort(names)
			return nil, result.Inputf("probe: the command spoke to several provider APIs (%s): name the one the lane's H4 follows with --provider", strings.Join(names, ", "))
		}
	}
	res.Provider, res.Declared = provider, lane.declared
	files, held, err := o.write(man, lane, provider, fixtures, records)
	if err != nil {
		return nil, err
	}
	res.Files, res.Traffic, res.Fixtures = files, trafficDir, held
	return res, nil
}

func apiList() string {
	var s []string
	for _, a := range fakeprovider.APIs() {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

func (o *Options) normalize() error {
	switch {
	case len(o.Command) == 0:
		return result.Inputf("probe: no command: give the agent command after --, e.g. contractcheck probe --lane my-agent --version 1.0.0 -- node agent.mjs")
	case o.Lane == "":
		return result.Inputf("probe: --lane is required: the name of your framework or agent (lowercase letters, digits, '.', '_' and '-')")
	case !laneout.NameRE.MatchString(o.Lane):
		return result.Inputf("probe: --lane %s: a lane name is lowercase letters, digits, '.', '_' and '-', starting with a letter or digit", strconv.QuoteToGraphic(o.Lane))
	case o.Version == "":
		return result.Inputf("probe: --version is required: the version of your framework or agent the records are for")
	case !laneout.VersionRE.MatchString(o.Version):
		return result.Inputf("probe: --version %s: a version is letters, digits, '.', '_', '+' and '-', starting with a letter or digit", strconv.QuoteToGraphic(o.Version))
	case !laneout.NameRE.MatchString(o.Configuration):
		return result.Inputf("probe: --configuration %s: a configuration name is lowercase letters, digits, '.', '_' and '-'", strconv.QuoteToGraphic(o.Configuration))
	case o.MaxFailures < 0:
		return result.Inputf("probe: --max-failures %d: a number of runs, or 0 never to stop", o.MaxFailures)
	case o.Jobs < 0:
		return result.Inputf("probe: --jobs %d: a number of runs at once, at least 1 (0: the cores)", o.Jobs)
	case o.Repetitions < 1:
		return result.Inputf("probe: --repetitions %d: at least one run per fixture", o.Repetitions)
	case o.RunTimeout <= 0:
		return result.Inputf("probe: --run-timeout must be positive")
	case o.Output == "":
		return result.Inputf("probe: --output is required")
	}
	if o.Provider != "" {
		if _, err := fakeprovider.ParseAPI(o.Provider); err != nil {
			return result.Inputf("probe: --provider %s: one of %s", strconv.QuoteToGraphic(o.Provider), apiList())
		}
	}
	if o.Jobs == 0 {
		o.Jobs = 1
	}
	if o.Tool == "" {
		o.Tool = mcpserve.DefaultTool
	}
	if o.Prompt == "" {
		o.Prompt = DefaultPrompt
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("probe: the contractcheck binary for CONTRACTCHECK_MCP_COMMAND: %w", err)
		}
		o.Executable = exe
	}
	return nil
}

// selectFixtures lists the fixtures the scope selects, sorted by id.
func selectFixtures(in *instrument.Instrument, o inputs.Options) ([]fixture, error) {
	var out []fixture
	for _, id := range contract.SortedKeys(in.Model.Fixtures) {
		f := in.Model.Fixtures[id]
		if len(o.Scope.Fixtures) > 0 && !contract.Matches(o.Scope.Fixtures, id) ||
			len(o.Scope.Suites) > 0 && !contract.Matches(o.Scope.Suites, f.Suite) {
			continue
		}
		s := in.Sources[id]
		out = append(out, fixture{id: id, revision: f.Revision, sha: s.Sha256, data: s.Data})
	}
	if len(out) == 0 {
		return nil, result.Inputf("probe: --fixture %s --suite %s select no catalogued fixture", strings.Join(o.Scope.Fixtures, ","), strings.Join(o.Scope.Suites, ","))
	}
	return out, nil
}

// laneOf finds the lane in the contract layers, or describes the one the probe generates.
func laneOf(m *contract.Model, o Options) (laneDef, error) {
	l, ok := m.Lanes[o.Lane]
	if !ok && o.Body {
		return laneDef{}, result.Inputf("probe: --h4-body records the whole request body, which only a lane of your own can bind (the item's place in the body varies): declare lane %s in a --contracts layer, or leave --h4-body out", o.Lane)
	}
	if !ok {
		return laneDef{exposure: map[string]string{"D1": "not_observable", "A2": "not_observable", "M3": "not_observable", "H4": "observed"}}, nil
	}
	const where = "the --contracts layers: "
	if l.OriginOf(o.Version) != "captured" {
		return laneDef{}, result.Inputf("probe: %slane %s declares version %s %s: a probe captures carriers from running code", where, o.Lane, o.Version, l.OriginOf(o.Version))
	}
	if !slices.Contains(l.Versions, o.Version) {
		return laneDef{}, result.Inputf("probe: %slane %s declares versions %s, not %s: add it to the lane's versions, or from a layer of yours to its extraVersions (docs/writing-a-contract.md)", where, o.Lane, strings.Join(l.Versions, ", "), o.Version)
	}
	if _, ok := l.Configurations[o.Configuration]; !ok {
		return laneDef{}, result.Inputf("probe: %slane %s declares configurations %s, not %s", where, o.Lane, strings.Join(contract.SortedKeys(l.Configurations), ", "), o.Configuration)
	}
	d := laneDef{declared: true, exposure: map[string]string{}}
	for _, st := range Stages {
		def, ok := l.Stages[st]
		if !ok {
			d.exposure[st] = "not_applicable"
			continue
		}
		d.exposure[st] = def.Exposure
	}
	if d.exposure["H4"] != "observed" {
		return laneDef{}, result.Inputf("probe: %slane %s does not observe H4 (%s): a probe records the provider request", where, o.Lane, d.exposure["H4"])
	}
	return d, nil
}

// hub is the loopback HTTP server a run's MCP endpoint, provider and observe hook hang off, under
// /r/<token>/. Each run has a hub of its own, on a port of its own: the token in the path would
// keep runs apart on one port, but a client that keys what it keeps by host and port (a daemon
// shared by the runs of --jobs, a cache of an MCP server's session or OAuth metadata by origin)
// would mix two runs made at once on one port; a listener costs nothing next to a process start.
// The token stays: a request of a run's leftover process, or of an earlier run's whose port was
// reused, reaches no other run.
type hub struct {
	ln   net.Listener
	srv  *http.Server
	mu   sync.Mutex
	runs map[string]http.Handler
}

func newHub() (*hub, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hub{ln: ln, runs: map[string]http.Handler{}}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = h.srv.Serve(ln) }()
	return h, nil
}

func (h *hub) root() string { return "http://" + h.ln.Addr().String() }

func (h *hub) close() { _ = h.srv.Close() }

func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/r/")
	token, _, _ := strings.Cut(rest, "/")
	h.mu.Lock()
	run := h.runs[token]
	h.mu.Unlock()
	if !ok || run == nil {
		http.Error(w, "contractcheck probe: no run "+strconv.Quote(token), http.StatusNotFound)
		return
	}
	http.StripPrefix("/r/"+token, run).ServeHTTP(w, r)
}

func (h *hub) add(token string, run http.Handler) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.runs[token] = run
}

func (h *hub) remove(token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.runs, token)
}

// observation is a carrier the command reported to the observe hook.
type observation struct {
	Stage   string          `json:"stage"`
	Carrier json.RawMessage `json:"carrier"`
	// Error reports that the stage failed in the agent (an SDK that rejected the result, say):
	// the stage's record is execution_failed with it, and later stages keep what they report.
	Error   string `json:"error"`
	CallID  string `json:"callId"`
	fixture string
}

// runOutcome is what one run of the command produced.
type runOutcome struct {
	records []record
	apis    []fakeprovider.API
	// uncalled are the fixtures the fake model never got to call the tool for.
	uncalled []fixture
	// served reports that the MCP server answered a tools/call: from there on what the command
	// does may depend on the fixture.
	served bool
	// timedOut reports that the command ran past RunTimeout.
	timedOut bool
	// traffic is the run's traffic file, written when the run's records are (runs.go); nil
	// without --traffic.
	traffic *runTraffic
	// err is a failure of the instrument (the loopback listener): the probe fails with it.
	err error
	// fixtures are the run's (set by slot); resumed is the run that resumes the fixtures it left
	// uncalled (batch mode), nil when none does.
	fixtures []fixture
	resumed  *pendingRun
	// log holds the run's lines until they are written, with --jobs above 1 (runs.go).
	log *runLog
}

// timeoutError is the failure of a run past its time limit.
type timeoutError struct{ limit time.Duration }

func (e timeoutError) Error() string {
	return fmt.Sprintf("the command did not finish within --run-timeout %s and was stopped", e.limit)
}

// runOnce runs the command once for fixtures (one, or all of them in batch mode).
func (o *Options) runOnce(ctx context.Context, fixtures []fixture, rep int, lane laneDef, progress func(i int) string) (out runOutcome) {
	h, err := newHub()
	if err != nil {
		return runOutcome{err: fmt.Errorf("probe: listen on loopback: %w", err)}
	}
	defer h.close()
	token := newToken()
	base := h.root() + "/r/" + token
	mcpURL := base + "/mcp"

	calls := make([]fakeprovider.Call, len(fixtures))
	served := make([]mcpserve.Fixture, len(fixtures))
	for i, f := range fixtures {
		calls[i] = fakeprovider.Call{ID: "call_fixture_1", Arguments: "{}"}
		if o.Batch {
			args, _ := json.Marshal(map[string]string{"fixture": f.id})
			calls[i] = fakeprovider.Call{ID: "call_" + f.id, Arguments: string(args)}
		}
		served[i] = mcpserve.Fixture{ID: f.id, Revision: f.revision, Bytes: f.data}
	}
	var (
		mu       sync.Mutex
		lastCall string // the fixture of the latest tools/call, for observations without a call id
		obs      []observation
		obsBytes int
		obsErr   error
	)
	mcp := &mcpserve.Server{Tool: o.Tool, Fixtures: served, Revisions: o.revisions, Validate: o.validate, OutOfRevision: o.OutOfRevision, OnCall: func(c mcpserve.Call) {
		mu.Lock()
		lastCall = c.Fixture
		mu.Unlock()
	}}
	prov := fakeprovider.New(fakeprovider.Config{Tool: o.Tool, Calls: calls})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp)
	mux.HandleFunc("/observe", func(w http.ResponseWriter, r *http.Request) {
		ob, err := readObservation(r, lane, o.Lane)
		if err != nil {
			mu.Lock()
			if obsErr == nil {
				obsErr = err
			}
			mu.Unlock()
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		if obsBytes += len(ob.Carrier); obsBytes > fakeprovider.MaxRunBytes {
			err := fmt.Errorf("observe: the run's reported carriers exceed %d bytes in all", fakeprovider.MaxRunBytes)
			if obsErr == nil {
				obsErr = err
			}
			mu.Unlock()
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		ob.fixture = lastCall
		if ob.CallID != "" {
			for i, c := range calls {
				if c.ID == ob.CallID {
					ob.fixture = fixtures[i].id
				}
			}
		}
		if len(fixtures) == 1 {
			ob.fixture = fixtures[0].id
		}
		obs = append(obs, ob)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.Handle("/", prov)
	// --traffic: the run's exchanges, encoded as the run ends (after h.remove; traffic.go) and
	// written with its records (runs.go).
	handler, endTraffic := o.traffic.capture(mux, fixtures, rep)
	defer func() { out.traffic = endTraffic() }()
	h.add(token, handler)
	defer h.remove(token)

	scenario, revision := fixtures[0].id, fixtures[0].revision
	if !mcpserve.CanServe(revision) {
		revision = mcpserve.DefaultRevision // a draft is not negotiated: the client asks for the default
	}
	if len(fixtures) > 1 {
		scenario = "batch"
	}
	tail, runErr := o.execute(ctx, mcpURL, base, scenario, revision, rep)

	// The API is recognised from each model request, refused ones included (requests.go).
	reqs := prov.Requests()
	out = runOutcome{apis: requestAPIs(reqs), served: len(mcp.Calls()) > 0, timedOut: errors.As(runErr, new(timeoutError))}
	mismatch := o.apiMismatch(lane, reqs)
	mu.Lock()
	defer mu.Unlock()
	for i, f := range fixtures {
		// A --provider the command did not speak explains a failure best, then what the probe
		// refused, then how the command ended.
		failure := mismatch
		if failure == nil {
			failure = obsErr
		}
		if failure == nil {
			failure = refusal(mcp, f.id) // a fixture the negotiated revision cannot carry (served.go)
		}
		if failure == nil {
			failure = prov.Err()
		}
		if failure == nil {
			failure = runErr
		}
		if !prov.ToolCalled(calls[i].ID) {
			out.uncalled = append(out.uncalled, f)
		}
		var item []byte
		if failure == nil {
			item, failure = o.h4(prov, mcp, calls[i], f, i)
		}
		failure = nothingUnderstood(failure, reqs)
		if failure != nil && tail != "" {
			failure = fmt.Errorf("%w; the command's output ended with: %s", failure, tail)
		}
		var fobs []observation
		for _, ob := range obs {
			if ob.fixture == f.id {
				fobs = append(fobs, ob)
			}
		}
		recs, err := recordsFor(o, lane, f, rep, fobs, item, failure)
		if err != nil {
			recs, _ = recordsFor(o, lane, f, rep, nil, nil, err)
		}
		for j := range recs {
			if recs[j].Stage == "H4" {
				recs[j].Notes = servedNote(mcp, f.id) // the revision served (served.go)
			}
		}
		out.records = append(out.records, recs...)
		// The line says what the records say: H4's state, or the first failure before it.
		state := "captured"
		for _, r := range recs {
			if r.State == "execution_failed" {
				state = "execution_failed: " + r.Error
				break
			}
		}
		if !o.Quiet {
			// Escaped as check escapes the same error in its report (escape.TerminalExact).
			fmt.Fprintf(o.Log, "probe: %s repetition %d: %s (%s)\n", f.id, rep, escape.TerminalExact(state), progress(i))
		}
	}
	return out
}

// h4 finds the provider request item (or body) that carries the result of fixture f's call.
func (o *Options) h4(prov *fakeprovider.Provider, mcp *mcpserve.Server, call fakeprovider.Call, f fixture, index int) ([]byte, error) {
	called := false
	for _, c := range mcp.Calls() {
		if c.Fixture == f.id {
			called = true
		}
	}
	if !prov.ToolCalled(call.ID) {
		n := 0
		for _, r := range prov.Requests() {
			if r.Answer != "side" {
				n++
			}
		}
		if n == 0 {
			return nil, errors.New("the command sent no model request to the fake provider (is it reading OPENAI_BASE_URL, ANTHROPIC_BASE_URL or GOOGLE_GEMINI_BASE_URL?)")
		}
		return nil, fmt.Errorf("the fake model never got to call the tool for %s: %d model requests before the command ended", f.id, n)
	}
	if !called {
		return nil, fmt.Errorf("the model called tool %s (call id %s) but the command never sent tools/call for it to the MCP server", o.Tool, call.ID)
	}
	api, item, seq, ok := prov.Result(call.ID)
	if !ok {
		return nil, fmt.Errorf("the command called tool %s but sent no model request carrying its result (call id %s)", o.Tool, call.ID)
	}
	if o.Body {
		for _, r := range prov.Requests() {
			if r.Seq == seq {
				item = r.Body
			}
		}
	}
	_ = api
	return item, nil
}

// readObservation reads one POST to the observe hook.
func readObservation(r *http.Request, lane laneDef, name string) (observation, error) {
	var ob observation
	if r.Method != http.MethodPost {
		return ob, fmt.Errorf("observe: %s: POST {stage, carrier}", r.Method)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20+1))
	if err != nil {
		return ob, fmt.Errorf("observe: read: %w", err)
	}
	if len(body) > 64<<20 {
		return ob, errors.New("observe: a carrier larger than 64 MiB")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ob); err != nil {
		return ob, fmt.Errorf("observe: the body is not {\"stage\", \"carrier\" or \"error\", \"callId\"}: %w", err)
	}
	switch {
	case ob.Stage == "H4":
		return ob, errors.New("observe: H4 is the provider request the probe records itself: report D1, A2 or M3")
	case !slices.Contains(Stages, ob.Stage):
		return ob, fmt.Errorf("observe: stage %s: one of D1, A2, M3", strconv.QuoteToGraphic(ob.Stage))
	case ob.Error != "" && len(ob.Carrier) > 0:
		return ob, fmt.Errorf("observe: stage %s: a carrier or an error, not both", ob.Stage)
	case ob.Error == "" && (len(ob.Carrier) == 0 || string(ob.Carrier) == "null"):
		return ob, fmt.Errorf("observe: stage %s: no carrier (or error)", ob.Stage)
	case lane.exposure[ob.Stage] != "observed":
		return ob, fmt.Errorf("observe: the command reported stage %s, but lane %s does not observe it (%s): declare the lane and its %s binding in a --contracts layer (docs/probe.md)", ob.Stage, name, lane.exposure[ob.Stage], ob.Stage)
	}
	return ob, nil
}

// execute runs the command once and returns the tail of its output and why it failed, if it did.
func (o *Options) execute(ctx context.Context, mcpURL, base, scenario, revision string, rep int) (string, error) {
	args := make([]string, 0, len(o.Command)+1)
	for _, a := range o.Command {
		args = append(args, strings.ReplaceAll(a, "{url}", mcpURL))
	}
	if o.AppendURL {
		args = append(args, mcpURL)
	}
	ctx, cancel := context.WithTimeout(ctx, o.RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Past the timeout, or when probe is interrupted, the command's whole group is ended:
	// SIGTERM, then (exec's WaitDelay) SIGKILL to the command, and endLeftovers for the rest.
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	cmd.WaitDelay = killGrace
	env := slices.Clone(o.Env)
	env = append(env, fakeprovider.Env(base)...)
	env = append(env,
		"CONTRACTCHECK_MCP_URL="+mcpURL,
		"CONTRACTCHECK_MCP_COMMAND="+escape.ShellJoin([]string{o.Executable, "serve", "--stdio", "--probe", mcpURL}),
		"CONTRACTCHECK_TOOL="+o.Tool,
		"CONTRACTCHECK_PROMPT="+o.Prompt,
		"CONTRACTCHECK_OBSERVE_URL="+base+"/observe",
		"CONTRACTCHECK_FIXTURE="+scenario,
		"CONTRACTCHECK_REPETITION="+strconv.Itoa(rep),
		"MCP_CONFORMANCE_SCENARIO="+scenario,
		"MCP_CONFORMANCE_PROTOCOL_VERSION="+revision,
	)
	env = append(env, fakeprovider.NoTelemetryEnv...)
	cmd.Env = env
	cmd.Stdin = nil
	text, err := o.run(cmd, base+"/", scenario, rep)
	switch {
	case err == nil:
		return "", nil
	case ctx.Err() == context.DeadlineExceeded:
		return text, timeoutError{o.RunTimeout}
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission):
		return text, fmt.Errorf("the command could not start: %w", err)
	default:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return text, fmt.Errorf("the command exited with %s", ee.ProcessState)
		}
		return text, fmt.Errorf("the command failed: %w", err)
	}
}

// run starts cmd with its output on a pipe of probe's own (no copying goroutine of exec's, so that
// a leftover process holding the pipe does not hold up the run), waits for it, ends what it left
// behind (endLeftovers: its process group, and what it detached, found by marker in their
// environment) and says so, and returns the tail of its output and how it ended. With Verbose
// the output is streamed to Log, line by line, escaped for a terminal.
func (o *Options) run(cmd *exec.Cmd, marker, scenario string, rep int) (string, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", fmt.Errorf("a pipe for the command's output: %w", err)
	}
	var tail tailBuffer
	var w io.Writer = &tail
	var lines *lineWriter
	if o.Verbose {
		lines = &lineWriter{w: o.Log}
		w = io.MultiWriter(&tail, lines)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(w, pr)
	}()
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	_ = pw.Close()
	var left []leftover
	if err == nil {
		err = cmd.Wait()
		left = endLeftovers(cmd.Process.Pid, marker)
	}
	// What is left holding the pipe (a process out of probe's reach) does not hold up the run.
	select {
	case <-copied:
	case <-time.After(time.Second):
		_ = pr.Close()
		<-copied
	}
	_ = pr.Close()
	if lines != nil {
		lines.flush()
	}
	// Said once the command's output is all written: nothing else writes to this run's Log
	// meanwhile (with --jobs above 1 a Log of the run's own, runs.go).
	sayLeftovers(o.Log, scenario, rep, left)
	return tail.String(), err
}

func newToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// lineWriter writes each line written to it to w as escape.Terminal makes it, when the line is
// complete (flush writes an unfinished last one): a command's output cannot move the cursor,
// clear the screen or reorder text on the terminal probe writes to.
type lineWriter struct {
	w       io.Writer
	pending []byte
}

// maxLine bounds a line held back for its end: a longer one is written in pieces.
const maxLine = 64 << 10

func (l *lineWriter) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			if len(l.pending) > maxLine {
				cut := escape.CutPoint(string(l.pending), maxLine)
				l.line(l.pending[:cut])
				l.pending = slices.Clone(l.pending[cut:])
			}
			return len(p), nil
		}
		l.line(bytes.TrimSuffix(l.pending[:i], []byte("\r")))
		l.pending = l.pending[i+1:]
	}
}

func (l *lineWriter) line(b []byte) {
	fmt.Fprintln(l.w, escape.TerminalExact(string(b)))
}

// flush writes an unfinished last line.
func (l *lineWriter) flush() {
	if len(l.pending) > 0 {
		l.line(l.pending)
		l.pending = nil
	}
}

// tailBuffer keeps the last 2 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	cut bool
}

const tailBytes = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = slices.Clone(t.buf[len(t.buf)-tailBytes:])
		t.cut = true
	}
	return len(p), nil
}

// String is the tail as one line of valid UTF-8, its line breaks shown as ⏎.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	cut := t.cut
	if len(b) > tailBytes {
		b, cut = b[len(b)-tailBytes:], true
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", " ⏎ "))
	if cut && s != "" {
		s = "…" + s
	}
	return s
}
