package fakeprovider

import (
	"net/http"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// Items written the way no encoder would: odd spacing and key order, escaped keys and values,
// U+2028 both escaped and raw, numbers such as 1e2 and -0.0, nested containers with brackets in
// strings. Result and FindResult must return them byte for byte.
const (
	responsesResultItem = "{ \"output\" :\t\"a\\u2028b \\\"q\\\" \\/ é \u2028 ]}\" ,\n  \"call_id\": \"call_a\", \"typ\\u0065\" : \"function_call\\u005foutput\", \"n\": 1e2 ,\"z\":[ -0.0, {\"k\":\"}\"} ] }"
	chatResultItem      = "{\"tool_call_id\":\"call_a\" , \"content\" : [ {\"type\":\"text\",\"text\":\"{\\\"x\\\": 1E+2}\"} ], \"role\":\"tool\" }"
	anthropicResultItem = "{\n \"is_error\" : false, \"content\": \"\\ud83d\\ude00 1.50\", \"tool_use_id\":\"call_a\",\"type\":\"tool_result\"}"
	geminiResultItem    = "{ \"functionResponse\" : {\"response\":{\"output\":\"x\\u2028\",\"n\":100.0}, \"name\":\"mcp_fixture_tool\",\"id\":\"call_a\"} }"
	geminiIdless0       = "{\"functionResponse\":{\"name\":\"mcp_fixture_tool\",\"response\":{\"output\":\"first\"}}}"
	geminiIdless1       = "{\"functionResponse\":{\"response\":{\"output\":\"second\"},\"name\":\"mcp_fixture_tool\",\"id\":null}}"
	geminiOther         = "{\"functionResponse\":{\"name\":\"other_tool\",\"response\":{\"output\":\"other\"}}}"
)

// carrying returns a request body of api in which the result item stands among other items.
func carrying(api API, item string) string {
	switch api {
	case OpenAIResponses:
		return `{"model":"m","tools":[{"type":"function","name":"mcp_fixture_tool"}],"input":[` +
			`{"role":"user","content":"hi"},` +
			`{"type":"function_call","call_id":"call_a","name":"mcp_fixture_tool","arguments":"{}"},` +
			`{"type":"function_call_output","call_id":"call_other","output":"no"},` +
			item + `]}`
	case OpenAIChat:
		return `{"model":"m","tools":[{"type":"function","function":{"name":"mcp_fixture_tool"}}],"messages":[` +
			`{"role":"user","content":"hi"},` +
			`{"role":"assistant","tool_calls":[{"id":"call_a","type":"function","function":{"name":"mcp_fixture_tool","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"call_other","content":"no"},` +
			item + `]}`
	case Anthropic:
		return `{"model":"m","max_tokens":9,"tools":[{"name":"mcp_fixture_tool"}],"messages":[` +
			`{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"call_a","name":"mcp_fixture_tool","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_other","content":"no"},` + item + `]}]}`
	case Gemini:
		return `{"tools":[{"functionDeclarations":[{"name":"mcp_fixture_tool"}]}],"contents":[` +
			`{"role":"user","parts":[{"text":"hi"}]},` +
			`{"role":"model","parts":[{"functionCall":{"id":"call_a","name":"mcp_fixture_tool","args":{}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"id":"call_other","name":"mcp_fixture_tool","response":{}}},` + item + `]}]}`
	}
	return ""
}

func TestFindResult(t *testing.T) {
	cases := []struct {
		name      string
		api       API
		body      string
		callID    string
		callIndex int
		want      string // "" for not found
		wantErr   string
	}{
		{name: "responses", api: OpenAIResponses, body: carrying(OpenAIResponses, responsesResultItem), callID: "call_a", want: responsesResultItem},
		{name: "chat", api: OpenAIChat, body: carrying(OpenAIChat, chatResultItem), callID: "call_a", want: chatResultItem},
		{name: "anthropic", api: Anthropic, body: carrying(Anthropic, anthropicResultItem), callID: "call_a", want: anthropicResultItem},
		{name: "gemini by id", api: Gemini, body: carrying(Gemini, geminiResultItem), callID: "call_a", want: geminiResultItem},
		{name: "gemini without ids, first call", api: Gemini, body: carrying(Gemini, geminiIdless0+","+geminiIdless1), callID: "call_x", callIndex: 0, want: geminiIdless0},
		{name: "gemini without ids, second call", api: Gemini, body: carrying(Gemini, geminiIdless0+","+geminiIdless1), callID: "call_y", callIndex: 1, want: geminiIdless1},
		{name: "gemini without ids, index beyond", api: Gemini, body: carrying(Gemini, geminiIdless0), callID: "call_y", callIndex: 1},
		{name: "gemini snake case", api: Gemini, body: carrying(Gemini, `{"function_response":{"id":"call_a","response":{}}}`), callID: "call_a", want: `{"function_response":{"id":"call_a","response":{}}}`},
		{name: "responses absent", api: OpenAIResponses, body: carrying(OpenAIResponses, `{"type":"message","content":"x"}`), callID: "call_a"},
		{name: "chat tool message of another call", api: OpenAIChat, body: carrying(OpenAIChat, chatResultItem), callID: "call_b"},
		{name: "anthropic string content", api: Anthropic, body: `{"messages":[{"role":"user","content":"call_a"}]}`, callID: "call_a"},
		{name: "anthropic tool_use is no result", api: Anthropic, body: carrying(Anthropic, `{"type":"text","text":"x"}`), callID: "call_a"},
		{name: "not JSON", api: Gemini, body: `{"contents":`, callID: "call_a", wantErr: "not JSON"},
		{name: "not an object", api: OpenAIChat, body: `"x"`, callID: "call_a", wantErr: "not a JSON object"},
		{name: "unknown API", api: API("x"), body: `{}`, callID: "call_a", wantErr: "unknown provider API"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			item, ok, err := FindResult(tc.api, []byte(tc.body), tc.callID, tc.callIndex)
			if testkit.ErrCase(t, err, tc.wantErr) {
				return
			}
			if ok != (tc.want != "") || string(item) != tc.want {
				t.Fatalf("FindResult = %q, %v; want %q", item, ok, tc.want)
			}
			if ok && cap(item) != len(item) {
				t.Errorf("the item's capacity reaches past it: appending would overwrite the body")
			}
		})
	}
}

