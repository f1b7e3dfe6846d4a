package fakeprovider

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// The tests below hold the fake provider to real clients' wire habits (issue 40): codex's
// namespace and custom tools on the Responses API, and Gemini results carrying an id the
// client made.

// testdata reads a request body kept under testdata/.
func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResponsesToolKinds checks that a Responses tool is found inside a namespace tool and as a
// custom tool, and that the call is answered in the shape the client expects: a function_call
// with name and namespace (codex), a custom_tool_call whose input is a string.
func TestResponsesToolKinds(t *testing.T) {
	const args = `{"fixture":"C05"}`
	codex := testdata(t, "codex_namespace.json")
	cases := []struct {
		name     string
		body     string
		streamed bool
		want     answer
	}{
		{name: "codex namespace streamed", body: codex, streamed: true,
			want: answer{callID: "call_1", name: "fixture_tool", namespace: "mcp__cc", args: args, model: "gpt-5-codex"}},
		{name: "codex namespace plain", body: strings.Replace(codex, `"stream": true`, `"stream": false`, 1),
			want: answer{callID: "call_1", name: "fixture_tool", namespace: "mcp__cc", args: args, model: "gpt-5-codex"}},
		{name: "namespace with a prefixed inner name",
			body: `{"model":"m","input":"hi","tools":[{"type":"namespace","name":"srv","tools":[{"type":"function","name":"mcp__srv__fixture_tool"}]}]}`,
			want: answer{callID: "call_1", name: "mcp__srv__fixture_tool", namespace: "srv", args: args, model: "m"}},
		{name: "namespace name with hostile bytes",
			body: `{"model":"m","input":"hi","tools":[{"type":"namespace","name":"a\"b\u2028<\/c>\u0000","tools":[{"name":"fixture_tool"}]}]}`,
			want: answer{callID: "call_1", name: "fixture_tool", namespace: "a\"b\u2028</c>\x00", args: args, model: "m"}},
		{name: "custom tool plain",
			body: `{"model":"m","input":"hi","tools":[{"type":"custom","name":"mcp_srv_fixture_tool","format":{"type":"text"}}]}`,
			want: answer{callID: "call_1", name: "mcp_srv_fixture_tool", custom: true, args: args, model: "m"}},
		{name: "custom tool streamed", streamed: true,
			body: `{"model":"m","input":"hi","stream":true,"tools":[{"type":"custom","name":"fixture_tool"}]}`,
			want: answer{callID: "call_1", name: "fixture_tool", custom: true, args: args, model: "m"}},
		{name: "custom tool inside a namespace",
			body: `{"model":"m","input":"hi","tools":[{"type":"namespace","name":"mcp__cc","tools":[{"type":"custom","name":"fixture_tool"}]}]}`,
			want: answer{callID: "call_1", name: "fixture_tool", namespace: "mcp__cc", custom: true, args: args, model: "m"}},
		{name: "plain function tool",
			body: `{"model":"m","input":"hi","tools":[{"type":"function","name":"server__fixture_tool"}]}`,
			want: answer{callID: "call_1", name: "server__fixture_tool", args: args, model: "m"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Tool: "fixture_tool", Calls: []Call{{ID: "call_1", Arguments: args}}})
			root := serve(t, p)
			got := decode(t, OpenAIResponses, do(t, http.MethodPost, root+"/v1/responses", nil, tc.body), tc.streamed, false)
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			if !p.ToolCalled("call_1") {
				t.Error("ToolCalled(call_1) = false")
			}
		})
	}
}

// TestResponsesCustomResult checks that a custom tool's result, a custom_tool_call_output,
// is found as the call's carrier.
func TestResponsesCustomResult(t *testing.T) {
	const item = `{"type":"custom_tool_call_output","call_id":"call_1","output":"Two invoices are overdue."}`
	p := New(Config{Tool: "fixture_tool", Calls: []Call{{ID: "call_1"}}})
	root := serve(t, p)
	readAll(t, do(t, http.MethodPost, root+"/v1/responses", nil, `{"model":"m","input":"hi","tools":[{"type":"custom","name":"fixture_tool"}]}`))
	follow := `{"model":"m","tools":[{"type":"custom","name":"fixture_tool"}],"input":[{"role":"user","content":"hi"},` +
		`{"type":"custom_tool_call","call_id":"call_1","name":"fixture_tool","input":"{}"},` + item + `]}`
	readAll(t, do(t, http.MethodPost, root+"/v1/responses", nil, follow))
	api, got, seq, ok := p.Result("call_1")
	if !ok || api != OpenAIResponses || seq != 2 || string(got) != item {
		t.Fatalf("Result = %s, %q, %d, %v; want the custom_tool_call_output of request 2", api, got, seq, ok)
	}
}

// TestResultGeminiClientIDs checks that a Gemini functionResponse carrying an id the client
// made (gemini-cli: "<name>__<name>_<time>_<n>") is matched by name and order among the calls
// the fake made, as one without an id is, while an id the fake issued still picks its call.
func TestResultGeminiClientIDs(t *testing.T) {
	part := func(id, name, out string) string {
		return `{"functionResponse":{"id":"` + id + `","name":"` + name + `","response":{"output":"` + out + `"}}}`
	}
	clientA := part("mcp_fixture_tool__mcp_fixture_tool_1700000000000_0", "mcp_fixture_tool", "first")
	clientB := part("mcp_fixture_tool__mcp_fixture_tool_1700000000001_1", "mcp_fixture_tool", "second")
	otherTool := part("other_tool__other_tool_1700000000000_2", "other_tool", "other")
	byOurID := part("call_2", "mcp_fixture_tool", "by id")
	body := func(parts ...string) string {
		return `{"tools":[{"functionDeclarations":[{"name":"mcp_fixture_tool"},{"name":"other_tool"}]}],"contents":[` +
			`{"role":"user","parts":[{"text":"hi"}]},{"role":"user","parts":[` + strings.Join(parts, ",") + `]}]}`
	}
	cases := []struct {
		name   string
		follow []string // the bodies sent after the two calls were made
		want   map[string]string
	}{
		{name: "client ids in order", follow: []string{body(otherTool, clientA), body(otherTool, clientA, clientB)},
			want: map[string]string{"call_1": clientA, "call_2": clientB}},
		{name: "client id among id-less parts", follow: []string{body(geminiIdless0, clientB)},
			want: map[string]string{"call_1": geminiIdless0, "call_2": clientB}},
		{name: "an id the fake issued still wins", follow: []string{body(clientA, byOurID)},
			want: map[string]string{"call_1": clientA, "call_2": byOurID}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Tool: "fixture_tool", Calls: []Call{{ID: "call_1"}, {ID: "call_2"}}})
			root := serve(t, p)
			path := root + "/v1beta/models/g:generateContent"
			listed := generationBody(t, Gemini, []string{"mcp_fixture_tool"}, false, false)
			readAll(t, do(t, http.MethodPost, path, nil, listed))
			readAll(t, do(t, http.MethodPost, path, nil, listed))
			for _, b := range tc.follow {
				readAll(t, do(t, http.MethodPost, path, nil, b))
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			for id, want := range tc.want {
				if _, item, _, ok := p.Result(id); !ok || string(item) != want {
					t.Errorf("Result(%s) = %q, %v; want %q", id, item, ok, want)
				}
			}
		})
	}
	// FindResult, which knows no call ids but the one asked for, keeps a foreign id another
	// call's (contractcheck record pairs by the ids it forwarded).
	if _, ok, _ := FindResult(Gemini, []byte(body(clientA)), "call_1", 0); ok {
		t.Error("FindResult matched a client-made id by order")
	}
}
