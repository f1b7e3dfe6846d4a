package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/mcpserve"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testagent"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestMain lets the test binary play both the user's agent (CONTRACTCHECK_TESTAGENT set: the
// agent of package testagent, or one of the broken commands below) and the stdio server an agent
// starts (`<binary> serve --stdio --probe URL`, what CONTRACTCHECK_MCP_COMMAND names).
func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == "serve" && os.Args[2] == "--stdio" && os.Args[3] == "--probe" {
		if err := mcpserve.Relay(http.DefaultClient, os.Args[4], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	switch os.Getenv("CONTRACTCHECK_TESTAGENT") {
	case "":
		// The model cache of the tests is their own, not the user's (the tests that judge a
		// probe's output evaluate its lane's probe.cue, one directory per test).
		os.Exit(testkit.Run(m))
	case "agent":
		testagent.Main()
	case "exit1":
		// A broken agent whose output is hostile to a terminal and a CI log.
		fmt.Fprint(os.Stderr, "starting\n::error file=x::pwned\x1b[31m red \u202e evil\x07\nTraceback: boom\n")
		os.Exit(1)
	case "mixed":
		// Runs that end out of order (a random pause first), the fixtures TESTAGENT_FAIL lists
		// failing before any is served with output hostile to a terminal and a CI log, the others
		// the test agent's.
		time.Sleep(time.Duration(rand.IntN(120)) * time.Millisecond)
		if slices.Contains(strings.Split(os.Getenv("TESTAGENT_FAIL"), ","), os.Getenv("CONTRACTCHECK_FIXTURE")) {
			fmt.Fprint(os.Stderr, "::error file=x::pwned\x1b[31m red \u202e evil\x07\x00\nTraceback: boom\n")
			os.Exit(1)
		}
		testagent.Main()
	case "hang":
		time.Sleep(time.Hour)
	case "silent":
		os.Exit(0)
	case "conformance":
		// A client written for the MCP conformance suite: the server's URL is its last argument,
		// the scenario and the protocol version come from the environment.
		url := os.Args[len(os.Args)-1]
		if url != os.Getenv("CONTRACTCHECK_MCP_URL") || os.Getenv("MCP_CONFORMANCE_SCENARIO") != os.Getenv("CONTRACTCHECK_FIXTURE") ||
			os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION") != "2025-11-25" {
			fmt.Fprintf(os.Stderr, "conformance: args %q, scenario %q, version %q\n", os.Args, os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"))
			os.Exit(1)
		}
		testagent.Main()
	case "no-followup":
		// Asks the model, calls the tool, and ends without sending the result on.
		if err := noFollowup(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "observe":
		// Reports an A2 carrier (and, when asked, that D1 failed), then runs the agent.
		bodies := []string{`{"stage":"A2","carrier":{"seen":` + strings.Repeat(" ", 2) + `"yes","n":1e2}}`}
		if os.Getenv("OBSERVE_D1_ERROR") != "" {
			bodies = append(bodies, `{"stage":"D1","error":"ValidationError: structuredContent must be an object"}`)
		}
		for _, body := range bodies {
			resp, err := http.Post(os.Getenv("CONTRACTCHECK_OBSERVE_URL"), "application/json", strings.NewReader(body))
			if err != nil || resp.StatusCode != http.StatusNoContent {
				fmt.Fprintln(os.Stderr, "observe failed:", err, resp)
				os.Exit(1)
			}
		}
		testagent.Main()
	}
	fmt.Fprintln(os.Stderr, "unknown CONTRACTCHECK_TESTAGENT")
	os.Exit(2)
}

// noFollowup sends one Chat Completions request listing the tool and calls the tool over MCP.
func noFollowup() error {
	req := `{"model":"m","messages":[{"role":"user","content":"go"}],"tools":[{"type":"function","function":{"name":"fixture_tool","parameters":{"type":"object"}}}]}`
	resp, err := http.Post(os.Getenv("OPENAI_BASE_URL")+"/chat/completions", "application/json", strings.NewReader(req))
	if err != nil {
		return err
	}
	resp.Body.Close()
	resp, err = http.Post(os.Getenv("CONTRACTCHECK_MCP_URL"), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}`))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// probeOpts are the options of a probe of the test agent, one repetition, into a new directory.
func probeOpts(t *testing.T, mode string, env []string, fixtures ...string) Options {
	t.Helper()
	return Options{
		Inputs:        inputs.Options{Scope: result.Scope{Fixtures: fixtures}},
		Lane:          "acme-agent",
		Version:       "1.0.0",
		Configuration: "default",
		Repetitions:   1,
		Output:        filepath.Join(t.TempDir(), "out"),
		RunTimeout:    time.Minute,
		Command:       []string{os.Args[0]},
		Executable:    os.Args[0],
		Env:           append(slices.Clone(os.Environ()), append([]string{"CONTRACTCHECK_TESTAGENT=" + mode}, env...)...),
	}
}

// runLogged probes with o, its log kept; t fails at once, the log shown, when the probe fails. It
// returns the result and the log.
func runLogged(t *testing.T, o Options) (*Result, string) {
	t.Helper()
	var log bytes.Buffer
	o.Log = &log
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return res, log.String()
}

// readRecords reads the records a probe wrote for the lane.
func readRecords(t *testing.T, o Options) []record {
	t.Helper()
	return testkit.JSONLines[record](t, filepath.Join(o.Output, o.Lane, o.Version, o.Configuration+".jsonl"))
}

// probeAgent probes the test agent (testagent, its provider API api, the rest of its settings in
// env) on the fixtures, in batch mode when batch is set; t fails at once unless every one is
// captured, nothing failed and the provider is api. It returns the records written.
func probeAgent(t *testing.T, api string, env []string, batch bool, fixtures ...string) []record {
	t.Helper()
	o := probeOpts(t, "agent", append([]string{"TESTAGENT_API=" + api}, env...), fixtures...)
	o.Batch = batch
	res, log := runLogged(t, o)
	if res.Captured != len(fixtures) || res.Failed != 0 || res.Provider != api {
		t.Fatalf("result %+v; log:\n%s", res, log)
	}
	return readRecords(t, o)
}

func h4Of(t *testing.T, recs []record, fixture string, rep int) record {
	t.Helper()
	for _, r := range recs {
		if r.Fixture == fixture && r.Stage == "H4" && r.Repetition == rep {
			return r
		}
	}
	t.Fatalf("no H4 record of %s repetition %d in %+v", fixture, rep, recs)
	return record{}
}

// TestAPIs runs the Go test agent through every provider API, plain and streamed, over both MCP
// transports, and reads back the tool-result item the agent put in its second request. One
// fixture a case: each run is a process, and probes of several fixtures through these APIs are
// TestRealClientHabits's and TestTrafficDeterministic's.
func TestAPIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, api, stream, transport string
		want                         string // the H4 carrier of C09 ("The quick brown fox…" plain text)
	}{
		{"responses plain http", "openai-responses", "0", "http", `"type":"function_call_output"`},
		{"responses streamed stdio", "openai-responses", "1", "stdio", `"type":"function_call_output"`},
		{"chat plain stdio", "openai-chat", "0", "stdio", `"role":"tool"`},
		{"chat streamed http", "openai-chat", "1", "http", `"role":"tool"`},
		{"anthropic plain http", "anthropic", "0", "http", `"type":"tool_result"`},
		{"anthropic streamed stdio", "anthropic", "1", "stdio", `"type":"tool_result"`},
		{"gemini plain stdio", "gemini", "0", "stdio", `"functionResponse"`},
		{"gemini streamed http", "gemini", "1", "http", `"functionResponse"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := probeAgent(t, tt.api, []string{"TESTAGENT_STREAM=" + tt.stream, "TESTAGENT_TRANSPORT=" + tt.transport}, false, "C09")
			if len(recs) != 4 {
				t.Fatalf("%d records, want 4 stages", len(recs))
			}
			for _, r := range recs {
				if r.Stage != "H4" && r.State != "not_observable" {
					t.Errorf("%s %s: %s", r.Fixture, r.Stage, r.State)
				}
			}
			h4 := h4Of(t, recs, "C09", 1)
			if h4.State != "captured" || !strings.Contains(string(h4.Carrier), tt.want) {
				t.Errorf("C09 H4 %s: %s", h4.State, h4.Carrier)
			}
			if h4.SourceSha256 == "" || h4.Origin != "captured" {
				t.Errorf("C09 H4 provenance %+v", h4)
			}
		})
	}
}

