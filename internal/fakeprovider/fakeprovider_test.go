package fakeprovider

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// serve mounts p under a prefix with http.StripPrefix, as the probe does, and returns the
// provider root URL.
func serve(t *testing.T, p *Provider) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/r/tok/", http.StripPrefix("/r/tok", p))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/r/tok"
}

// serveOneCall serves a provider whose one call, call_1, is to fixture_tool: the provider and the
// root its routes are below.
func serveOneCall(t *testing.T) (*Provider, string) {
	t.Helper()
	p := New(Config{Tool: "fixture_tool", Calls: []Call{{ID: "call_1"}}})
	return p, serve(t, p)
}

// readAll reads and closes a response body.
func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// generationBody is a request body of api declaring the function tools names (plus a built-in
// tool of the API, which must be ignored).
func generationBody(t *testing.T, api API, names []string, streamed, includeUsage bool) string {
	t.Helper()
	var tools []any
	var body map[string]any
	switch api {
	case OpenAIResponses:
		tools = append(tools, map[string]any{"type": "web_search"})
		for _, n := range names {
			tools = append(tools, map[string]any{"type": "function", "name": n, "parameters": map[string]any{"type": "object"}})
		}
		body = map[string]any{"model": "gpt-test", "input": "hi", "tools": tools}
	case OpenAIChat:
		for _, n := range names {
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": n}})
		}
		body = map[string]any{"model": "gpt-test", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "tools": tools}
		if includeUsage {
			body["stream_options"] = map[string]any{"include_usage": true}
		}
	case Anthropic:
		tools = append(tools, map[string]any{"type": "web_search_20250305", "name": "web_search"})
		for _, n := range names {
			tools = append(tools, map[string]any{"name": n, "input_schema": map[string]any{"type": "object"}})
		}
		body = map[string]any{"model": "claude-test", "max_tokens": 10, "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "tools": tools}
	case Gemini:
		var decls []any
		for _, n := range names {
			decls = append(decls, map[string]any{"name": n})
		}
		tools = append(tools, map[string]any{"googleSearch": map[string]any{}}, map[string]any{"functionDeclarations": decls})
		body = map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "hi"}}}}, "tools": tools}
	}
	if streamed && api != Gemini {
		body["stream"] = true
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTurns(t *testing.T) {
	const listed = "mcp__srv__fixture_tool"
	cases := []struct {
		name         string
		api          API
		path         string
		streamed     bool
		includeUsage bool
		model        string
	}{
		{name: "responses plain", api: OpenAIResponses, path: "/v1/responses", model: "gpt-test"},
		{name: "responses plain without /v1", api: OpenAIResponses, path: "/responses", model: "gpt-test"},
		{name: "responses streamed", api: OpenAIResponses, path: "/v1/responses", streamed: true, model: "gpt-test"},
		{name: "chat plain", api: OpenAIChat, path: "/v1/chat/completions", model: "gpt-test"},
		{name: "chat plain without /v1", api: OpenAIChat, path: "/chat/completions", model: "gpt-test"},
		{name: "chat streamed", api: OpenAIChat, path: "/v1/chat/completions", streamed: true, model: "gpt-test"},
		{name: "chat streamed with usage", api: OpenAIChat, path: "/v1/chat/completions", streamed: true, includeUsage: true, model: "gpt-test"},
		{name: "anthropic plain", api: Anthropic, path: "/v1/messages", model: "claude-test"},
		{name: "anthropic plain without /v1", api: Anthropic, path: "/messages", model: "claude-test"},
		{name: "anthropic streamed", api: Anthropic, path: "/v1/messages", streamed: true, model: "claude-test"},
		{name: "gemini plain", api: Gemini, path: "/v1beta/models/gemini-test:generateContent", model: "gemini-test"},
		{name: "gemini plain v1", api: Gemini, path: "/v1/models/gemini-test:generateContent", model: "gemini-test"},
		{name: "gemini streamed sse", api: Gemini, path: "/v1beta/models/gemini-test:streamGenerateContent?alt=sse", streamed: true, model: "gemini-test"},
		{name: "gemini streamed json array", api: Gemini, path: "/v1beta/models/gemini-test:streamGenerateContent", streamed: true, model: "gemini-test"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Tool: "fixture_tool", Calls: []Call{
				{ID: "call_a", Arguments: `{"fixture":"C05"}`},
				{ID: "call_b"},
			}})
			root := serve(t, p)
			body := generationBody(t, tc.api, []string{"other_tool", listed}, tc.streamed, tc.includeUsage)
			want := []answer{
				{callID: "call_a", name: listed, args: `{"fixture":"C05"}`, model: tc.model},
				{callID: "call_b", name: listed, args: `{}`, model: tc.model},
				{text: "Done.", model: tc.model},
				{text: "Done.", model: tc.model},
			}
			for i, w := range want {
				if tc.api == Gemini {
					w.callID = "" // the Gemini Developer API gives a function call no id
				}
				got := decode(t, tc.api, testkit.Do(t, http.MethodPost, root+tc.path, nil, body), tc.streamed, tc.includeUsage)
				if got != w {
					t.Fatalf("turn %d: got %v, want %v", i+1, got, w)
				}
			}
			if err := p.Err(); err != nil {
				t.Fatalf("Err: %v", err)
			}
			var answers []string
			for i, r := range p.Requests() {
				answers = append(answers, r.Answer)
				if r.Seq != i+1 || r.API != tc.api || r.Method != http.MethodPost || r.Path != tc.path || r.Stream != tc.streamed || string(r.Body) != body {
					t.Errorf("request %d recorded as %+v", i+1, r)
				}
			}
			if w := []string{"call call_a", "call call_b", "final", "final"}; !slices.Equal(answers, w) {
				t.Errorf("answers %q, want %q", answers, w)
			}
			for _, id := range []string{"call_a", "call_b"} {
				if !p.ToolCalled(id) {
					t.Errorf("ToolCalled(%q) = false", id)
				}
			}
			if p.ToolCalled("call_c") {
				t.Error(`ToolCalled("call_c") = true`)
			}
		})
	}
}

