package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// chatBody is a Chat Completions request whose history holds the calls (id → arguments) and
// their results.
func chatBody(ids ...string) []byte {
	msgs := `{"role":"user","content":"hi"}`
	for _, id := range ids {
		args, _ := json.Marshal(`{"n":"` + id + `"}`)
		msgs += fmt.Sprintf(`,{"role":"assistant","tool_calls":[{"id":%q,"function":{"name":"lookup","arguments":%s}}]},{"role":"tool","tool_call_id":%q,"content":"R"}`, id, args, id)
	}
	return []byte(`{"messages":[` + msgs + `]}`)
}

func toolsCall(id int, n string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":{"n":%q}}}`, id, n)
}

func toolsResult(id int, text string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
}

// TestEngine: pairs in either order, once per call id however often a conversation repeats it,
// by session and JSON-RPC id; what is left over and what is evicted is counted.
func TestEngine(t *testing.T) {
	var pairs []string
	e := newEngine(func(c mcpCall, r provResult) { pairs = append(pairs, string(c.source.mem)+" ~ "+r.key) }, func(string, ...any) {})
	// The MCP result first, then the request carrying it, then a later request repeating it.
	e.mcp("s1", false, toolsCall(1, "a"))
	e.mcp("s1", true, toolsResult(1, "A"))
	e.provider(fakeprovider.OpenAIChat, chatBody("a"), "")
	e.provider(fakeprovider.OpenAIChat, chatBody("a", "b"), "")
	// The provider item first (a stdio copy late), then its result.
	e.mcp("s2", false, toolsCall(1, "b"))
	e.mcp("s2", true, toolsResult(1, "B"))
	// A response in another session with the same JSON-RPC id is not s1's.
	e.mcp("s3", true, toolsResult(7, "X"))
	// A call never answered.
	e.mcp("s1", false, toolsCall(2, "c"))
	e.loopOnce(event{session: "s1", endSession: true})
	// A result of the agent's own function (no MCP tool of that name) is not the recorder's.
	e.provider(fakeprovider.OpenAIChat, []byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"f1","function":{"name":"calculator","arguments":"{}"}}]},{"role":"tool","tool_call_id":"f1","content":"4"}]}`), "")
	want := []string{`{"content":[{"type":"text","text":"A"}]} ~ a`, `{"content":[{"type":"text","text":"B"}]} ~ b`}
	if fmt.Sprint(pairs) != fmt.Sprint(want) {
		t.Errorf("pairs %q, want %q", pairs, want)
	}
	if s := e.Stats(); s.Calls != 2 || s.Unanswered != 1 || s.PendingCalls != 0 || s.PendingResults != 0 || s.OtherTools != 1 {
		t.Errorf("stats %+v", s)
	}

	// Past the bound the oldest waiting result is evicted and counted.
	defer func(n int) { maxPending = n }(maxPending)
	maxPending = 2
	for i := range 3 {
		e.mcp("s4", false, toolsCall(i, fmt.Sprint("z", i)))
		e.mcp("s4", true, toolsResult(i, "Z"))
	}
	if s := e.Stats(); s.Evicted != 1 || s.PendingCalls != 2 || !s.Lost() {
		t.Errorf("stats %+v, want 1 evicted and 2 pending", s)
	}
}

// chatItem is a Chat Completions request carrying one result of lookup: call id key, arguments
// args (JSON text), the tool message's content.
func chatItem(key, args, content string) []byte {
	a, _ := json.Marshal(args)
	c, _ := json.Marshal(content)
	return fmt.Appendf(nil, `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":%q,"type":"function","function":{"name":"lookup","arguments":%s}}]},{"role":"tool","tool_call_id":%q,"content":%s}]}`, key, a, key, c)
}