// TestBrokenCommands: a command that fails in any way gives execution_failed with why, never a
// silent gap, and never a carrier.
func TestBrokenCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode string
		timeout    time.Duration
		want       []string // in the H4 record's error
	}{
		{"exit 1", "exit1", time.Minute, []string{"exited with exit status 1", "Traceback: boom"}},
		{"hang", "hang", 2 * time.Second, []string{"did not finish within --run-timeout 2s"}},
		{"no model request", "silent", time.Minute, []string{"sent no model request"}},
		{"no follow-up", "no-followup", time.Minute, []string{"sent no model request carrying its result"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each case probes into its own directory: the cases run together, so that the
			// hangs' timeouts do not add up.
			t.Parallel()
			o := probeOpts(t, tt.mode, nil, "C09")
			o.RunTimeout = tt.timeout
			o.Provider = "openai-chat"
			res, log := runLogged(t, o)
			if res.Failed != 1 || res.Captured != 0 {
				t.Fatalf("result %+v", res)
			}
			h4 := h4Of(t, readRecords(t, o), "C09", 1)
			if h4.State != "execution_failed" || h4.Carrier != nil {
				t.Fatalf("H4 %+v", h4)
			}
			for _, w := range tt.want {
				if !strings.Contains(h4.Error, w) {
					t.Errorf("error %q lacks %q", h4.Error, w)
				}
			}
			// The log line a terminal or CI log shows holds no control or bidi character, and no
			// workflow command starts a line.
			for _, line := range strings.Split(log, "\n") {
				if strings.HasPrefix(line, "::") || strings.ContainsAny(line, "\x1b\x07\u202e\r") {
					t.Errorf("unsafe log line %q", line)
				}
			}
			// The output's escape sequence is spelt as check spells it in its report.
			if tt.mode == "exit1" && !strings.Contains(log, `pwned\u001b[31m red \u202e evil\u0007`) {
				t.Errorf("the log does not spell the command's output as escape.Terminal does:\n%s", log)
			}
		})
	}
}

