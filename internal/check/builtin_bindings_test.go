package check

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// jsonResultsOf runs the check opts selects and returns its results as the JSON report holds them
// ({"results": [...]}); a run that fails (exit 2 or 3) fails the test.
func jsonResultsOf(t *testing.T, opts inputs.Options) []byte {
	t.Helper()
	r, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if code := r.ExitCode(); code > 1 {
		t.Fatalf("exit %d: %+v", code, r.Gate)
	}
	var results []*result.Result
	for _, res := range r.Each() {
		results = append(results, res)
	}
	data, err := json.Marshal(map[string]any{"results": results})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

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
	stdout := jsonResultsOf(t, inputs.Options{Scope: result.Scope{
		Lanes:    []string{"direct", "agent-framework", "langchain-mcp-adapters-js"},
		Fixtures: []string{"C11", "C14", "R06", "R07", "R10"},
		Stages:   []string{"M3", "H4"}}})
	type binding struct {
		Fixture, Lane, Configuration, Stage, Task, Outcome string
		Diagnostics                                        []struct{ Atom, Kind string }
	}
	var rep struct {
		Results []binding `json:"results"`
	}
	if err := json.Unmarshal(stdout, &rep); err != nil {
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
			i := slices.IndexFunc(rep.Results, func(r binding) bool {
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

// bindingDifferences are the H4 readings where a built-in lane's own binding and the generic
// provider binding (contracts/providers.cue) may differ by design, keyed lane/fixture/task: the
// lane reads inside text that the generic binding, which reads the API's own slots only, never
// parses.
var bindingDifferences = map[string]string{
	"langchain-mcp-adapters-js/C04/T2": lcjsJSONSlots,
	"langchain-mcp-adapters-js/V01/T2": lcjsJSONSlots,
	"langchain-mcp-adapters-js/C17/T5": lcjsJSONSlots,
	"langchain-mcp-adapters-js/C18/T5": lcjsJSONSlots,
	"openai-agents/C10/T1":             oaEmbedded,
	"openai-agents/C12/T1":             oaEmbedded,
	"openai-agents/C14/T1":             oaEmbedded,
	"openai-agents/C15/T1":             oaEmbedded,
	"openai-agents/C16/T1":             oaEmbedded,
	"openai-agents/R05/T1":             oaEmbedded,
	"openai-agents/R08/T1":             oaEmbedded,
}

const (
	lcjsJSONSlots = "a lone text block beside a structuredContent or _meta is sent as the JSON text of {…textBlock, structuredContent, meta}; the lane reads the slots inside it (decode json, inner)"
	oaEmbedded    = "a block openai-agents has no part for is sent as its model_dump_json() in an input_text; the lane reads the block inside it (embedded), and TM says it reaches the model as text"
)

// providerH4Lanes are the built-in lanes whose H4 carrier is an OpenAI request item, and whether
// it sits in an envelope {api, item, output}.
var providerH4Lanes = []struct {
	lane     string
	envelope bool
}{
	{lane: "agent-framework"},
	{lane: "openai-agents"},
	{lane: "openai-agents-js"},
	{lane: "langchain-mcp-adapters-js", envelope: true},
}

// TestBuiltinH4AgreesWithProviderBindings is probe's agreement check without a framework run:
// every committed H4 item of a lane whose H4 is an OpenAI request item is read a second time by
// the generic binding of its API, and each task's outcome must be the same, but for the
// differences by design above. A lane binding that reads more into an item than the API takes,
// or less than it delivers, differs here.
func TestBuiltinH4AgreesWithProviderBindings(t *testing.T) {
	t.Parallel()
	contracts, fixtures := t.TempDir(), t.TempDir()
	type laneDef struct {
		api      string
		versions map[string]bool
		configs  map[string]bool
	}
	generic := map[string]*laneDef{}
	records := map[string][]byte{} // observations/<lane>/<version>/<configuration>.jsonl
	lanes := []string{"direct"}
	for _, pl := range providerH4Lanes {
		lanes = append(lanes, pl.lane)
		files, err := fs.Glob(contractcheck.Builtin, "fixtures/observations/"+pl.lane+"/*/*.jsonl")
		if err != nil || len(files) == 0 {
			t.Fatalf("no records of %s: %v", pl.lane, err)
		}
		for _, file := range files {
			data, err := fs.ReadFile(contractcheck.Builtin, file)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				dec := json.NewDecoder(strings.NewReader(line))
				dec.UseNumber()
				var rec map[string]any
				if err := dec.Decode(&rec); err != nil {
					t.Fatalf("%s:%d: %v", file, i+1, err)
				}
				if rec["stage"] != "H4" {
					continue
				}
				api := "openai-responses"
				if pl.envelope {
					if rec["state"] != "captured" {
						continue // the envelope names the API; a record with no carrier has none
					}
					env := rec["carrier"].(map[string]any)
					api = map[any]string{"chat.completions": "openai-chat", "responses": "openai-responses"}[env["api"]]
					if api == "" {
						t.Fatalf("%s:%d: envelope api %v", file, i+1, env["api"])
					}
					rec["carrier"] = env["item"]
				}
				name := pl.lane + "--" + api
				d := generic[name]
				if d == nil {
					d = &laneDef{api: api, versions: map[string]bool{}, configs: map[string]bool{}}
					generic[name] = d
					lanes = append(lanes, name)
				}
				version, config := rec["laneVersion"].(string), rec["configuration"].(string)
				d.versions[version], d.configs[config] = true, true
				rec["lane"] = name
				out, err := json.Marshal(rec)
				if err != nil {
					t.Fatal(err)
				}
				key := filepath.Join("observations", name, version, config+".jsonl")
				records[key] = append(append(records[key], out...), '\n')
			}
		}
	}
	var cue strings.Builder
	cue.WriteString("package contracts\n")
	for _, name := range slices.Sorted(maps.Keys(generic)) {
		d := generic[name]
		fmt.Fprintf(&cue, "lanes: %q: {\n\tdoc: \"The committed H4 items read by the generic %s binding.\"\n\torigin: \"captured\"\n\tversions: [", name, d.api)
		for i, v := range slices.Sorted(maps.Keys(d.versions)) {
			if i > 0 {
				cue.WriteString(", ")
			}
			fmt.Fprintf(&cue, "%q", v)
		}
		cue.WriteString("]\n\tconfigurations: {\n")
		for _, c := range slices.Sorted(maps.Keys(d.configs)) {
			fmt.Fprintf(&cue, "\t\t%q: doc: \"as the lane's\"\n", c)
		}
		cue.WriteString("\t}\n\tstages: {\n")
		for _, s := range []string{"D1", "A2", "M3"} {
			fmt.Fprintf(&cue, "\t\t%s: {exposure: \"not_observable\", doc: \"not recorded here\", compartments: {}}\n", s)
		}
		fmt.Fprintf(&cue, "\t\tH4: _providerH4[%q]\n\t}\n}\n", d.api)
	}
	testkit.WriteFile(t, filepath.Join(contracts, "generic.cue"), cue.String())
	for key, data := range records {
		testkit.WriteFile(t, filepath.Join(fixtures, key), string(data))
	}

	stdout := jsonResultsOf(t, inputs.Options{Contracts: []string{contracts}, Fixtures: []string{fixtures},
		Scope: result.Scope{Lanes: lanes, Stages: []string{"H4"}}})
	var rep struct {
		Results []struct {
			Fixture, Lane, LaneVersion, Configuration, Task, Outcome string
		} `json:"results"`
	}
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatal(err)
	}
	outcome := map[string]string{}
	for _, r := range rep.Results {
		outcome[r.Lane+"/"+r.LaneVersion+"/"+r.Configuration+"/"+r.Fixture+"/"+r.Task] = r.Outcome
	}
	for _, pl := range providerH4Lanes {
		t.Run(pl.lane, func(t *testing.T) {
			compared, differ := 0, map[string]bool{}
			for _, r := range rep.Results {
				if r.Lane != pl.lane {
					continue
				}
				for _, api := range []string{"openai-responses", "openai-chat"} {
					g, ok := outcome[pl.lane+"--"+api+"/"+r.LaneVersion+"/"+r.Configuration+"/"+r.Fixture+"/"+r.Task]
					if !ok {
						continue
					}
					compared++
					if g == r.Outcome {
						continue
					}
					key := pl.lane + "/" + r.Fixture + "/" + r.Task
					differ[key] = true
					if bindingDifferences[key] == "" {
						t.Errorf("%s %s %s %s %s: the lane's binding reads %s, the generic %s binding %s", pl.lane, r.LaneVersion, r.Configuration, r.Fixture, r.Task, r.Outcome, api, g)
					}
				}
			}
			if compared == 0 {
				t.Fatal("no H4 binding compared")
			}
			for key := range bindingDifferences {
				if strings.HasPrefix(key, pl.lane+"/") && !differ[key] {
					t.Errorf("%s: listed as a difference by design, but the two bindings agree: remove it", key)
				}
			}
			t.Logf("%d H4 bindings compared, %d differ by design", compared, len(differ))
		})
	}
}
