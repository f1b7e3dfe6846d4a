package fakeprovider

import (
	"net/http"
	"strings"
	"testing"
)

// The tests below hold the fake provider to real clients' wire habits (issue 40).

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
