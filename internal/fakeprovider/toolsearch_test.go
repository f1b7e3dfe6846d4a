package fakeprovider

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// The request bodies of these tests are codex's own: testdata/codex_tool_search.json is the first
// POST /v1/responses of @openai/codex 0.171.0 (model gpt-5.5, `contractcheck probe --lane codex
// --version 0.171.0 --fixture C09 --traffic`, examples/probe/clients/codex/run.mjs), which lists
// no MCP tool but a client-executed tool_search; testdata/codex_tool_search_output.json is its
// second, carrying the tool_search_call the fake answered and codex's tool_search_output (a
// namespace mcp__cc holding fixture_tool). Both are trimmed: the developer messages, the
// environment context, client_metadata and most built-in tools dropped, exec_command's
// parameters and apply_patch's grammar shortened; every kept item is as codex sent it.

// searchFirst is codex's first request: a tool_search tool and no fixture_tool.
func searchFirst(t *testing.T) string { return testdata(t, "codex_tool_search.json") }

// searchSecond is codex's second request: the tool_search_output that returns fixture_tool.
func searchSecond(t *testing.T) string { return testdata(t, "codex_tool_search_output.json") }

// plainBody turns codex's streamed request into a plain one.
func plainBody(t *testing.T, body string) string {
	t.Helper()
	if !strings.Contains(body, `"stream": true`) {
		t.Fatal(`the body has no "stream": true`)
	}
	return strings.Replace(body, `"stream": true`, `"stream": false`, 1)
}

// withInput appends items to a Responses request's input (key order is not kept: the fake does
// not read it).
func withInput(t *testing.T, body string, items ...string) string {
	t.Helper()
	var m map[string]json.RawMessage
	mustJSON(t, []byte(body), &m)
	var input []json.RawMessage
	mustJSON(t, m["input"], &input)
	for _, it := range items {
		input = append(input, json.RawMessage(it))
	}
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	m["input"] = b
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestToolSearchAsked checks that a Responses request listing no tool matching the probe tool
// but a client-executed tool_search is answered with a tool_search_call asking for the probe
// tool by name, plain and streamed, recorded as AnswerToolSearch without taking a call.
func TestToolSearchAsked(t *testing.T) {
	const hostile = "fix\"ture</x>\u2028\x00_tool"
	cases := []struct {
		name     string
		tool     string
		body     string
		streamed bool
		want     answer
	}{
		{name: "codex streamed", tool: "fixture_tool", body: searchFirst(t), streamed: true,
			want: answer{callID: "call_probe_search_1", search: `{"query":"fixture_tool"}`, model: "gpt-5.5"}},
		{name: "codex plain", tool: "fixture_tool", body: plainBody(t, searchFirst(t)),
			want: answer{callID: "call_probe_search_1", search: `{"query":"fixture_tool"}`, model: "gpt-5.5"}},
		{name: "hostile tool name", tool: hostile,
			body: `{"model":"m","input":"hi","tools":[{"type":"function","name":"other"},{"type":"tool_search","execution":"client"}]}`,
			want: answer{callID: "call_probe_search_1", search: "(the query decoded, below)", model: "m"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Tool: tc.tool, Calls: []Call{{ID: "call_1"}}})
			root := serve(t, p)
			got := decode(t, OpenAIResponses, testkit.Do(t, http.MethodPost, root+"/v1/responses", nil, tc.body), tc.streamed, false)
			// The hostile name must come back whole once the query is decoded.
			if tc.tool == hostile {
				var q struct{ Query string }
				mustJSON(t, []byte(got.search), &q)
				if q.Query != hostile {
					t.Fatalf("query %q, want %q", q.Query, hostile)
				}
				got.search = tc.want.search
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			if r := p.Requests()[0]; r.Answer != AnswerToolSearch || r.Stream != tc.streamed {
				t.Errorf("request recorded as %q (stream %v), want %q", r.Answer, r.Stream, AnswerToolSearch)
			}
			if p.ToolCalled("call_1") {
				t.Error("the tool search took the configured call")
			}
		})
	}
}

