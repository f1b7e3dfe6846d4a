package fakeprovider

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// The tests below hold the fake provider to real clients' wire habits (issue 40): codex's
// namespace and custom tools on the Responses API, side calls that list no tools (gemini-cli's
// model router), and Gemini results carrying an id the client made.

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
			got := decode(t, OpenAIResponses, testkit.Do(t, http.MethodPost, root+"/v1/responses", nil, tc.body), tc.streamed, false)
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
	p, root := serveOneCall(t)
	readAll(t, testkit.Do(t, http.MethodPost, root+"/v1/responses", nil, `{"model":"m","input":"hi","tools":[{"type":"custom","name":"fixture_tool"}]}`))
	follow := `{"model":"m","tools":[{"type":"custom","name":"fixture_tool"}],"input":[{"role":"user","content":"hi"},` +
		`{"type":"custom_tool_call","call_id":"call_1","name":"fixture_tool","input":"{}"},` + item + `]}`
	readAll(t, testkit.Do(t, http.MethodPost, root+"/v1/responses", nil, follow))
	api, got, seq, ok := p.Result("call_1")
	if !ok || api != OpenAIResponses || seq != 2 || string(got) != item {
		t.Fatalf("Result = %s, %q, %d, %v; want the custom_tool_call_output of request 2", api, got, seq, ok)
	}
}

// sideCase is one side call: a request and what its answer must satisfy.
type sideCase struct {
	name     string
	api      API
	path     string
	header   map[string]string
	body     string
	streamed bool
	want     string // the answer's text exactly
}

// TestSideCallAnswers checks that a generation request that lists no tools, or lists none
// matching while asking for JSON, is answered plausibly (text, or JSON valid against the
// request's schema), recorded as a side call, and leaves the configured calls alone.
func TestSideCallAnswers(t *testing.T) {
	withTools := func(api API) string { return generationBody(t, api, []string{"other_tool"}, false, false) }
	cases := []sideCase{
		{name: "gemini-cli classifier", api: Gemini, path: "/v1beta/models/gemini-2.5-flash-lite:generateContent",
			body: testdata(t, "gemini_cli_classifier.json"), want: `{"model_choice":"flash","reasoning":"probe"}`},
		{name: "gemini-cli classifier streamed", api: Gemini, path: "/v1beta/models/gemini-2.5-flash-lite:streamGenerateContent?alt=sse",
			body: testdata(t, "gemini_cli_classifier.json"), streamed: true, want: `{"model_choice":"flash","reasoning":"probe"}`},
		{name: "gemini snake case responseSchema", api: Gemini, path: "/v1beta/models/g:generateContent",
			body: `{"contents":[],"generation_config":{"response_mime_type":"application/json","response_schema":{"type":"INTEGER","minimum":3}}}`, want: `3`},
		{name: "gemini json without a schema", api: Gemini, path: "/v1beta/models/g:generateContent",
			body: `{"contents":[],"generationConfig":{"responseMimeType":"application/json"}}`, want: `{}`},
		{name: "gemini no tools, text", api: Gemini, path: "/v1beta/models/g:generateContent",
			body: `{"contents":[{"role":"user","parts":[{"text":"Title this chat"}]}]}`, want: SideText},
		{name: "gemini other tools while asking for JSON", api: Gemini, path: "/v1beta/models/g:generateContent",
			body: strings.Replace(withTools(Gemini), `"tools"`, `"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"next_speaker":{"type":"string","enum":["user","model"]}},"required":["next_speaker"]}},"tools"`, 1),
			want: `{"next_speaker":"user"}`},
		{name: "responses json_schema", api: OpenAIResponses, path: "/v1/responses",
			body: `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"title","strict":true,"schema":{"type":"object","properties":{"title":{"type":"string","minLength":8},"n":{"type":["integer","null"],"minimum":1}},"required":["title","n"],"additionalProperties":false}}}}`,
			want: `{"n":1,"title":"probexxx"}`},
		{name: "responses json_schema streamed", api: OpenAIResponses, path: "/v1/responses", streamed: true,
			body: `{"model":"m","input":"hi","stream":true,"text":{"format":{"type":"json_schema","name":"x","schema":{"type":"array","minItems":2,"items":{"type":"boolean"}}}}}`,
			want: `[false,false]`},
		{name: "responses json_object", api: OpenAIResponses, path: "/v1/responses",
			body: `{"model":"m","input":"hi","text":{"format":{"type":"json_object"}}}`, want: `{}`},
		{name: "responses no tools", api: OpenAIResponses, path: "/v1/responses", body: `{"model":"m","input":"hi","tools":[]}`, want: SideText},
		{name: "chat response_format json_schema", api: OpenAIChat, path: "/v1/chat/completions",
			body: `{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"c","schema":{"$defs":{"kind":{"enum":["a","b"]}},"type":"object","properties":{"k":{"$ref":"#/$defs/kind"}},"required":["k"]}}}}`,
			want: `{"k":"a"}`},
		{name: "chat other tools while asking for JSON", api: OpenAIChat, path: "/v1/chat/completions",
			body: strings.Replace(withTools(OpenAIChat), `"tools"`, `"response_format":{"type":"json_object"},"tools"`, 1), want: `{}`},
		{name: "chat no tools streamed", api: OpenAIChat, path: "/v1/chat/completions", streamed: true,
			body: `{"model":"m","stream":true,"messages":[{"role":"user","content":"Summarize"}]}`, want: SideText},
		{name: "anthropic no tools", api: Anthropic, path: "/v1/messages",
			body: `{"model":"m","max_tokens":50,"messages":[{"role":"user","content":"Title this"}]}`, want: SideText},
		{name: "anthropic no tools streamed", api: Anthropic, path: "/v1/messages", streamed: true,
			body: `{"model":"m","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"Title this"}]}`, want: SideText},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, root := serveOneCall(t)
			got := decode(t, tc.api, testkit.Do(t, http.MethodPost, root+tc.path, tc.header, tc.body), tc.streamed, false)
			if got.callID != "" || got.text != tc.want {
				t.Fatalf("side call answered %+v, want the text %s", got, tc.want)
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			// The configured call is still the next turn's.
			turnPath := map[API]string{OpenAIResponses: "/v1/responses", OpenAIChat: "/v1/chat/completions",
				Anthropic: "/v1/messages", Gemini: "/v1beta/models/g:generateContent"}[tc.api]
			next := decode(t, tc.api, testkit.Do(t, http.MethodPost, root+turnPath, nil, generationBody(t, tc.api, []string{"fixture_tool"}, false, false)), false, false)
			if next.name != "fixture_tool" {
				t.Fatalf("the turn after a side call answered %+v, want the call", next)
			}
			var answers []string
			for _, r := range p.Requests() {
				answers = append(answers, r.Answer)
			}
			if w := []string{AnswerSideCall, "call call_1"}; !slices.Equal(answers, w) {
				t.Errorf("answers %q, want %q", answers, w)
			}
		})
	}
}