// TestDeterministic checks that two providers given the same requests answer byte for byte alike.
func TestDeterministic(t *testing.T) {
	for _, api := range APIs() {
		for _, streamed := range []bool{false, true} {
			path := map[API]string{OpenAIResponses: "/v1/responses", OpenAIChat: "/v1/chat/completions",
				Anthropic: "/v1/messages", Gemini: "/v1beta/models/g:generateContent"}[api]
			if api == Gemini && streamed {
				path = "/v1beta/models/g:streamGenerateContent?alt=sse"
			}
			var runs [2][]byte
			for i := range runs {
				_, root := serveOneCall(t)
				body := generationBody(t, api, []string{"fixture_tool"}, streamed, true)
				for range 2 {
					runs[i] = append(runs[i], readAll(t, testkit.Do(t, http.MethodPost, root+path, nil, body))...)
				}
			}
			if !bytes.Equal(runs[0], runs[1]) {
				t.Errorf("%s streamed=%v: answers differ between runs:\n%s\n%s", api, streamed, runs[0], runs[1])
			}
		}
	}
}

func TestSideCalls(t *testing.T) {
	cases := []struct {
		name   string
		method string
		path   string
		header map[string]string
		body   string
		api    API
		want   string // a fragment of the answer
	}{
		{name: "openai model list", method: "GET", path: "/v1/models", api: OpenAIChat, want: `"object":"list"`},
		{name: "openai model list without /v1", method: "GET", path: "/models", api: OpenAIChat, want: `"object":"list"`},
		{name: "openai model", method: "GET", path: "/v1/models/gpt-x", api: OpenAIChat, want: `"id":"gpt-x","object":"model"`},
		{name: "anthropic model list", method: "GET", path: "/v1/models", header: map[string]string{"anthropic-version": "2023-06-01"}, api: Anthropic, want: `"has_more":false`},
		{name: "anthropic model", method: "GET", path: "/v1/models/claude-x", header: map[string]string{"anthropic-version": "2023-06-01"}, api: Anthropic, want: `"type":"model","id":"claude-x"`},
		{name: "anthropic count tokens", method: "POST", path: "/v1/messages/count_tokens", body: `{"model":"m","messages":[]}`, api: Anthropic, want: `{"input_tokens":`},
		{name: "responses input tokens", method: "POST", path: "/v1/responses/input_tokens", body: `{"model":"m","input":"hi"}`, api: OpenAIResponses, want: `"input_tokens":`},
		{name: "gemini model list", method: "GET", path: "/v1beta/models", api: Gemini, want: `"name":"models/gemini-2.5-flash"`},
		{name: "gemini model", method: "GET", path: "/v1beta/models/gemini-x", api: Gemini, want: `"name":"models/gemini-x"`},
		{name: "gemini model list on v1 with a key header", method: "GET", path: "/v1/models", header: map[string]string{"x-goog-api-key": "k"}, api: Gemini, want: `"models":[`},
		{name: "gemini count tokens", method: "POST", path: "/v1beta/models/gemini-x:countTokens", body: `{"contents":[]}`, api: Gemini, want: `{"totalTokens":`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, root := serveOneCall(t)
			resp := testkit.Do(t, tc.method, root+tc.path, tc.header, tc.body)
			b := readAll(t, resp)
			if resp.StatusCode != http.StatusOK || !json.Valid(b) || !strings.Contains(string(b), tc.want) {
				t.Fatalf("%s: %s, want a JSON answer with %s", resp.Status, b, tc.want)
			}
			reqs := p.Requests()
			if len(reqs) != 1 || reqs[0].Answer != AnswerSide || reqs[0].API != tc.api {
				t.Fatalf("recorded %+v, want one side call of %s", reqs, tc.api)
			}
			if p.Err() != nil || p.ToolCalled("call_1") {
				t.Fatalf("a side call changed the run: Err %v, ToolCalled %v", p.Err(), p.ToolCalled("call_1"))
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name    string
		method  string
		path    string
		body    string
		tool    string
		status  int
		wantErr string
	}{
		{name: "unknown route", method: "POST", path: "/v1/foo", body: `{}`, status: 404,
			wantErr: "fake provider: no route for POST /v1/foo"},
		{name: "unknown method", method: "DELETE", path: "/v1/responses", status: 404,
			wantErr: "fake provider: no route for DELETE /v1/responses"},
		{name: "unknown gemini method", method: "POST", path: "/v1beta/models/g:embedContent?x=1", body: `{}`, status: 404,
			wantErr: "fake provider: no route for POST /v1beta/models/g:embedContent?x=1"},
		{name: "tool not listed", method: "POST", path: "/v1/chat/completions", tool: "fixture_tool",
			body:   `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"alpha"}},{"type":"function","function":{"name":"xfixture_tool"}}]}`,
			status: 400, wantErr: `POST /v1/chat/completions (request 1): no tool matching "fixture_tool" to call (the request lists "alpha", "xfixture_tool")`},
		{name: "only built-in tools", method: "POST", path: "/v1/messages", tool: "fixture_tool",
			body:   `{"model":"m","messages":[],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`,
			status: 400, wantErr: `no tool matching "fixture_tool" to call (the request lists no function tools), and it does not ask for JSON, as a side call would`},
		{name: "namespace without the tool", method: "POST", path: "/v1/responses", tool: "fixture_tool",
			body:   `{"model":"m","input":"x","tools":[{"type":"namespace","name":"mcp__cc","tools":[{"type":"function","name":"other"}]},{"type":"custom","name":"patch"}]}`,
			status: 400, wantErr: `(the request lists "other" (namespace "mcp__cc"), "patch" (custom))`},
		{name: "body not JSON", method: "POST", path: "/v1/responses", body: `{"model":`, status: 400,
			wantErr: "fake provider: POST /v1/responses (request 1): the body is not JSON"},
		{name: "body not an object", method: "POST", path: "/v1beta/models/g:generateContent", body: `[1]`, status: 400,
			wantErr: "the body is not a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, root := serveOneCall(t)
			resp := testkit.Do(t, tc.method, root+tc.path, nil, tc.body)
			b := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			err := p.Err()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Err() = %v, want it to contain %q", err, tc.wantErr)
			}
			if !strings.Contains(string(b), "fake provider") || !json.Valid(b) {
				t.Errorf("answer %s does not name the failure in JSON", b)
			}
			reqs := p.Requests()
			if len(reqs) != 1 || reqs[0].Answer != AnswerRefused || p.ToolCalled("call_1") {
				t.Errorf("recorded %+v, want one refused request", reqs)
			}
		})
	}
}