// TestPairingProvedOrAmbiguous: with equal arguments, a provider item is paired with the result
// its content singles out, whatever the arrival order; results the evidence cannot tell apart
// are written ambiguous, never crossed; equal results are one fixture, paired.
func TestPairingProvedOrAmbiguous(t *testing.T) {
	type step struct {
		session string // an MCP step: the session; "" for a provider item
		open    bool   // open the (stdio) session
		end     bool   // end the session
		id      int    // the JSON-RPC id
		text    string // the result's text (MCP) or the item's content (provider)
		key     string // the provider item's call id
	}
	call := func(s string, id int, text string) step { return step{session: s, id: id, text: text} }
	item := func(key, content string) step { return step{key: key, text: content} }
	tests := []struct {
		name  string
		steps []step
		// want: each write, "result text ~ item key", or "result text ~ key ambiguous N".
		want []string
		// pending: the calls left without an item.
		pending int
	}{
		{
			name:  "the request carrying the second result arrives first",
			steps: []step{call("s1", 1, "result 1"), call("s2", 1, "result 2"), item("k2", "result 2"), item("k1", "result 1")},
			want:  []string{"result 2 ~ k2", "result 1 ~ k1"},
		},
		{
			name:  "a text inside another is not evidence against it",
			steps: []step{call("s1", 1, "result 1"), call("s2", 1, "result 10"), item("k10", "result 10"), item("k1", "result 1")},
			want:  []string{"result 10 ~ k10", "result 1 ~ k1"},
		},
		{
			name:  "wrapped texts: the longer string found wins",
			steps: []step{call("s1", 1, "result 1"), call("s2", 1, "result 10"), item("k10", "the tool said: result 10."), item("k1", "the tool said: result 1.")},
			want:  []string{"result 10 ~ k10", "result 1 ~ k1"},
		},
		{
			name:  "equal results are one fixture",
			steps: []step{call("s1", 1, "same"), call("s2", 1, "same"), item("k2", ""), item("k1", "")},
			want:  []string{"same ~ k2", "same ~ k1"},
		},
		{
			name:  "items that carry nothing of either result are ambiguous",
			steps: []step{call("s1", 1, "result 1"), call("s2", 1, "result 2"), item("k2", ""), item("k1", "")},
			want:  []string{"result 1 ~ k2 ambiguous 2", "result 2 ~ k1 ambiguous 2"},
		},
		{
			name: "after an ambiguous item, the other is paired only on evidence",
			steps: []step{call("s1", 1, "result 1"), call("s2", 1, "result 2"), call("s3", 1, "result 3"), item("kx", ""),
				item("k1", "result 1"), item("k3", "result 3")},
			// kx took result 1's call; k1 carries result 1, which no pending call holds: ambiguous.
			want: []string{"result 1 ~ kx ambiguous 3", "result 2 ~ k1 ambiguous 3", "result 3 ~ k3"},
		},
		{
			// k2 waits for a result that singles it out; k1, whose one candidate is proof only
			// once nothing more can come, for the session's end.
			name: "a stdio copy late: the item waits for its result",
			steps: []step{{session: "stdio:a", open: true}, call("stdio:a", 1, "result 1"), item("k2", "result 2"), item("k1", "result 1"),
				call("stdio:a", 2, "result 2"), {session: "stdio:a", end: true}},
			want: []string{"result 2 ~ k2", "result 1 ~ k1"},
		},
		{
			name: "a stdio copy late, no evidence: decided when the session ends",
			steps: []step{{session: "stdio:a", open: true}, call("stdio:a", 1, "result 1"), item("k2", ""), call("stdio:a", 2, "result 2"),
				item("k1", ""), {session: "stdio:a", end: true}},
			want: []string{"result 1 ~ k2 ambiguous 2", "result 2 ~ k1 ambiguous 2"},
		},
		{
			name:    "a stdio session still open: one candidate is not proof until it ends",
			steps:   []step{{session: "stdio:a", open: true}, call("stdio:a", 1, "result 1"), item("k9", "")},
			want:    []string{},
			pending: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := []string{}
			e := newEngine(func(c mcpCall, r provResult) {
				var src struct {
					Content []struct{ Text string }
				}
				if err := json.Unmarshal(c.source.mem, &src); err != nil {
					t.Fatal(err)
				}
				w := src.Content[0].Text + " ~ " + r.key
				if r.ambiguous > 0 {
					w += fmt.Sprintf(" ambiguous %d", r.ambiguous)
				}
				got = append(got, w)
			}, func(string, ...any) {})
			for _, s := range tc.steps {
				switch {
				case s.open:
					e.loopOnce(event{session: s.session, openSession: true})
				case s.end:
					e.loopOnce(event{session: s.session, endSession: true})
				case s.session != "":
					e.mcp(s.session, false, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`, s.id)))
					e.mcp(s.session, true, toolsResult(s.id, s.text))
				default:
					e.provider(fakeprovider.OpenAIChat, chatItem(s.key, "{}", s.text), "")
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("written %q, want %q", got, tc.want)
			}
			if s := e.Stats(); s.PendingCalls != tc.pending {
				t.Errorf("%d calls pending, want %d", s.PendingCalls, tc.pending)
			}
		})
	}
}

// TestSingledOut: which candidate result an item's strings single out, in the spellings a JSON
// encoder gives, or none when they point to none or to more than one.
func TestSingledOut(t *testing.T) {
	text := func(s string) string {
		b, _ := json.Marshal(s)
		return `{"content":[{"type":"text","text":` + string(b) + `}]}`
	}
	tests := []struct {
		name    string
		results []string // the distinct candidate results
		item    string   // the provider item
		want    int
		exact   bool
	}{
		{name: "the text as the content", results: []string{text("result 1"), text("result 2")}, item: `{"role":"tool","tool_call_id":"c","content":"result 2"}`, want: 1, exact: true},
		{name: "escaped spellings", results: []string{text("résultat / 1"), text("résultat / 2")}, item: `{"role":"tool","content":"r\u00e9sultat \/ 1"}`, want: 0, exact: true},
		{name: "the result serialised into a string", results: []string{text("a"), text("b")}, item: `{"type":"function_call_output","output":"{\"content\":[{\"type\":\"text\",\"text\":\"b\"}]}"}`, want: 1, exact: true},
		{name: "a structured value's string", results: []string{`{"content":[],"structuredContent":{"state":"shipped"}}`, `{"content":[],"structuredContent":{"state":"pending"}}`}, item: `{"parts":[{"functionResponse":{"name":"lookup","response":{"state":"pending"}}}]}`, want: 1, exact: true},
		{name: "a text inside a longer one found", results: []string{text("result 1"), text("result 10")}, item: `{"content":"tool said: result 10"}`, want: 1},
		{name: "both found whole", results: []string{text("a"), text("b")}, item: `{"content":["a","b"]}`, want: -1},
		{name: "neither found", results: []string{text("a"), text("b")}, item: `{"content":""}`, want: -1},
		{name: "only what both hold found", results: []string{`{"content":[{"type":"text","text":"same"}],"n":1}`, `{"content":[{"type":"text","text":"same"}],"n":2}`}, item: `{"content":"same"}`, want: -1},
		{name: "the call id is no evidence", results: []string{text("call_7"), text("other")}, item: `{"role":"tool","tool_call_id":"call_7","content":""}`, want: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			toks := make([][]string, len(tc.results))
			for i, r := range tc.results {
				toks[i] = (&mcpCall{source: bytesOf([]byte(r))}).tokens()
			}
			r := &provResult{key: "call_7", name: "lookup", item: bytesOf([]byte(tc.item))}
			got, exact := singledOut(candidateEvidence(toks, r.hay()))
			if got != tc.want || exact != tc.exact {
				t.Errorf("singled out %d (exact %v), want %d (%v)", got, exact, tc.want, tc.exact)
			}
		})
	}
}

// TestPairingBounds: an item evicted from the waiting ones is decided as at the recording's end
// (not lost when a candidate is there); past maxAmbiguity distinct results, an item whose
// candidates are tainted is written ambiguous even on evidence (what it could carry instead is
// no longer known).
func TestPairingBounds(t *testing.T) {
	var got []string
	e := newEngine(func(c mcpCall, r provResult) {
		got = append(got, fmt.Sprintf("%s ~ %s %d", c.source.mem, r.key, r.ambiguous))
	}, func(string, ...any) {})
	emptyCall := func(s string, id int, text string) {
		e.mcp(s, false, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`, id)))
		e.mcp(s, true, toolsResult(id, text))
	}
	t.Run("evicted", func(t *testing.T) {
		defer func(n int) { maxPending = n }(maxPending)
		maxPending = 1
		got = nil
		e.loopOnce(event{session: "stdio:x", openSession: true})
		emptyCall("stdio:x", 1, "only")
		e.provider(fakeprovider.OpenAIChat, chatItem("k1", "{}", ""), "")      // waits: the session is open
		e.provider(fakeprovider.OpenAIChat, chatItem("o1", `{"n":1}`, ""), "") // evicts k1
		if want := []string{`{"content":[{"type":"text","text":"only"}]} ~ k1 0`}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("written %q, want %q", got, want)
		}
		if s := e.Stats(); s.Evicted != 0 {
			t.Errorf("%d evicted, want 0: the evicted item was decided", s.Evicted)
		}
		e.loopOnce(event{session: "stdio:x", endSession: true})
	})
	t.Run("overflow", func(t *testing.T) {
		got = nil
		for i := range maxAmbiguity + 1 {
			emptyCall("h", i+1, fmt.Sprint("result ", i+1))
		}
		e.provider(fakeprovider.OpenAIChat, chatItem("lossy", "{}", ""), "")
		e.provider(fakeprovider.OpenAIChat, chatItem("k2", "{}", "result 2"), "")
		if len(got) != 2 || !strings.HasSuffix(got[0], "lossy 65") || !strings.HasSuffix(got[1], "k2 65") {
			t.Errorf("written %q, want both ambiguous", got)
		}
	})
}
