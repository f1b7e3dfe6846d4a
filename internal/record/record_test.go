package record

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/check"
	ccescape "github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testagent"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// The credentials the tests' agent sends; none of them may be written.
var testKeys = map[string]string{
	"OPENAI_API_KEY":    "sk-test-openai-0123456789abcdef",
	"ANTHROPIC_API_KEY": "sk-ant-test-9876543210fedcba",
	"GEMINI_API_KEY":    "AIza-test-gemini-5555aaaa",
	"GOOGLE_API_KEY":    "AIza-test-gemini-5555aaaa",
}

// upstream serves a fake provider that plays the model: it calls lookup once per kind, with
// call ids unique to the test (prefix), then answers in text.
func upstream(t *testing.T, prefix string, which []string) string {
	t.Helper()
	var calls []fakeprovider.Call
	for i, w := range which {
		calls = append(calls, fakeprovider.Call{ID: prefix + "_" + w + "_" + string(rune('a'+i)), Arguments: `{"which":"` + w + `"}`})
	}
	p := fakeprovider.New(fakeprovider.Config{Tool: "lookup", Calls: calls})
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

// recording runs Run with o until drive returns, then stops it and returns what it did.
func recording(t *testing.T, o Options, drive func(ep Endpoints) error) (*Result, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ready := make(chan Endpoints, 1)
	o.Ready = func(ep Endpoints) { ready <- ep }
	if o.Executable == "" {
		o.Executable = os.Args[0]
	}
	log := &testkit.Buffer{}
	o.Log = log
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	rctx, stop := context.WithCancel(ctx)
	go func() {
		res, err := Run(rctx, o)
		done <- out{res, err}
	}()
	select {
	case ep := <-ready:
		if err := drive(ep); err != nil {
			t.Errorf("the agent: %v", err)
		}
		stop()
	case r := <-done:
		stop()
		return r.res, log.String(), r.err
	}
	r := <-done
	return r.res, log.String(), r.err
}

// agent runs the test agent against the endpoints.
func agent(ep Endpoints, api fakeprovider.API, stream, stdio bool) error {
	env := map[string]string{}
	for k, v := range testKeys {
		env[k] = v
	}
	for _, kv := range ep.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg := testagent.Config{API: api, Stream: stream, Tool: "lookup", Env: func(k string) string { return env[k] }, Stdout: io.Discard}
	if stdio {
		argv, err := ccescape.ShellWords(ep.MCPCommand)
		if err != nil {
			return err
		}
		cfg.MCPCommand = argv
	} else {
		cfg.MCPURL = ep.MCP
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return testagent.Run(ctx, cfg)
}

// judge checks the output as `check --fixtures DIR --observations DIR --contracts DIR --profile
// record` does.
func judge(t *testing.T, dir string) *result.Report {
	t.Helper()
	r, err := check.Run(context.Background(), inputs.Options{Fixtures: []string{dir}, Observations: []string{dir}, Contracts: []string{dir}, Profile: ProfileName})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	return r
}

// TestRecordEndToEnd: the test agent, through record, against the stand-in MCP server (HTTP and
// stdio) and a fake provider upstream (plain and streamed, four APIs): every tools/call result is
// paired and written, check judges the records with exit 0 naming the recorded fixtures, no
// credential of the traffic is in any file, and --redact leaves the blanked value nowhere.
func TestRecordEndToEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		api    fakeprovider.API
		stream bool
		stdio  bool
		sse    bool
		gzip   bool
	}{
		{name: "http responses plain", api: fakeprovider.OpenAIResponses, sse: true},
		{name: "http anthropic streamed", api: fakeprovider.Anthropic, stream: true},
		{name: "http gzip chat plain", api: fakeprovider.OpenAIChat, sse: true, gzip: true},
		{name: "stdio chat streamed", api: fakeprovider.OpenAIChat, stream: true, stdio: true},
		{name: "stdio gemini plain", api: fakeprovider.Gemini, stdio: true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mcp := httptest.NewServer(&standIn{sse: tc.sse, gzip: tc.gzip})
			defer mcp.Close()
			out := filepath.Join(t.TempDir(), "rec")
			o := Options{Lane: "my-agent", Version: "1.0.0", Output: out, ProviderURL: upstream(t, "c"+string(rune('0'+i)), kinds),
				Redact: []string{"/structuredContent/owner"}}
			if tc.stdio {
				o.MCPCommand = []string{os.Args[0], standInSentinel}
			} else {
				o.MCPURL = mcp.URL + "/mcp"
			}
			res, log, err := recording(t, o, func(ep Endpoints) error { return agent(ep, tc.api, tc.stream, tc.stdio) })
			if err != nil {
				t.Fatalf("record: %v\n%s", err, log)
			}
			if res.Pairs != len(kinds) || res.Lost() {
				t.Fatalf("%s; want %d pairs and nothing lost\n%s", res.Stats, len(kinds), log)
			}
			secrets := []string{secretValue}
			for _, v := range testKeys {
				secrets = append(secrets, v)
			}
			testkit.TreeLacks(t, out, secrets...)
			for p, b := range testkit.Tree(t, out) {
				if strings.HasSuffix(p, ".json") && !json.Valid(b) {
					t.Errorf("%s is not JSON", p)
				}
			}
			recs := readRecords(t, filepath.Join(out, "my-agent", "1.0.0", "default.jsonl"))
			if len(recs) != 4*len(kinds) {
				t.Fatalf("%d records, want %d", len(recs), 4*len(kinds))
			}
			redacted := 0
			for _, r := range recs {
				if r.Stage == "H4" && len(r.Redacted) > 0 {
					redacted++
				}
			}
			if redacted != 1 {
				t.Errorf("%d H4 records say they were redacted, want 1 (the structured result)", redacted)
			}
			rep := judge(t, out)
			if code := rep.ExitCode(); code != result.ExitSatisfied {
				t.Errorf("check exit %d, want 0 (every recorded result judged)", code)
			}
			judged := map[string]bool{}
			for i := range rep.Results.Len() {
				x := rep.Results.At(i)
				if x.Lane == "my-agent" && x.Stage == "H4" {
					judged[x.Fixture] = true
				}
			}
			for _, r := range recs {
				if !judged[r.Fixture] {
					t.Errorf("fixture %s was recorded but check judged nothing of it at H4", r.Fixture)
				}
			}
		})
	}
}