// TestToolSearchThenCall follows codex's turns: the tool search, the call to the tool its
// tool_search_output returned (with name and namespace), the final text, and the H4 carrier.
func TestToolSearchThenCall(t *testing.T) {
	const output = `{"type":"function_call_output","call_id":"call_1","output":"Two invoices are overdue."}`
	call := `{"type":"function_call","name":"fixture_tool","namespace":"mcp__cc","arguments":"{}","call_id":"call_1"}`
	cases := []struct {
		name          string
		first, second string
		streamed      bool
	}{
		{name: "codex streamed", first: searchFirst(t), second: searchSecond(t), streamed: true},
		{name: "codex plain", first: plainBody(t, searchFirst(t)), second: plainBody(t, searchSecond(t))},
		{name: "tool listed in tools after the search",
			first: `{"model":"gpt-5.5","input":[{"role":"user","content":"hi"}],"tools":[{"type":"tool_search","execution":"client"}]}`,
			second: `{"model":"gpt-5.5","input":[{"role":"user","content":"hi"}],"tools":[{"type":"tool_search","execution":"client"},` +
				`{"type":"namespace","name":"mcp__cc","tools":[{"type":"function","name":"fixture_tool"}]}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, root := serveOneCall(t)
			post := func(body string) answer {
				return decode(t, OpenAIResponses, testkit.Do(t, http.MethodPost, root+"/v1/responses", nil, body), tc.streamed, false)
			}
			if got := post(tc.first); got.search != `{"query":"fixture_tool"}` {
				t.Fatalf("first answer %+v, want a tool search", got)
			}
			want := answer{callID: "call_1", name: "fixture_tool", namespace: "mcp__cc", args: "{}", model: "gpt-5.5"}
			if got := post(tc.second); got != want {
				t.Fatalf("second answer %+v, want %+v", got, want)
			}
			if got := post(withInput(t, tc.second, call, output)); got.text != "Done." {
				t.Fatalf("third answer %+v, want the final text", got)
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			var answers []string
			for _, r := range p.Requests() {
				answers = append(answers, r.Answer)
			}
			if strings.Join(answers, ",") != "tool-search,call call_1,final" {
				t.Errorf("answers %q", answers)
			}
			api, item, seq, ok := p.Result("call_1")
			if !ok || api != OpenAIResponses || seq != 3 || string(item) != output {
				t.Fatalf("Result = %s, %q, %d, %v; want the function_call_output of request 3", api, item, seq, ok)
			}
		})
	}
}

// TestToolSearchFailures checks that a tool search that does not return the probe tool, a client
// that never sends its search's output back, and a tool_search the server runs are refused,
// naming what the search returned.
func TestToolSearchFailures(t *testing.T) {
	other := strings.Replace(searchSecond(t), `"name": "fixture_tool"`, `"name": "other_tool"`, 1)
	empty := withInput(t, `{"model":"m","input":[],"tools":[{"type":"tool_search","execution":"client"}]}`,
		`{"type":"tool_search_output","call_id":"call_probe_search_1","execution":"client","status":"completed","tools":[]}`)
	cases := []struct {
		name     string
		requests []string // answered in turn; the last must be refused
		want     string   // in the refusal's message and Err
	}{
		{name: "search returns another tool", requests: []string{searchFirst(t), other},
			want: `no tool matching "fixture_tool" to call: the client's tool search found none (tool_search_output "call_probe_search_1" returned "other_tool" (namespace "mcp__cc"))`},
		{name: "search returns nothing", requests: []string{searchFirst(t), empty},
			want: `the client's tool search found none (tool_search_output "call_probe_search_1" returned no tools)`},
		{name: "search output never sent back", requests: []string{searchFirst(t), searchFirst(t)},
			want: `the request carries no tool_search_output for the tool search call_probe_search_1 asked for`},
		{name: "server-executed tool search",
			requests: []string{`{"model":"m","input":"hi","tools":[{"type":"function","name":"other"},{"type":"tool_search","execution":"server"}]}`},
			want:     `no tool matching "fixture_tool" to call (the request lists "other")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, root := serveOneCall(t)
			var last *http.Response
			for _, body := range tc.requests {
				last = testkit.Do(t, http.MethodPost, root+"/v1/responses", nil, body)
			}
			body := readAll(t, last)
			if last.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), jsonQuoted(t, tc.want)) {
				t.Fatalf("last answer %s: %s; want 400 containing %s", last.Status, body, tc.want)
			}
			if err := p.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Err() = %v, want it to contain %s", err, tc.want)
			}
			reqs := p.Requests()
			if a := reqs[len(reqs)-1].Answer; a != AnswerRefused {
				t.Errorf("last request recorded as %q", a)
			}
			if p.ToolCalled("call_1") {
				t.Error("the tool was called")
			}
		})
	}
}

// jsonQuoted is s as it reads inside a JSON string (without the quotes).
func jsonQuoted(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[1 : len(b)-1])
}