// TestSideCallIDs checks that side calls are numbered apart from the agent's turns.
func TestSideCallIDs(t *testing.T) {
	_, root := serveOneCall(t)
	var ids []string
	for _, body := range []string{`{"model":"m","input":"title"}`, generationBody(t, OpenAIResponses, []string{"fixture_tool"}, false, false), `{"model":"m","input":"title"}`} {
		var r struct{ ID string }
		mustJSON(t, readAll(t, testkit.Do(t, http.MethodPost, root+"/v1/responses", nil, body)), &r)
		ids = append(ids, r.ID)
	}
	if w := []string{"resp_probe_side_1", "resp_probe_1", "resp_probe_side_2"}; !slices.Equal(ids, w) {
		t.Fatalf("ids %q, want %q", ids, w)
	}
}

// TestSampleJSON checks the values side calls answer with against their schemas.
func TestSampleJSON(t *testing.T) {
	cases := []struct {
		name, schema, want string
	}{
		{name: "empty", schema: ``, want: `{}`},
		{name: "not JSON", schema: `{`, want: `{}`},
		{name: "true schema", schema: `true`, want: `null`},
		{name: "const", schema: `{"const":{"a":[1]}}`, want: `{"a":[1]}`},
		{name: "enum", schema: `{"type":"integer","enum":[7,8]}`, want: `7`},
		{name: "gemini upper case types", schema: `{"type":"OBJECT","properties":{"s":{"type":"NUMBER"},"b":{"type":"BOOLEAN"}},"required":["s","b"]}`, want: `{"b":false,"s":0}`},
		{name: "only required properties", schema: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"]}`, want: `{"b":"probe"}`},
		{name: "all properties when none required", schema: `{"properties":{"b":{"type":"null"},"a":{"type":"array"}}}`, want: `{"a":[],"b":null}`},
		{name: "required without a property schema", schema: `{"type":"object","required":["x"]}`, want: `{"x":"probe"}`},
		{name: "integer bounds", schema: `{"type":"integer","minimum":1,"maximum":100}`, want: `1`},
		{name: "integer exclusive minimum", schema: `{"type":"integer","exclusiveMinimum":4.5}`, want: `5`},
		{name: "negative maximum", schema: `{"type":"number","maximum":-2.5}`, want: `-2.5`},
		{name: "string max length", schema: `{"type":"string","maxLength":3}`, want: `"pro"`},
		{name: "string formats", schema: `{"type":"object","properties":{"d":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uri"},"e":{"type":"string","format":"email"}}}`,
			want: `{"d":"2023-11-14T22:13:20Z","e":"probe@example.com","u":"https://example.com/"}`},
		{name: "nullable type list", schema: `{"type":["null","string"]}`, want: `"probe"`},
		{name: "anyOf skips null", schema: `{"anyOf":[{"type":"null"},{"type":"integer"}]}`, want: `0`},
		{name: "allOf merges objects", schema: `{"allOf":[{"properties":{"a":{"const":1}},"required":["a"]},{"properties":{"b":{"const":2}},"required":["b"]}]}`, want: `{"a":1,"b":2}`},
		{name: "tuple prefixItems", schema: `{"type":"array","minItems":2,"prefixItems":[{"const":"x"}],"items":{"type":"integer"}}`, want: `["x",0]`},
		{name: "ref to root recursion ends", schema: `{"type":"object","properties":{"next":{"$ref":"#"}},"required":["next"]}`,
			want: strings.Repeat(`{"next":`, 13) + `null` + strings.Repeat(`}`, 13)},
		{name: "ref escaped pointer", schema: `{"definitions":{"a/b":{"type":"boolean"}},"$ref":"#/definitions/a~1b"}`, want: `false`},
		{name: "hostile property names", schema: `{"type":"object","properties":{"\"</script>\u2028":{"const":"\u0000"}},"required":["\"</script>\u2028"]}`,
			want: `{"\"</script>\u2028":"\u0000"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(mustMarshal(SampleJSON([]byte(tc.schema))))
			if got != tc.want {
				t.Fatalf("SampleJSON(%s) = %s, want %s", tc.schema, got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Fatalf("not JSON: %s", got)
			}
		})
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
			readAll(t, testkit.Do(t, http.MethodPost, path, nil, listed))
			readAll(t, testkit.Do(t, http.MethodPost, path, nil, listed))
			for _, b := range tc.follow {
				readAll(t, testkit.Do(t, http.MethodPost, path, nil, b))
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

// TestDescribe checks how a request names itself, and the API guessed for unknown routes.
func TestDescribe(t *testing.T) {
	cases := []struct {
		name   string
		method string
		path   string
		header map[string]string
		body   string
		want   string
	}{
		{name: "known route", method: "POST", path: "/v1/responses", body: `{"model":"m","input":"x"}`,
			want: "POST /v1/responses (request 1: API openai-responses, side-call)"},
		{name: "gemini path variant", method: "POST", path: "/v1beta/tunedModels/x:generateContent", body: `{}`,
			want: "POST /v1beta/tunedModels/x:generateContent (request 1: API unknown, looks like gemini, refused)"},
		{name: "anthropic header", method: "POST", path: "/anthropic/v2/complete", header: map[string]string{"anthropic-version": "2023-06-01"}, body: `{}`,
			want: "POST /anthropic/v2/complete (request 1: API unknown, looks like anthropic, refused)"},
		{name: "responses by body", method: "POST", path: "/api/generate", body: `{"model":"m","input":[],"instructions":"x"}`,
			want: "POST /api/generate (request 1: API unknown, looks like openai-responses, refused)"},
		{name: "chat by body", method: "POST", path: "/api/chat", body: `{"model":"m","messages":[]}`,
			want: "POST /api/chat (request 1: API unknown, looks like openai-chat, refused)"},
		{name: "nothing to go by", method: "GET", path: "/health?x=%22y%22", want: "GET /health?x=%22y%22 (request 1: API unknown, refused)"},
		{name: "hostile query", method: "GET", path: "/h?a=\"b\\", want: `GET "/h?a=\"b\\" (request 1: API unknown, refused)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, root := serveOneCall(t)
			readAll(t, testkit.Do(t, tc.method, root+tc.path, tc.header, tc.body))
			reqs := p.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests recorded", len(reqs))
			}
			if got := reqs[0].Describe(); got != tc.want {
				t.Fatalf("Describe() = %s, want %s", got, tc.want)
			}
		})
	}
}
