package record

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// TestRedact: a pointer's value is replaced in the result, and its strings' text is blanked in
// the result and the item at every escaping depth; numbers only at the pointer.
func TestRedact(t *testing.T) {
	t.Parallel()
	src := `{"content":[{"type":"text","text":"{\"email\":\"ann@example.com\",\"n\":42,\"tag\":\"<é>\"}"}],"structuredContent":{"email":"ann@example.com","n":42,"a/b":"x-y-z","tag":"<é>"}}`
	tests := []struct {
		name     string
		pointers []string
		item     string
		gone     []string // texts no output may hold
		kept     []string // texts the result must still hold
		applied  []string
	}{
		{name: "a string, everywhere", pointers: []string{"/structuredContent/email"},
			item: `{"role":"tool","content":"{\"email\":\"ann@example.com\"}"}`, gone: []string{"ann@example.com"}, kept: []string{`"n":42`}, applied: []string{"/structuredContent/email"}},
		{name: "an object's strings", pointers: []string{"/structuredContent"},
			item: `{"output":"ann@example.com x-y-z"}`, gone: []string{"ann@example.com", "x-y-z"}, kept: []string{`"structuredContent":"[redacted]"`}, applied: []string{"/structuredContent"}},
		{name: "a number at the pointer only", pointers: []string{"/structuredContent/n"},
			item: `{"output":"42"}`, kept: []string{`\"n\":42`, `"n":"[redacted]"`}, applied: []string{"/structuredContent/n"}},
		{name: "an escaped token", pointers: []string{"/structuredContent/a~1b"},
			item: `{"output":"x-y-z"}`, gone: []string{"x-y-z"}, applied: []string{"/structuredContent/a~1b"}},
		{name: "HTML and Python escapes", pointers: []string{"/structuredContent/tag"},
			item: `{"a":"\u003c\u00e9\u003e","b":"<\u00e9>"}`, gone: []string{`\u003c\u00e9\u003e`, `<\u00e9>`, "<é>"}, applied: []string{"/structuredContent/tag"}},
		{name: "a pointer that selects nothing", pointers: []string{"/structuredContent/none"},
			item: `{"output":"ann@example.com"}`, kept: []string{"ann@example.com"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ps []pointer
			for _, p := range tc.pointers {
				pp, err := parsePointer(p)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, pp)
			}
			out, item, applied, err := redact(ps, []byte(src), []byte(tc.item))
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) || !json.Valid(item) {
				t.Fatalf("not JSON: %s / %s", out, item)
			}
			for _, g := range tc.gone {
				if strings.Contains(string(out), g) || strings.Contains(string(item), g) {
					t.Errorf("%q is still there:\n%s\n%s", g, out, item)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(string(out)+string(item), k) {
					t.Errorf("%q is gone:\n%s\n%s", k, out, item)
				}
			}
			if !slices.Equal(applied, tc.applied) {
				t.Errorf("applied %q, want %q", applied, tc.applied)
			}
		})
	}
}

// TestParsePointer: RFC 6901 syntax, the flag value named in the error.
func TestParsePointer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		tokens   []string
		err      string
	}{
		{name: "the whole document", in: "", tokens: nil},
		{name: "members", in: "/a/0/b", tokens: []string{"a", "0", "b"}},
		{name: "escapes", in: "/a~1b/c~0d", tokens: []string{"a/b", "c~d"}},
		{name: "an empty member", in: "/", tokens: []string{""}},
		{name: "no slash", in: "a", err: `--redact "a"`},
		{name: "a bad escape", in: "/a~x", err: `--redact "/a~x"`},
		{name: "a trailing tilde", in: "/a~", err: "~ must be followed by 0 or 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parsePointer(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(p.tokens, tc.tokens) {
				t.Errorf("tokens %q, %v; want %q", p.tokens, err, tc.tokens)
			}
		})
	}
}