type recLine struct {
	Fixture, Stage, State string
	Repetition            int
	Redacted              []string
	Carrier               json.RawMessage
}

func readRecords(t *testing.T, p string) []recLine {
	t.Helper()
	return testkit.JSONLines[recLine](t, p)
}

// TestRecordCommand: record runs the agent command with the proxies in its environment (the
// stdio server through CONTRACTCHECK_MCP_COMMAND, the provider through ANTHROPIC_BASE_URL, the
// user's key kept) and stops when it exits; a second recording into the same directory adds
// repetitions of the same sources.
func TestRecordCommand(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "rec")
	for run := 1; run <= 2; run++ {
		var log, agentOut bytes.Buffer
		o := Options{Lane: "cmd-agent", Version: "2.0", Output: out, ProviderURL: upstream(t, "cmd", kinds[:2]),
			MCPCommand: []string{os.Args[0], standInSentinel}, Executable: os.Args[0],
			Command: []string{os.Args[0], agentSentinel}, Log: &log, Stdout: &agentOut, Stderr: &agentOut,
			Env: append(os.Environ(), "TESTAGENT_API=anthropic", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=stdio", "ANTHROPIC_API_KEY="+testKeys["ANTHROPIC_API_KEY"])}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := Run(ctx, o)
		cancel()
		if err != nil || res.AgentErr != nil {
			t.Fatalf("run %d: %v %v\n%s%s", run, err, res.AgentErr, log.String(), agentOut.String())
		}
		if res.Pairs != 2 || res.Lost() || res.Sources != map[int]int{1: 2, 2: 0}[run] {
			t.Fatalf("run %d: %s; want 2 pairs (sources new in the first run only)\n%s%s", run, res.Stats, log.String(), agentOut.String())
		}
	}
	reps := map[string]int{}
	for _, r := range readRecords(t, filepath.Join(out, "cmd-agent", "2.0", "default.jsonl")) {
		if r.Stage == "H4" {
			reps[r.Fixture] = max(reps[r.Fixture], r.Repetition)
		}
	}
	if len(reps) != 2 {
		t.Errorf("fixtures %v, want 2 with 2 repetitions each", reps)
	}
	for f, n := range reps {
		if n != 2 {
			t.Errorf("%s: %d repetitions, want 2", f, n)
		}
	}
	testkit.TreeLacks(t, out, testKeys["ANTHROPIC_API_KEY"])
	if rep := judge(t, out); rep.ExitCode() != result.ExitSatisfied {
		t.Errorf("check exit %d, want 0", rep.ExitCode())
	}
}