// TestFirstErrorKept checks that Err keeps the first failure.
func TestFirstErrorKept(t *testing.T) {
	p := New(Config{Tool: "fixture_tool"})
	root := serve(t, p)
	readAll(t, testkit.Do(t, "GET", root+"/first", nil, ""))
	readAll(t, testkit.Do(t, "GET", root+"/second", nil, ""))
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "/first") {
		t.Fatalf("Err() = %v, want the first failure", err)
	}
}

func TestBodyTooLarge(t *testing.T) {
	p := New(Config{Tool: "fixture_tool"})
	p.maxBody = 16
	root := serve(t, p)
	resp := testkit.Do(t, "POST", root+"/v1/responses", nil, `{"model":"a-long-model-name"}`)
	readAll(t, resp)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "exceeds") || !strings.Contains(err.Error(), "POST /v1/responses") {
		t.Fatalf("Err() = %v, want the body limit named", err)
	}
}

// TestRunTooLarge: bodies that each fit but together exceed the run's budget are refused, and
// the run fails, before the provider holds more than the budget.
func TestRunTooLarge(t *testing.T) {
	p := New(Config{Tool: "fixture_tool"})
	p.maxRun = 64
	root := serve(t, p)
	body := `{"model":"m","input":"a prompt of forty bytes or so.."}`
	for i, want := range []int{http.StatusOK, http.StatusRequestEntityTooLarge} {
		resp := testkit.Do(t, "POST", root+"/v1/responses", nil, body)
		readAll(t, resp)
		if resp.StatusCode != want {
			t.Errorf("request %d: status %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "the run's requests exceed 64 bytes in all") {
		t.Fatalf("Err() = %v, want the run's budget named", err)
	}
	if p.stored > p.maxRun {
		t.Errorf("kept %d bytes, budget %d", p.stored, p.maxRun)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "no tool", cfg: Config{}, wantErr: "Config.Tool is empty"},
		{name: "arguments not an object", cfg: Config{Tool: "t", Calls: []Call{{ID: "c1", Arguments: `[1]`}}}, wantErr: `call c1: arguments "[1]" are not a JSON object`},
		{name: "arguments not JSON", cfg: Config{Tool: "t", Calls: []Call{{ID: "c1", Arguments: `{`}}}, wantErr: `call c1: arguments "{" are not a JSON object`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := New(tc.cfg).Err()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Err() = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestMatchTool(t *testing.T) {
	cases := []struct {
		name   string
		listed []string
		want   string
		ok     bool
	}{
		{name: "exact", listed: []string{"a", "fixture_tool"}, want: "fixture_tool", ok: true},
		{name: "underscore prefix", listed: []string{"rawmcp_fixture_tool"}, want: "rawmcp_fixture_tool", ok: true},
		{name: "double underscore prefix", listed: []string{"mcp__srv__fixture_tool"}, want: "mcp__srv__fixture_tool", ok: true},
		{name: "dash prefix", listed: []string{"srv-fixture_tool"}, want: "srv-fixture_tool", ok: true},
		{name: "dot prefix", listed: []string{"srv.fixture_tool"}, want: "srv.fixture_tool", ok: true},
		{name: "colon prefix", listed: []string{"srv:fixture_tool"}, want: "srv:fixture_tool", ok: true},
		{name: "slash prefix", listed: []string{"srv/fixture_tool"}, want: "srv/fixture_tool", ok: true},
		{name: "codex mcp prefix", listed: []string{"mcp__server__fixture_tool"}, want: "mcp__server__fixture_tool", ok: true},
		{name: "server double underscore", listed: []string{"server__fixture_tool"}, want: "server__fixture_tool", ok: true},
		{name: "single underscore mcp prefix", listed: []string{"mcp_server_fixture_tool"}, want: "mcp_server_fixture_tool", ok: true},
		{name: "exact preferred over a prefixed name", listed: []string{"srv_fixture_tool", "fixture_tool"}, want: "fixture_tool", ok: true},
		{name: "first prefixed name", listed: []string{"a_fixture_tool", "b_fixture_tool"}, want: "a_fixture_tool", ok: true},
		{name: "no separator", listed: []string{"xfixture_tool"}},
		{name: "suffix", listed: []string{"fixture_tool_x"}},
		{name: "other separator", listed: []string{"srv+fixture_tool"}},
		{name: "none", listed: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := matchTool(tc.listed, "fixture_tool")
			if got != tc.want || ok != tc.ok {
				t.Fatalf("matchTool(%q) = %q, %v; want %q, %v", tc.listed, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestPrefixedToolCalledAsListed checks each API calls the tool under the request's own name.
func TestPrefixedToolCalledAsListed(t *testing.T) {
	for _, api := range APIs() {
		for _, name := range []string{"rawmcp_fixture_tool", "mcp__srv__fixture_tool", "srv.fixture_tool"} {
			t.Run(string(api)+" "+name, func(t *testing.T) {
				p, root := serveOneCall(t)
				path := map[API]string{OpenAIResponses: "/v1/responses", OpenAIChat: "/v1/chat/completions",
					Anthropic: "/v1/messages", Gemini: "/v1beta/models/g:generateContent"}[api]
				got := decode(t, api, testkit.Do(t, "POST", root+path, nil, generationBody(t, api, []string{name}, false, false)), false, false)
				if got.name != name || p.Err() != nil {
					t.Fatalf("called %q (Err %v), want %q", got.name, p.Err(), name)
				}
			})
		}
	}
}

func TestEnv(t *testing.T) {
	got := Env("http://127.0.0.1:1234/r/tok/")
	want := []string{
		"OPENAI_BASE_URL=http://127.0.0.1:1234/r/tok/v1",
		"ANTHROPIC_BASE_URL=http://127.0.0.1:1234/r/tok",
		"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:1234/r/tok",
		"OPENAI_API_KEY=contractcheck-probe",
		"ANTHROPIC_API_KEY=contractcheck-probe",
		"GEMINI_API_KEY=contractcheck-probe",
		"GOOGLE_API_KEY=contractcheck-probe",
		"GOOGLE_GENAI_USE_VERTEXAI=false",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Env = %q, want %q", got, want)
	}
}

func TestParseAPI(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want API
		ok   bool
	}{
		{name: "responses", in: "openai-responses", want: OpenAIResponses, ok: true},
		{name: "chat", in: "openai-chat", want: OpenAIChat, ok: true},
		{name: "anthropic", in: "anthropic", want: Anthropic, ok: true},
		{name: "gemini", in: "gemini", want: Gemini, ok: true},
		{name: "unknown", in: "openai"},
		{name: "empty", in: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAPI(tc.in)
			if got != tc.want || (err == nil) != tc.ok {
				t.Fatalf("ParseAPI(%q) = %q, %v", tc.in, got, err)
			}
			if err != nil && !strings.Contains(err.Error(), "openai-responses, openai-chat, anthropic, gemini") {
				t.Errorf("error %v does not list the APIs", err)
			}
		})
	}
	if got := APIs(); !slices.Equal(got, []API{OpenAIResponses, OpenAIChat, Anthropic, Gemini}) {
		t.Errorf("APIs() = %q", got)
	}
}
