package probe

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testagent"
)

// TestRealClientHabits probes the test agent playing real clients' wire habits (issue 40):
// gemini-cli's client-made call ids, codex's namespace tools and its client-executed tool
// search, Responses custom tools, and tool-less side calls (a model router asking for JSON, a title). Each fixture's H4 carrier
// must be captured end to end, and the API named from the agent's own requests.
func TestRealClientHabits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode, api, stream, transport string
		batch                              bool
		want                               string // in C09's H4 carrier
		wantC07                            string // in C07's H4 carrier
	}{
		{"gemini client ids plain stdio", testagent.ModeGeminiClientIDs, "gemini", "0", "stdio", false,
			`"id":"fixture_tool__fixture_tool_1700000000000_0"`, `"id":"fixture_tool__fixture_tool_1700000000000_0"`},
		{"gemini client ids streamed http", testagent.ModeGeminiClientIDs, "gemini", "1", "http", false,
			`"id":"fixture_tool__fixture_tool_1700000000000_0"`, `Cannot book pickup`},
		// In one process (C07 called first) each result is told from the other's by order alone.
		{"gemini client ids batch", testagent.ModeGeminiClientIDs, "gemini", "0", "http", true,
			`"id":"fixture_tool__fixture_tool_1700000000001_1","name":"fixture_tool","response":{"output":"Route optimised`,
			`"id":"fixture_tool__fixture_tool_1700000000000_0","name":"fixture_tool","response":{"error":"Cannot book pickup`},
		{"codex namespace streamed http", testagent.ModeCodexNamespace, "openai-responses", "1", "http", false,
			`"type":"function_call_output"`, `Cannot book pickup`},
		{"codex namespace plain stdio batch", testagent.ModeCodexNamespace, "openai-responses", "0", "stdio", true,
			`"type":"function_call_output"`, `Cannot book pickup`},
		{"custom tool streamed http", testagent.ModeCustomTool, "openai-responses", "1", "http", false,
			`"type":"custom_tool_call_output"`, `Cannot book pickup`},
		{"codex tool search streamed http", testagent.ModeCodexToolSearch, "openai-responses", "1", "http", false,
			`"type":"function_call_output"`, `Cannot book pickup`},
		{"codex tool search plain stdio batch", testagent.ModeCodexToolSearch, "openai-responses", "0", "stdio", true,
			`"type":"function_call_output"`, `Cannot book pickup`},
		{"side calls gemini streamed http", testagent.ModeSideCalls, "gemini", "1", "http", false, `"functionResponse"`, `Cannot book pickup`},
		{"side calls chat plain http batch", testagent.ModeSideCalls, "openai-chat", "0", "http", true, `"role":"tool"`, `Cannot book pickup`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := probeAgent(t, tt.api, []string{"TESTAGENT_STREAM=" + tt.stream, "TESTAGENT_TRANSPORT=" + tt.transport,
				"TESTAGENT_MODE=" + tt.mode}, tt.batch, "C09", "C07")
			for _, f := range []string{"C09", "C07"} {
				if h4 := h4Of(t, recs, f, 1); h4.State != "captured" || len(h4.Carrier) == 0 {
					t.Errorf("%s H4 %s: %s", f, h4.State, h4.Error)
				}
			}
			for f, want := range map[string]string{"C09": tt.want, "C07": tt.wantC07} {
				if h4 := h4Of(t, recs, f, 1); !strings.Contains(string(h4.Carrier), want) {
					t.Errorf("%s H4 carrier %s, want it to contain %s", f, h4.Carrier, want)
				}
			}
		})
	}
}