// TestProviderResults: each API's results are found with their call's name and arguments from
// the history, the item's exact bytes, and a result whose call the history lacks is an orphan.
func TestProviderResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		api     fakeprovider.API
		body    string
		keys    []string
		item    string
		orphans int
	}{
		{name: "responses", api: fakeprovider.OpenAIResponses,
			body: `{"input":[{"type":"function_call","call_id":"c1","name":"srv_lookup","arguments":"{\"n\":1.0}"},{"type":"function_call_output","call_id":"c1","output":"R"},{"type":"function_call_output","call_id":"c9","output":"X"}]}`,
			keys: []string{"c1"}, item: `{"type":"function_call_output","call_id":"c1","output":"R"}`, orphans: 1},
		{name: "chat", api: fakeprovider.OpenAIChat,
			body: `{"messages":[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"lookup","arguments":"{\"n\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"R"}]}`,
			keys: []string{"c1"}, item: `{"role":"tool","tool_call_id":"c1","content":"R"}`},
		{name: "anthropic", api: fakeprovider.Anthropic,
			body: `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"lookup","input":{"n":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"R"}]}]}`,
			keys: []string{"c1"}, item: `{"type":"tool_result","tool_use_id":"c1","content":"R"}`},
		{name: "gemini without ids", api: fakeprovider.Gemini,
			body: `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"n":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"output":"R"}}}]}]}`,
			item: `{"functionResponse":{"name":"lookup","response":{"output":"R"}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, orphans, err := providerResults(tc.api, []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || orphans != tc.orphans {
				t.Fatalf("%d results, %d orphans; want 1, %d", len(got), orphans, tc.orphans)
			}
			r := got[0]
			if tc.keys != nil && r.key != tc.keys[0] {
				t.Errorf("key %q, want %q", r.key, tc.keys[0])
			}
			if string(r.item) != tc.item {
				t.Errorf("item %s, want %s", r.item, tc.item)
			}
			if !nameMatches("lookup", r.name) || !sameArgs(r.args, decodeArgs([]byte(`{"n":1}`))) {
				t.Errorf("call %s %v does not match lookup {\"n\":1}", r.name, r.args)
			}
		})
	}
	if nameMatches("lookup", "xlookup") || nameMatches("lookup", "lookup2") {
		t.Error("nameMatches matched a name that only contains the tool's")
	}
}

// echoServer is an MCP server whose tools/call result is one text block whose JSON string
// content is the call's "raw" argument as given: the test chooses the spelling the server
// writes (a JSON escape a Go encoder would not use, say).
func echoServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments struct {
					Raw string `json:"raw"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":"`+m.Params.Arguments.Raw+`"}]}}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// echoPair makes one tools/call of lookup through the MCP proxy whose result text is raw (JSON
// string content, spelled as given) and one Chat Completions request that carries the same
// spelling through the provider proxy; both requests carry header.
func echoPair(t *testing.T, ep Endpoints, n int, raw string, header map[string]string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"raw": raw})
	post(t, ep.MCP, header, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":%s}}`, n, args))
	argText, _ := json.Marshal(string(args))
	id := fmt.Sprintf("call_%d", n)
	body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":%q,"type":"function","function":{"name":"lookup","arguments":%s}}]},{"role":"tool","tool_call_id":%q,"content":"%s"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`, id, argText, id, raw)
	post(t, ep.Provider+"/v1/chat/completions", header, body)
}

// TestCredentialEchoes: the holes of issue 41 item 2, each through a whole recording. A server
// that echoes a credential the traffic carried (the 1,100th of rotating tokens, a Cookie value,
// a Basic-auth password, a token in JSON's \/ spelling) has that pair refused, exit 3's count,
// the header named and never the value; a clean pair beside it is written, and no written file
// holds the secret in any spelling.
func TestCredentialEchoes(t *testing.T) {
	t.Parallel()
	basic := base64.StdEncoding.EncodeToString([]byte("alice:correct-horse-battery"))
	tests := []struct {
		name    string
		before  func(t *testing.T, ep Endpoints) // traffic before the pair
		header  map[string]string
		echo    string   // the result text's JSON string content, as the server spells it
		secrets []string // what no file and no log line may hold
		named   string   // what the refusal names
	}{
		{name: "a token after 1,024 others",
			before: func(t *testing.T, ep Endpoints) {
				for i := range 1100 {
					get(t, ep.Provider+"/v1/models", map[string]string{"Authorization": fmt.Sprintf("Bearer rot-%04d-0123456789", i)})
				}
			},
			header: map[string]string{"Authorization": "Bearer rot-1099-0123456789"},
			echo:   "the token is rot-1099-0123456789", secrets: []string{"rot-1099-0123456789"}, named: "Authorization"},
		{name: "a Cookie value", header: map[string]string{"Cookie": "sid=COOKIESECRET99; theme=dark"},
			echo: "your session: COOKIESECRET99", secrets: []string{"COOKIESECRET99"}, named: "Cookie"},
		{name: "a Basic-auth password", header: map[string]string{"Authorization": "Basic " + basic},
			echo: "password correct-horse-battery", secrets: []string{"correct-horse-battery", basic}, named: "Authorization"},
		{name: "a token JSON-escaped", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"},
			echo: `key sk-SEC\/RET\/123`, secrets: []string{"sk-SEC/RET/123", `sk-SEC\/RET\/123`, `sk-SEC\\/RET\\/123`}, named: "Authorization"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "rec")
			o := Options{Lane: "echoes", Version: "1", Output: out, MCPURL: echoServer(t), ProviderURL: upstream(t, "k", nil)}
			res, log, err := recording(t, o, func(ep Endpoints) error {
				if tc.before != nil {
					tc.before(t, ep)
				}
				echoPair(t, ep, 1, "nothing to hide here", tc.header)
				echoPair(t, ep, 2, tc.echo, tc.header)
				return nil
			})
			if err != nil {
				t.Fatalf("record: %v\n%s", err, log)
			}
			if res.Pairs != 1 || res.Refused != 1 || !res.Lost() {
				t.Errorf("%s; want 1 pair written and 1 refused\n%s", res.Stats, log)
			}
			if !strings.Contains(log, "holds a credential of the traffic") || !strings.Contains(log, tc.named) {
				t.Errorf("the refusal does not name %s:\n%s", tc.named, log)
			}
			for p, b := range writtenFiles(t, out) {
				for _, s := range tc.secrets {
					if bytes.Contains(b, []byte(s)) {
						t.Errorf("%s holds %q", p, s)
					}
				}
			}
			for _, s := range tc.secrets {
				if strings.Contains(log, s) {
					t.Errorf("the log shows %q:\n%s", s, log)
				}
			}
		})
	}
}

// get sends one GET and discards its answer.
func get(t *testing.T, url string, header map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
