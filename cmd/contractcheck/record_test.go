package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/record"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestRecordHelp: record --help lists its flags and the check that judges its output.
func TestRecordHelp(t *testing.T) {
	t.Parallel()
	stdout, _ := cliOK(t, "record", "--help")
	for _, w := range []string{"--lane", "--version", "--configuration", "--suite", "--mcp ", "--mcp-command", "--provider ", "--provider-api", "--listen", "--output", "--redact", "--secret-header", "--max-records", "--max-bytes", "--duration", "--ca-file", "--memory-budget", "--profile record", "stdio"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("record --help does not mention %q", w)
		}
	}
}

// TestRecordUsage: record's usage errors exit 2 naming the flag, and write nothing.
func TestRecordUsage(t *testing.T) {
	t.Parallel()
	ok := []string{"--lane", "a", "--version", "1", "--provider", "http://127.0.0.1:9", "--mcp", "http://127.0.0.1:9/mcp", "--output", "OUT"}
	with := func(drop string, extra ...string) []string {
		var out []string
		for i := 0; i < len(ok); i += 2 {
			if ok[i] != drop {
				out = append(out, ok[i], ok[i+1])
			}
		}
		return append(out, extra...)
	}
	runUsageCases(t, "record", []usageCase{
		{"no lane", with("--lane"), "--lane is required"},
		{"no output", with("--output"), "--output is required"},
		{"no provider", with("--provider"), "--provider is required"},
		{"no MCP server", with("--mcp"), "--mcp"},
		{"a bad pointer", with("", "--redact", "owner"), `--redact "owner"`},
		{"a header name that is not one", with("", "--secret-header", "x tenant"), `--secret-header "x tenant"`},
		{"an unknown provider API", with("", "--provider-api", "x"), "--provider-api"},
		{"an unclosed quote", with("--mcp", "--mcp-command", "'node"), "--mcp-command"},
		{"arguments before --", with("", "node", "--", "x"), "give the agent command after --"},
		{"a listen address without port", with("", "--listen", "127.0.0.1"), "--listen"},
		{"stdio without a command", []string{"stdio", "--to", "http://127.0.0.1:9/x"}, "give the MCP server command after --"},
		{"stdio without --to", []string{"stdio", "--", "true"}, "--to is required"},
	})
}

// recordTraffic is a recording contractcheck record makes of one tool call, the traffic driven
// by the test.
type recordTraffic struct {
	lane, version string
	// result is the tools/call result (JSON) the stand-in MCP server answers with.
	result string
	// provider is the upstream provider.
	provider http.Handler
	// key, if not "", is sent as Authorization: Bearer key with every request.
	key string
}

// run runs contractcheck record (lane, version) on a free loopback port for --duration 3s between
// a stand-in MCP server answering every tools/call with rt.result and rt.provider, writing out,
// and drives one call through it: a tools/call of lookup (sent again until record listens), then
// the Chat Completions request carrying its text "order A-1 shipped". It returns record's exit
// code and standard error.
func (rt recordTraffic) run(t *testing.T, out string) (code int, stderr string) {
	t.Helper()
	mcp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct{ ID json.RawMessage }
		_ = json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, rt.result)
	}))
	defer mcp.Close()
	prov := httptest.NewServer(rt.provider)
	defer prov.Close()
	addr := testkit.FreeAddr(t)
	type outcome struct {
		code   int
		stderr string
	}
	done := make(chan outcome, 1)
	go func() {
		code, _, stderr := cli(t, "record", "--lane", rt.lane, "--version", rt.version, "--listen", addr, "--duration", "3s",
			"--mcp", mcp.URL+"/mcp", "--provider", prov.URL, "--output", out)
		done <- outcome{code, stderr}
	}()
	send := func(url, body string) error {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return err
		}
		if rt.key != "" {
			req.Header.Set("Authorization", "Bearer "+rt.key)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	base := "http://" + addr
	var err error
	for i := 0; ; i++ {
		if err = send(base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"order":"A-1"}}}`); err == nil || i == 100 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("record's MCP proxy: %v", err)
	}
	if err := send(base+"/provider/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"order\":\"A-1\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"order A-1 shipped"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`); err != nil {
		t.Fatalf("record's provider proxy: %v", err)
	}
	r := <-done
	return r.code, r.stderr
}

