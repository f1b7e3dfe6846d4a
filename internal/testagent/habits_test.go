package testagent

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// habitCase is one run of the agent in a habit mode.
type habitCase struct {
	name        string
	mode        string
	api         fakeprovider.API
	stream      bool
	prefix      string
	wantAnswers []string
	wantItem    any // the carrier item, compared in canonical form
}

// TestHabits runs the agent in each real-client habit mode against the fake provider: the run
// must succeed, the result must be found as the call's carrier, in the shape the habit sends
// it, and side calls must leave the configured call to the agent's turn.
func TestHabits(t *testing.T) {
	const joined = "hello <b> & \u2028 \"q\"\nsecond"
	geminiItem := func(name string) any {
		return map[string]any{"functionResponse": map[string]any{"id": name + "__" + name + "_1700000000000_0", "name": name,
			"response": map[string]any{"output": joined}}}
	}
	responsesItem := map[string]any{"type": "function_call_output", "call_id": "call_1", "output": joined}
	customItem := map[string]any{"type": "custom_tool_call_output", "call_id": "call_1", "output": joined}
	turns := []string{"call call_1", "final"}
	searched := []string{fakeprovider.AnswerToolSearch, "call call_1", "final"}
	cases := []habitCase{
		{name: "gemini client ids plain", mode: ModeGeminiClientIDs, api: fakeprovider.Gemini, wantAnswers: turns, wantItem: geminiItem("fixture_tool")},
		{name: "gemini client ids streamed with a prefix", mode: ModeGeminiClientIDs, api: fakeprovider.Gemini, stream: true, prefix: "mcp_srv_",
			wantAnswers: turns, wantItem: geminiItem("mcp_srv_fixture_tool")},
		{name: "codex namespace plain", mode: ModeCodexNamespace, api: fakeprovider.OpenAIResponses, wantAnswers: turns, wantItem: responsesItem},
		{name: "codex namespace streamed", mode: ModeCodexNamespace, api: fakeprovider.OpenAIResponses, stream: true, wantAnswers: turns, wantItem: responsesItem},
		{name: "codex namespace with an mcp prefix", mode: ModeCodexNamespace, api: fakeprovider.OpenAIResponses, prefix: "mcp__cc__", wantAnswers: turns, wantItem: responsesItem},
		{name: "custom tool plain", mode: ModeCustomTool, api: fakeprovider.OpenAIResponses, wantAnswers: turns, wantItem: customItem},
		{name: "custom tool streamed with a prefix", mode: ModeCustomTool, api: fakeprovider.OpenAIResponses, stream: true, prefix: "server__",
			wantAnswers: turns, wantItem: customItem},
		{name: "codex tool search plain", mode: ModeCodexToolSearch, api: fakeprovider.OpenAIResponses,
			wantAnswers: searched, wantItem: responsesItem},
		{name: "codex tool search streamed", mode: ModeCodexToolSearch, api: fakeprovider.OpenAIResponses, stream: true,
			wantAnswers: searched, wantItem: responsesItem},
		{name: "codex tool search with an mcp prefix", mode: ModeCodexToolSearch, api: fakeprovider.OpenAIResponses, prefix: "mcp__cc__",
			wantAnswers: searched, wantItem: responsesItem},
	}
	for _, api := range fakeprovider.APIs() {
		for _, stream := range []bool{false, true} {
			var item any
			if err := json.Unmarshal([]byte(wantItem(t, api, "text", "call_1", "fixture_tool")), &item); err != nil {
				t.Fatal(err)
			}
			cases = append(cases, habitCase{name: "side calls " + string(api) + map[bool]string{false: " plain", true: " streamed"}[stream],
				mode: ModeSideCalls, api: api, stream: stream, wantItem: item,
				wantAnswers: []string{fakeprovider.AnswerSideCall, fakeprovider.AnswerSideCall, "call call_1", "final"}})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool",
				Calls: []fakeprovider.Call{{ID: "call_1", Arguments: `{"fixture":"text"}`}}})
			runDone(t, p, Config{API: tc.api, Stream: tc.stream, Tool: "fixture_tool", ToolPrefix: tc.prefix, Mode: tc.mode,
				MCPURL: mcpServer(t, &testMCP{}), Env: env})
			var answers []string
			for _, r := range p.Requests() {
				answers = append(answers, r.Answer)
			}
			if !slices.Equal(answers, tc.wantAnswers) {
				t.Errorf("answers %q, want %q", answers, tc.wantAnswers)
			}
			api, item, _, ok := p.Result("call_1")
			if !ok || api != tc.api {
				t.Fatalf("Result(call_1) = %s, %q, %v: the carrier was not found", api, item, ok)
			}
			want, err := json.Marshal(tc.wantItem)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := canonical(t, item), canonical(t, want); got != want {
				t.Errorf("carrier\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestHabitNeedsItsAPI checks that a habit mode refuses an API it does not belong to.
func TestHabitNeedsItsAPI(t *testing.T) {
	cases := []struct {
		name string
		mode string
		api  fakeprovider.API
	}{
		{name: "gemini ids on chat", mode: ModeGeminiClientIDs, api: fakeprovider.OpenAIChat},
		{name: "namespace on gemini", mode: ModeCodexNamespace, api: fakeprovider.Gemini},
		{name: "custom on anthropic", mode: ModeCustomTool, api: fakeprovider.Anthropic},
		{name: "tool search on chat", mode: ModeCodexToolSearch, api: fakeprovider.OpenAIChat},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool", Calls: []fakeprovider.Call{{ID: "call_1"}}})
			err := Run(context.Background(), Config{API: tc.api, Mode: tc.mode, MCPURL: mcpServer(t, &testMCP{}), Env: env, Stdout: &bytes.Buffer{}})
			if err == nil || !strings.Contains(err.Error(), "mode "+tc.mode+" needs provider API") {
				t.Fatalf("Run = %v, want the mode refused", err)
			}
		})
	}
}
