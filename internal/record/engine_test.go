package record

import (
	"encoding/json"
	"fmt"
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
	e.provider(fakeprovider.OpenAIChat, chatBody("a"))
	e.provider(fakeprovider.OpenAIChat, chatBody("a", "b"))
	// The provider item first (a stdio copy late), then its result.
	e.mcp("s2", false, toolsCall(1, "b"))
	e.mcp("s2", true, toolsResult(1, "B"))
	// A response in another session with the same JSON-RPC id is not s1's.
	e.mcp("s3", true, toolsResult(7, "X"))
	// A call never answered.
	e.mcp("s1", false, toolsCall(2, "c"))
	e.loopOnce(event{session: "s1", endSession: true})
	// A result of the agent's own function (no MCP tool of that name) is not the recorder's.
	e.provider(fakeprovider.OpenAIChat, []byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"f1","function":{"name":"calculator","arguments":"{}"}}]},{"role":"tool","tool_call_id":"f1","content":"4"}]}`))
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