// TestRecordCommandLine: record on a fixed loopback port for --duration, traffic driven by the
// test (a tools/call of a stand-in MCP server, then a Chat Completions request carrying its
// result to a fake provider), exit 0; check judges the output with exit 0 and names the fixture;
// no credential is in any file.
func TestRecordCommandLine(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "rec")
	const key = "sk-cli-secret-0123456789"
	code, stderr := recordTraffic{
		lane: "cli-agent", version: "1", key: key,
		result:   `{"content":[{"type":"text","text":"order A-1 shipped"}],"structuredContent":{"order":"A-1"}}`,
		provider: fakeprovider.New(fakeprovider.Config{Tool: "lookup"}),
	}.run(t, out)
	if code != 0 || !strings.Contains(stderr, "1 pairs written") || !strings.Contains(stderr, "judge it: contractcheck check --fixtures") {
		t.Fatalf("record exit %d, want 0 with 1 pair\n%s", code, stderr)
	}
	stdout, _ := cliOK(t, "check", "--no-cache", "--fixtures", out, "--observations", out, "--contracts", out, "--profile", "record", "--format", "json")
	ids, _ := filepath.Glob(filepath.Join(out, "sources", "recorded", "R*.json"))
	if len(ids) != 1 || !strings.Contains(stdout, strings.TrimSuffix(filepath.Base(ids[0]), ".json")) {
		t.Errorf("check's report does not name the recorded fixture %v", ids)
	}
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				t.Errorf("%s holds the key", p)
			}
		}
		return err
	})
}

// TestRecordExit: a loss (or the agent failing) exits 3 before anything else; ambiguous records,
// nothing lost, exit 1 and say how many; a recording that paired everything exits 0.
func TestRecordExit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		res   record.Result
		code  int
		error string
	}{
		{name: "everything paired", res: record.Result{Stats: record.Stats{Calls: 2, Pairs: 2}}, code: 0},
		{name: "ambiguous", res: record.Result{Stats: record.Stats{Calls: 3, Pairs: 1, Ambiguous: 2}}, code: 1, error: "2 provider items written ambiguous"},
		{name: "ambiguous and lost", res: record.Result{Stats: record.Stats{Calls: 3, Ambiguous: 2, PendingCalls: 1}}, code: 3, error: "not recorded"},
		{name: "the agent failed", res: record.Result{Stats: record.Stats{Ambiguous: 1}, AgentErr: errors.New("exit status 1")}, code: 3, error: "the agent command failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, err := recordExit(&tc.res)
			if code != tc.code || (err == nil) != (tc.error == "") || err != nil && !strings.Contains(err.Error(), tc.error) {
				t.Errorf("exit %d (%v), want %d (%q)", code, err, tc.code, tc.error)
			}
		})
	}
}

// TestRecordUpstreamFailure: every provider request answered 502: record writes the pair
// execution_failed (no captured record), says so in its summary and exits 3 naming the failure.
func TestRecordUpstreamFailure(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "rec")
	code, stderr := recordTraffic{
		lane: "cli-agent", version: "1",
		result: `{"content":[{"type":"text","text":"order A-1 shipped"}]}`,
		provider: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, `{"error":{"message":"upstream connect error","type":"server_error"}}`)
		}),
	}.run(t, out)
	if code != 3 || !strings.Contains(stderr, "an upstream failed (1 pairs written execution_failed") ||
		!strings.Contains(stderr, "the provider answered HTTP 502 Bad Gateway: server_error: upstream connect error") {
		t.Fatalf("record exit %d, want 3 naming the failed pair\n%s", code, stderr)
	}
	recs, err := os.ReadFile(filepath.Join(out, "cli-agent", "1", "default.jsonl"))
	if err != nil || strings.Contains(string(recs), `"state":"captured"`) || !strings.Contains(string(recs), `"state":"execution_failed"`) {
		t.Errorf("records %s (%v), want H4 execution_failed and nothing captured", recs, err)
	}
}