// TestBatch runs every selected fixture in one process: each call is served its own fixture and
// each H4 item is attributed by call id.
func TestBatch(t *testing.T) {
	t.Parallel()
	o := probeOpts(t, "agent", []string{"TESTAGENT_API=openai-chat", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=http"}, "C0[5-9]")
	o.Batch = true
	o.Repetitions = 2
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs != 2 || res.Captured != 10 || res.Failed != 0 {
		t.Fatalf("result %+v", res)
	}
	recs := readRecords(t, o)
	for _, id := range []string{"C05", "C06", "C07", "C08", "C09"} {
		for rep := 1; rep <= 2; rep++ {
			h4 := h4Of(t, recs, id, rep)
			if !strings.Contains(string(h4.Carrier), `"tool_call_id":"call_`+id+`"`) {
				t.Errorf("%s/%d H4 %s", id, rep, h4.Carrier)
			}
		}
	}
	// C07's result (isError true, "Reservation failed…") is not C09's: each call got its fixture.
	if bytes.Equal(h4Of(t, recs, "C07", 1).Carrier, h4Of(t, recs, "C09", 1).Carrier) {
		t.Error("two fixtures' H4 items are the same")
	}
}

// TestObserveHook: a lane declared in a layer of the user's observes A2; the command reports its
// carrier to the observe hook and the record holds it.
func TestObserveHook(t *testing.T) {
	t.Parallel()
	layer := t.TempDir()
	lane := `package contracts

lanes: "acme-agent": {
	doc:    "A lane of the user's own: A2 reported through the observe hook."
	origin: "captured"
	versions: ["1.0.0"]
	configurations: default: doc: "default"
	stages: {
		D1: {exposure: "observed", doc: "the SDK's result", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
		A2: {exposure: "observed", doc: "the app's view", carrier: "carriers/acme-a2.schema.json", compartments: {content: _mcpResult, structured: _mcpResult, error: _mcpResult, meta: _mcpResult}}
		M3: {exposure: "not_applicable", doc: "none", compartments: {}}
		H4: _providerH4["openai-chat"]
	}
}
`
	if err := os.WriteFile(filepath.Join(layer, "lane.cue"), []byte(lane), 0o644); err != nil {
		t.Fatal(err)
	}
	schemas := t.TempDir()
	schema := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["seen"]}`
	testkit.WriteFile(t, filepath.Join(schemas, "carriers", "acme-a2.schema.json"), schema)
	o := probeOpts(t, "observe", []string{"TESTAGENT_API=openai-chat", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=http", "OBSERVE_D1_ERROR=1"}, "C09")
	o.Inputs.Contracts = []string{layer}
	o.Inputs.Schemas = []string{schemas}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Captured != 1 {
		t.Fatalf("result %+v", res)
	}
	states := map[string]string{}
	var a2 record
	recs := readRecords(t, o)
	for _, r := range recs {
		states[r.Stage] = r.State
		if r.Stage == "A2" {
			a2 = r
		}
	}
	want := map[string]string{"D1": "execution_failed", "A2": "captured", "M3": "not_applicable", "H4": "captured"}
	if fmt.Sprint(states) != fmt.Sprint(want) {
		t.Errorf("states %v, want %v", states, want)
	}
	if string(a2.Carrier) != `{"seen":"yes","n":1e2}` {
		t.Errorf("A2 carrier %s", a2.Carrier)
	}
	if d1 := recs[0]; d1.Stage != "D1" || d1.Error != "the command reported: ValidationError: structuredContent must be an object" {
		t.Errorf("D1 record %+v", d1)
	}
	lf, err := os.ReadFile(filepath.Join(o.Output, LaneFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(lf, []byte(`lanes: "acme-agent"`)) {
		t.Errorf("probe.cue redeclares a lane a layer declares:\n%s", lf)
	}
}

// TestObserveRefused: reporting a stage the generated lane does not observe fails the run.
func TestObserveRefused(t *testing.T) {
	t.Parallel()
	o := probeOpts(t, "observe", []string{"TESTAGENT_API=openai-chat", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=http"}, "C09")
	o.Provider = "openai-chat"
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	h4 := h4Of(t, readRecords(t, o), "C09", 1)
	if res.Failed != 1 || !strings.Contains(h4.Error, "does not observe it") {
		t.Errorf("result %+v, H4 %+v", res, h4)
	}
}

// TestOutput: the records merge across probes, probe.cue declares every probed version, and a
// directory that is not a probe's is refused.
func TestOutput(t *testing.T) {
	t.Parallel()
	env := []string{"TESTAGENT_API=anthropic", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=http"}
	o := probeOpts(t, "agent", env, "C09")
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	o2 := o
	o2.Inputs.Scope.Fixtures = []string{"C07"}
	if _, err := Run(context.Background(), o2); err != nil {
		t.Fatal(err)
	}
	o3 := o
	o3.Version = "2.0.0-rc.1"
	if _, err := Run(context.Background(), o3); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, o)
	if len(recs) != 8 || recs[0].Fixture != "C07" || recs[4].Fixture != "C09" {
		t.Errorf("merged records: %d, first %s", len(recs), recs[0].Fixture)
	}
	lf, err := os.ReadFile(filepath.Join(o.Output, LaneFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`lanes: "acme-agent"`, `versions: ["1.0.0", "2.0.0-rc.1"]`, `H4: _providerH4["anthropic"]`, `profiles: probe`} {
		if !bytes.Contains(lf, []byte(w)) {
			t.Errorf("probe.cue lacks %s:\n%s", w, lf)
		}
	}
	// Another provider for the same lane is refused: a lane has one H4 binding.
	o4 := o
	o4.Provider = "gemini"
	if _, err := Run(context.Background(), o4); err == nil || !strings.Contains(err.Error(), "with provider anthropic before") {
		t.Errorf("provider switch: %v", err)
	}

	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "README.md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	o5 := o
	o5.Output = foreign
	if _, err := Run(context.Background(), o5); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("foreign directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "README.md")); string(b) != "mine" {
		t.Error("README.md was overwritten")
	}
}

// TestUsage: bad flags are input errors that name what is wrong.
func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no command", func(o *Options) { o.Command = nil }, "no command"},
		{"no lane", func(o *Options) { o.Lane = "" }, "--lane is required"},
		{"a lane name with a slash", func(o *Options) { o.Lane = "../x" }, "--lane"},
		{"a version that is a path", func(o *Options) { o.Version = "../../etc" }, "--version"},
		{"a version with a newline", func(o *Options) { o.Version = "1\n::error::x" }, `--version "1\n::error::x"`},
		{"an unknown provider", func(o *Options) { o.Provider = "cohere" }, "--provider"},
		{"no fixture selected", func(o *Options) { o.Inputs.Scope.Fixtures = []string{"NOPE"} }, `"NOPE" matches nothing`},
		{"body for a generated lane", func(o *Options) { o.Body = true }, "--h4-body"},
		{"a built-in lane at an unknown version", func(o *Options) { o.Lane = "adk-go" }, "declares versions"},
		{"negative jobs", func(o *Options) { o.Jobs = -1 }, "--jobs -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := probeOpts(t, "agent", nil, "C09")
			tt.edit(&o)
			_, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			var pe *result.InputError
			if !errors.As(err, &pe) && result.ExitCode(err) != result.ExitInputError {
				t.Errorf("%v is not an input error", err)
			}
			if _, statErr := os.Stat(o.Output); statErr == nil {
				t.Error("a refused probe wrote its output")
			}
		})
	}
}

// TestBatchMatchesPerFixture: Gemini function calls carry no id, so batch mode attributes each
// functionResponse by order and name; every fixture's H4 item must then be the one a process of
// its own sends.
func TestBatchMatchesPerFixture(t *testing.T) {
	t.Parallel()
	env := []string{"TESTAGENT_API=gemini", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=stdio"}
	single := probeOpts(t, "agent", env, "C0[5-9]", "C1[0-1]")
	if _, err := Run(context.Background(), single); err != nil {
		t.Fatal(err)
	}
	batch := probeOpts(t, "agent", env, "C0[5-9]", "C1[0-1]")
	batch.Batch = true
	if _, err := Run(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	one, all := readRecords(t, single), readRecords(t, batch)
	seen := map[string]bool{}
	for _, id := range []string{"C05", "C06", "C07", "C08", "C09", "C10", "C11"} {
		a, b := h4Of(t, one, id, 1), h4Of(t, all, id, 1)
		if a.State != "captured" || !bytes.Equal(a.Carrier, b.Carrier) {
			t.Errorf("%s: per fixture %s %s, batch %s %s", id, a.State, a.Carrier, b.State, b.Carrier)
		}
		if seen[string(b.Carrier)] {
			t.Errorf("%s: the same H4 item as another fixture: %s", id, b.Carrier)
		}
		seen[string(b.Carrier)] = true
	}
}

// TestServerOnTheCommandLine: {url} in an argument, or --append-url, gives the agent the MCP
// endpoint on its command line, with the conformance suite's environment beside it.
func TestServerOnTheCommandLine(t *testing.T) {
	t.Parallel()
	env := []string{"TESTAGENT_API=anthropic", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=http"}
	for _, tt := range []struct {
		name    string
		command []string
		append  bool
	}{
		{"placeholder", []string{os.Args[0], "--server={url}", "{url}"}, false},
		{"appended", []string{os.Args[0], "--verbose"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := probeOpts(t, "conformance", env, "C09")
			o.Command, o.AppendURL = tt.command, tt.append
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if h4 := h4Of(t, readRecords(t, o), "C09", 1); res.Captured != 1 || h4.State != "captured" {
				t.Errorf("result %+v, H4 %+v", res, h4)
			}
		})
	}
}

// TestVisibility probes the test agent, which forwards a result's content and never its
// structuredContent, on the visibility fixtures through two provider APIs, and reads its category
// from the records: what a user learns of their own agent from one probe run.
func TestVisibility(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
	}{
		{"responses", []string{"TESTAGENT_API=openai-responses", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=http"}},
		{"anthropic streamed", []string{"TESTAGENT_API=anthropic", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=http"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := probeOpts(t, "agent", tt.env, "V0*")
			if _, err := Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			judged, err := check.Run(context.Background(), JudgeOptions(o, nil))
			if err != nil {
				t.Fatal(err)
			}
			vs := judged.VisibilityReadout()
			if len(vs) != 1 {
				t.Fatalf("visibility: %d groups, want the lane's H4 only: %+v", len(vs), vs)
			}
			if g := judged.Gate; !g.Satisfied || len(g.Reached) != 1 || g.Reached[0].Groups != 1 || len(g.Reached[0].Unreached) != 0 {
				t.Errorf("gate %s, reached %+v; want satisfied, the H4 group judged and reached", g.Verdict, g.Reached)
			}
			v := vs[0]
			if v.Lane != "acme-agent" || v.Stage != "H4" || v.Category != "content-only" || len(v.Fixtures) != 4 {
				t.Errorf("visibility: %s %s %s: %s over %d fixtures, want content-only over V01-V04: %+v", v.Lane, v.Stage, v.Configuration, v.Summary(), len(v.Fixtures), v)
			}
			for _, f := range v.Fixtures {
				want := "content"
				if f.Fixture == "V02" {
					want = "nothing" // empty content: the structured value is never forwarded
				}
				if f.Shape != want || f.Channels["structured"] != "none" {
					t.Errorf("%s: shape %s, channels %v; want %s and no structured value", f.Fixture, f.Shape, f.Channels, want)
				}
			}
		})
	}
	// A probe of no visibility fixture has nothing to say about it.
	o := probeOpts(t, "agent", tests[0].env, "C09")
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if judged, err := check.Run(context.Background(), JudgeOptions(o, nil)); err != nil || judged.VisibilityGroups() != 0 {
		t.Errorf("probe of C09: %v; want a check with no visibility readout", err)
	}
}
