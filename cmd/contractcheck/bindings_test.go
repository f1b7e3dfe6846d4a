package main

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestBuiltinBindingsReadWhatTheProviderTakes pins the readings of two built-in H4 bindings that
// probe's agreement runs found reading otherwise than the generic provider bindings
// (contracts/providers.cue) on the same committed request items:
//   - agent-framework sends an MCP image as a Responses input_image whose image_url is a data URL
//     (RawOpenAIChatClient._prepare_content_for_openai), so at H4 TM passes on the reported image
//     fixtures; at M3 the item is still a data Content whose media type decides how it is sent,
//     and the binding declares no delivery there.
//   - langchain-mcp-adapters-js on Chat Completions puts image_url and input_audio parts into the
//     role tool message, which takes text parts only (ChatCompletionToolMessageParam): T1 and T4
//     do not read them as delivered. The ToolMessage the integration receives (M3) still holds
//     the image: the loss is at the request body.
func TestBuiltinBindingsReadWhatTheProviderTakes(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cli(t, "check", "--quiet", "--format", "json",
		"--lane", "direct", "--lane", "agent-framework", "--lane", "langchain-mcp-adapters-js",
		"--fixture", "C11", "--fixture", "C14", "--fixture", "R06", "--fixture", "R07", "--fixture", "R10",
		"--stage", "M3", "--stage", "H4")
	if code > 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type result struct {
		Fixture, Lane, Configuration, Stage, Task, Outcome string
		Diagnostics                                        []struct{ Atom, Kind string }
	}
	var rep struct {
		Results []result `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fixture, lane, configuration, stage, task string
		outcome                                         string
		diagnostic                                      string // one the result must hold, "" for none
	}{
		{name: "agent-framework R06 image as an input_image data URL", fixture: "R06", lane: "agent-framework", configuration: "default", stage: "H4", task: "TM", outcome: "pass"},
		{name: "agent-framework R07 image as an input_image data URL", fixture: "R07", lane: "agent-framework", configuration: "default", stage: "H4", task: "TM", outcome: "pass"},
		{name: "agent-framework R10 image as an input_image data URL", fixture: "R10", lane: "agent-framework", configuration: "default", stage: "H4", task: "TM", outcome: "pass"},
		{name: "agent-framework M3 data Content declares no delivery", fixture: "R06", lane: "agent-framework", configuration: "default", stage: "M3", task: "TM", outcome: "unmet", diagnostic: "block.delivery missing"},
		{name: "chat tool message image_url part not delivered, T1", fixture: "C11", lane: "langchain-mcp-adapters-js", configuration: "default", stage: "H4", task: "T1", outcome: "unmet", diagnostic: "block.kind altered"},
		{name: "chat tool message image_url part not delivered, T4", fixture: "R06", lane: "langchain-mcp-adapters-js", configuration: "default", stage: "H4", task: "T4", outcome: "unmet", diagnostic: "block.kind altered"},
		{name: "chat tool message input_audio part not delivered, T1", fixture: "C14", lane: "langchain-mcp-adapters-js", configuration: "default", stage: "H4", task: "T1", outcome: "unmet", diagnostic: "block.kind altered"},
		{name: "chat tool message input_audio part not delivered, standard blocks, T4", fixture: "C14", lane: "langchain-mcp-adapters-js", configuration: "use-standard-content-blocks", stage: "H4", task: "T4", outcome: "unmet", diagnostic: "block.kind altered"},
		{name: "the ToolMessage the integration reads still holds the image", fixture: "C11", lane: "langchain-mcp-adapters-js", configuration: "default", stage: "M3", task: "T1", outcome: "pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := slices.IndexFunc(rep.Results, func(r result) bool {
				return r.Fixture == tc.fixture && r.Lane == tc.lane && r.Configuration == tc.configuration && r.Stage == tc.stage && r.Task == tc.task
			})
			if i < 0 {
				t.Fatalf("no result for %s %s %s %s %s", tc.fixture, tc.lane, tc.configuration, tc.stage, tc.task)
			}
			r := rep.Results[i]
			var ds []string
			for _, d := range r.Diagnostics {
				ds = append(ds, d.Atom+" "+d.Kind)
			}
			if r.Outcome != tc.outcome || (tc.diagnostic != "" && !slices.Contains(ds, tc.diagnostic)) {
				t.Errorf("%s %s %s %s %s: %s %v, want %s %s", tc.fixture, tc.lane, tc.configuration, tc.stage, tc.task, r.Outcome, ds, tc.outcome, tc.diagnostic)
			}
		})
	}
}
