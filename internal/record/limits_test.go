package record

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// send sends one JSON request (with header) as an MCP client does and reads its answer: the
// status and the body (what came of it when the read failed).
func send(url string, header map[string]string, body string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// post sends one request and reads its answer.
func post(t *testing.T, url string, header map[string]string, body string) []byte {
	t.Helper()
	_, b, err := send(url, header, body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// callAndCarry makes one tools/call of lookup with which through the MCP proxy and one Chat
// Completions request carrying its result through the provider proxy (with header and query).
func callAndCarry(t *testing.T, ep Endpoints, n int, which string, header map[string]string, query string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"which": which})
	resp := post(t, ep.MCP, header, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":%s}}`, n, args))
	var m struct {
		Result struct {
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal(resp, &m); err != nil || len(m.Result.Content) == 0 {
		t.Fatalf("tools/call: %s", resp)
	}
	argText, _ := json.Marshal(string(args))
	content, _ := json.Marshal(m.Result.Content[0].Text)
	id := fmt.Sprintf("call_%d", n)
	body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":%q,"type":"function","function":{"name":"lookup","arguments":%s}}]},{"role":"tool","tool_call_id":%q,"content":%s}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`, id, argText, id, content)
	post(t, ep.Provider+"/v1/chat/completions"+query, header, body)
}

// TestCredentialsNeverWritten: a result that echoes a credential the traffic carried (in
// Authorization, x-api-key, api-key, x-goog-api-key or ?key=) is refused, loudly; the pair
// without one is written; no file holds any of them.
func TestCredentialsNeverWritten(t *testing.T) {
	t.Parallel()
	mcp := httptest.NewServer(&standIn{})
	defer mcp.Close()
	out := filepath.Join(t.TempDir(), "rec")
	tests := []struct {
		name   string
		header map[string]string
		query  string
		secret string
	}{
		{name: "authorization", header: map[string]string{"Authorization": "Bearer tok-authz-0123456789"}, secret: "tok-authz-0123456789"},
		{name: "x-api-key", header: map[string]string{"x-api-key": "xak-0123456789abc"}, secret: "xak-0123456789abc"},
		{name: "api-key", header: map[string]string{"api-key": "azure-key-0123456789"}, secret: "azure-key-0123456789"},
		{name: "x-goog-api-key", header: map[string]string{"x-goog-api-key": "AIza-goog-0123456789"}, secret: "AIza-goog-0123456789"},
		{name: "query key", query: "?key=AIza-query-0123456789", secret: "AIza-query-0123456789"},
	}
	o := Options{Lane: "creds", Version: "1", Output: out, MCPURL: mcp.URL + "/mcp", ProviderURL: upstream(t, "k", nil)}
	res, log, err := recording(t, o, func(ep Endpoints) error {
		for i, tc := range tests {
			callAndCarry(t, ep, i+1, "echo:the key is "+tc.secret, tc.header, tc.query)
		}
		callAndCarry(t, ep, 99, "text", map[string]string{"Authorization": "Bearer tok-authz-0123456789"}, "")
		return nil
	})
	if err != nil {
		t.Fatalf("record: %v\n%s", err, log)
	}
	if res.Pairs != 1 || res.Refused != len(tests) {
		t.Errorf("%s; want 1 pair written and %d refused\n%s", res.Stats, len(tests), log)
	}
	if !strings.Contains(log, "holds a credential of the traffic") {
		t.Errorf("the refusals were not said:\n%s", log)
	}
	var secrets []string
	for _, tc := range tests {
		secrets = append(secrets, tc.secret)
	}
	testkit.TreeLacks(t, out, secrets...)
	if strings.Contains(log, "0123456789") {
		t.Errorf("the log shows a credential:\n%s", log)
	}
}

// TestMaxRecords: --max-records N writes N pairs, says loudly that it stopped, and the proxies
// keep forwarding.
func TestMaxRecords(t *testing.T) {
	t.Parallel()
	mcp := httptest.NewServer(&standIn{})
	defer mcp.Close()
	out := filepath.Join(t.TempDir(), "rec")
	o := Options{Lane: "limited", Version: "1", Output: out, MCPURL: mcp.URL + "/mcp", ProviderURL: upstream(t, "m", kinds), MaxRecords: 2}
	res, log, err := recording(t, o, func(ep Endpoints) error { return agent(ep, fakeprovider.OpenAIResponses, false, false) })
	if err != nil {
		t.Fatalf("record: %v\n%s", err, log)
	}
	if res.Pairs != 2 || res.Limit == "" || !res.Lost() {
		t.Errorf("%s (limit %q); want 2 pairs and the limit reached", res.Stats, res.Limit)
	}
	if !strings.Contains(log, "--max-records 2 reached: recording stopped") {
		t.Errorf("the limit was not said:\n%s", log)
	}
	if recs := readRecords(t, filepath.Join(out, "limited", "1", "default.jsonl")); len(recs) != 8 {
		t.Errorf("%d records, want 8 (2 pairs)", len(recs))
	}
}

// TestUnwritableOutput: a write that fails mid-recording ends the recording with the error.
func TestUnwritableOutput(t *testing.T) {
	t.Parallel()
	mcp := httptest.NewServer(&standIn{})
	defer mcp.Close()
	out := filepath.Join(t.TempDir(), "rec")
	// With --provider-api the directories are made at the start; the first source's write fails.
	o := Options{Lane: "broken", Version: "1", Output: out, MCPURL: mcp.URL + "/mcp", ProviderURL: upstream(t, "u", kinds), ProviderAPI: fakeprovider.OpenAIChat}
	_, log, err := recording(t, o, func(ep Endpoints) error {
		// The sources directory becomes a file: no source can be written into it (as root too).
		dir := filepath.Join(out, "sources", "recorded")
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.WriteFile(dir, []byte("not a directory"), 0o444); err != nil {
			return err
		}
		_ = agent(ep, fakeprovider.OpenAIChat, false, false) // fails once the recording ends
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "write") {
		t.Fatalf("record: %v, want the write's failure\n%s", err, log)
	}
	if !strings.Contains(log, "recording ends") {
		t.Errorf("the failure was not said:\n%s", log)
	}
}

// TestNothingSeen: a recording that saw no traffic writes nothing and exits clean.
func TestNothingSeen(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "rec")
	res, log, err := recording(t, Options{Lane: "idle", Version: "1", Output: out, MCPURL: "http://127.0.0.1:9/mcp", ProviderURL: "http://127.0.0.1:9"},
		func(Endpoints) error { return nil })
	if err != nil || res.Lost() || res.Pairs != 0 {
		t.Fatalf("%v %+v\n%s", err, res, log)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a recording that saw nothing wrote its output")
	}
}

// TestOptionsErrors: bad options are input errors naming the flag, and write nothing.
func TestOptionsErrors(t *testing.T) {
	t.Parallel()
	notEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(notEmpty, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := func() Options {
		return Options{Lane: "a", Version: "1", Output: filepath.Join(t.TempDir(), "o"), MCPURL: "http://127.0.0.1:1/mcp", ProviderURL: "http://127.0.0.1:1"}
	}
	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{name: "no lane", change: func(o *Options) { o.Lane = "" }, want: "--lane is required"},
		{name: "bad lane", change: func(o *Options) { o.Lane = "A B" }, want: "--lane"},
		{name: "no provider", change: func(o *Options) { o.ProviderURL = "" }, want: "--provider is required"},
		{name: "provider not a URL", change: func(o *Options) { o.ProviderURL = "ftp://x" }, want: "--provider"},
		{name: "no MCP", change: func(o *Options) { o.MCPURL = "" }, want: "--mcp"},
		{name: "pointer without slash", change: func(o *Options) { o.Redact = []string{"a/b"} }, want: `--redact "a/b"`},
		{name: "pointer bad escape", change: func(o *Options) { o.Redact = []string{"/a~2"} }, want: `--redact "/a~2"`},
		{name: "unknown provider API", change: func(o *Options) { o.ProviderAPI = "x" }, want: "--provider-api"},
		{name: "negative max-records", change: func(o *Options) { o.MaxRecords = -1 }, want: "--max-records"},
		{name: "a foreign output", change: func(o *Options) { o.Output = notEmpty }, want: "holds no record.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.change(&o)
			_, err := Run(t.Context(), o)
			var ie *result.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want an input error holding %q", err, tc.want)
			}
			if o.Output != notEmpty {
				if _, err := os.Stat(o.Output); err == nil {
					t.Error("a refused recording wrote its output")
				}
			}
		})
	}
}

// TestMaxBytes: --max-bytes stops the recording before the write that would pass it.
func TestMaxBytes(t *testing.T) {
	t.Parallel()
	mcp := httptest.NewServer(&standIn{})
	defer mcp.Close()
	out := filepath.Join(t.TempDir(), "rec")
	o := Options{Lane: "sized", Version: "1", Output: out, MCPURL: mcp.URL + "/mcp", ProviderURL: upstream(t, "b", kinds[:3]), MaxBytes: 3000}
	res, log, err := recording(t, o, func(ep Endpoints) error { return agent(ep, fakeprovider.OpenAIChat, false, false) })
	if err != nil {
		t.Fatalf("record: %v\n%s", err, log)
	}
	if res.Pairs == 0 || res.Pairs == 3 || res.Bytes > 3000 || !strings.Contains(log, "--max-bytes 3000 reached") {
		t.Errorf("%s; want the recording stopped before 3000 bytes\n%s", res.Stats, log)
	}
}

// TestUpstreamTLS: an upstream whose certificate the system does not trust is refused (the agent
// gets 502 and the recorder says why); with --ca-file naming its CA it is reached.
func TestUpstreamTLS(t *testing.T) {
	t.Parallel()
	prov := httptest.NewTLSServer(fakeprovider.New(fakeprovider.Config{Tool: "lookup"}))
	defer prov.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: prov.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		caFile string
		status int
	}{{name: "untrusted", status: http.StatusBadGateway}, {name: "trusted by --ca-file", caFile: ca, status: http.StatusOK}} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Lane: "tls", Version: "1", Output: filepath.Join(t.TempDir(), "rec"), MCPURL: "http://127.0.0.1:9/mcp", ProviderURL: prov.URL, CAFile: tc.caFile}
			status := 0
			_, log, err := recording(t, o, func(ep Endpoints) error {
				resp, err := http.Get(ep.Provider + "/v1/models")
				if err != nil {
					return err
				}
				resp.Body.Close()
				status = resp.StatusCode
				return nil
			})
			if err != nil || status != tc.status {
				t.Errorf("status %d (%v), want %d\n%s", status, err, tc.status, log)
			}
			if tc.caFile == "" && !strings.Contains(log, "certificate") {
				t.Errorf("the refusal does not say why:\n%s", log)
			}
		})
	}
}