// TestResult runs whole conversations: the call, a follow-up carrying its result, a later
// request carrying it again; Result must name the first carrying request and its exact bytes.
func TestResult(t *testing.T) {
	cases := []struct {
		name string
		api  API
		path string
		item string
	}{
		{name: "responses", api: OpenAIResponses, path: "/v1/responses", item: responsesResultItem},
		{name: "chat", api: OpenAIChat, path: "/chat/completions", item: chatResultItem},
		{name: "anthropic", api: Anthropic, path: "/v1/messages", item: anthropicResultItem},
		{name: "gemini", api: Gemini, path: "/v1beta/models/g:streamGenerateContent?alt=sse", item: geminiResultItem},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Tool: "fixture_tool", Calls: []Call{{ID: "call_a"}}})
			root := serve(t, p)
			if _, _, _, ok := p.Result("call_a"); ok {
				t.Fatal("Result found an item before any request")
			}
			first := generationBody(t, tc.api, []string{"mcp_fixture_tool"}, false, false)
			readAll(t, testkit.Do(t, http.MethodPost, root+tc.path, nil, first))
			// A side call carrying the result does not count: it is no model request.
			if tc.api == Anthropic {
				readAll(t, testkit.Do(t, http.MethodPost, root+"/v1/messages/count_tokens", nil, carrying(tc.api, tc.item)))
			}
			body := carrying(tc.api, tc.item)
			for range 2 {
				readAll(t, testkit.Do(t, http.MethodPost, root+tc.path, nil, body))
			}
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			api, item, seq, ok := p.Result("call_a")
			wantSeq := 2
			if tc.api == Anthropic {
				wantSeq = 3
			}
			if !ok || api != tc.api || seq != wantSeq || string(item) != tc.item {
				t.Fatalf("Result = %s, %q, %d, %v; want %s, %q, %d", api, item, seq, ok, tc.api, tc.item, wantSeq)
			}
			if _, _, _, ok := p.Result("call_unknown"); ok {
				t.Error("Result found an unknown call")
			}
		})
	}
}

// TestResultGeminiWithoutIDs checks that Result picks a call's idless functionResponse by the
// call's position and the tool's name as listed, skipping other tools' responses.
func TestResultGeminiWithoutIDs(t *testing.T) {
	p := New(Config{Tool: "fixture_tool", Calls: []Call{{ID: "call_1"}, {ID: "call_2"}}})
	root := serve(t, p)
	path := root + "/v1beta/models/g:generateContent"
	listed := generationBody(t, Gemini, []string{"mcp_fixture_tool"}, false, false)
	readAll(t, testkit.Do(t, http.MethodPost, path, nil, listed))
	// carrying's response to call_other names another tool here: an id the fake never
	// issued is the client's own, matched by name and order (TestResultGeminiClientIDs).
	other := func(s string) string {
		return strings.Replace(s, `"id":"call_other","name":"mcp_fixture_tool"`, `"id":"call_other","name":"other_tool"`, 1)
	}
	second := other(carrying(Gemini, geminiOther+","+geminiIdless0))
	readAll(t, testkit.Do(t, http.MethodPost, path, nil, second))
	third := other(carrying(Gemini, geminiOther+","+geminiIdless0+","+geminiIdless1))
	readAll(t, testkit.Do(t, http.MethodPost, path, nil, third))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		id   string
		item string
		seq  int
	}{
		{name: "first call", id: "call_1", item: geminiIdless0, seq: 2},
		{name: "second call", id: "call_2", item: geminiIdless1, seq: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, item, seq, ok := p.Result(tc.id)
			if !ok || string(item) != tc.item || seq != tc.seq {
				t.Fatalf("Result(%s) = %q, %d, %v; want %q, %d", tc.id, item, seq, ok, tc.item, tc.seq)
			}
		})
	}
}
