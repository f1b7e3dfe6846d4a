package check

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// These tests hold the generic provider bindings of contracts/providers.cue (_providerH4): a
// user's layer declares one lane per provider API whose H4 stage is _providerH4[api], as the lane
// `contractcheck probe` writes does, and records the provider request item that carries the tool
// result for a few fixtures, the way each API's SDKs write it. The check must read each item
// through the API's own slots only: a string output is one text item, typed parts are blocks,
// Anthropic's is_error and Gemini's response.error are the error state, and no JSON text is parsed
// into a structured value.

// providerAPIs are the keys of _providerH4.
var providerAPIs = []string{"openai-responses", "openai-chat", "anthropic", "gemini"}

// providerCase is one recorded item of one API for one fixture.
type providerCase struct {
	name    string
	api     string
	fixture string
	// carrier is the item as the API's SDKs send it, with placeholders filled from the fixture:
	// $TEXT the first content block's text, $DATA and $MIME its image bytes and MIME type (JSON
	// strings), $STRUCT the structuredContent.
	carrier string
	want    map[string]string // task → outcome
	// atoms, for an unmet task, are the diagnostics' atoms, sorted, exactly.
	atoms map[string][]string
	// image, when set, asks that the H4 content view recovers the fixture's image: one image
	// block with its payload and MIME type.
	image bool
}

var providerCases = []providerCase{
	// OpenAI Responses: function_call_output.
	{name: "responses C09 string output", api: "openai-responses", fixture: "C09",
		carrier: `{"type":"function_call_output","call_id":"call_1","output":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "responses C09 input_text part", api: "openai-responses", fixture: "C09",
		carrier: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":$TEXT}]}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "responses C05 JSON text is not a structured slot", api: "openai-responses", fixture: "C05",
		carrier: `{"type":"function_call_output","call_id":"call_1","output":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T2": "unmet"},
		atoms:   map[string][]string{"T2": {"structured.relation", "structured.state"}}},
	{name: "responses C07 no error flag", api: "openai-responses", fixture: "C07",
		carrier: `{"type":"function_call_output","call_id":"call_1","output":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T3": "unmet"},
		atoms:   map[string][]string{"T3": {"error.decision"}}},
	{name: "responses C11 input_image data URL", api: "openai-responses", fixture: "C11",
		carrier: `{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_image","image_url":"data:"+$MIME+";base64,"+$DATA,"detail":"auto"}]}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}, image: true},

	// OpenAI Chat Completions: the role tool message.
	{name: "chat C09 string content", api: "openai-chat", fixture: "C09",
		carrier: `{"role":"tool","tool_call_id":"call_1","content":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "chat C09 text part", api: "openai-chat", fixture: "C09",
		carrier: `{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":$TEXT}]}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "chat C05 JSON text is not a structured slot", api: "openai-chat", fixture: "C05",
		carrier: `{"role":"tool","tool_call_id":"call_1","content":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T2": "unmet"},
		atoms:   map[string][]string{"T2": {"structured.relation", "structured.state"}}},
	{name: "chat C07 no error flag", api: "openai-chat", fixture: "C07",
		carrier: `{"role":"tool","tool_call_id":"call_1","content":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T3": "unmet"},
		atoms:   map[string][]string{"T3": {"error.decision"}}},
	{name: "chat C11 image_url is not a tool message part", api: "openai-chat", fixture: "C11",
		carrier: `{"role":"tool","tool_call_id":"call_1","content":[{"type":"image_url","image_url":{"url":"data:"+$MIME+";base64,"+$DATA}}]}`,
		want:    map[string]string{"T1": "unmet", "T4": "unmet"}},

	// Anthropic Messages: the tool_result block.
	{name: "anthropic C09 string content", api: "anthropic", fixture: "C09",
		carrier: `{"type":"tool_result","tool_use_id":"toolu_1","content":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "anthropic C09 text block", api: "anthropic", fixture: "C09",
		carrier: `{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":$TEXT}]}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "anthropic C05 JSON text is not a structured slot", api: "anthropic", fixture: "C05",
		carrier: `{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":$TEXT}]}`,
		want:    map[string]string{"T1": "pass", "T2": "unmet"},
		atoms:   map[string][]string{"T2": {"structured.relation", "structured.state"}}},
	{name: "anthropic C07 is_error true", api: "anthropic", fixture: "C07",
		carrier: `{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":$TEXT}],"is_error":true}`,
		want:    map[string]string{"T1": "pass", "T3": "pass"}},
	{name: "anthropic C07 is_error left out", api: "anthropic", fixture: "C07",
		carrier: `{"type":"tool_result","tool_use_id":"toolu_1","content":$TEXT}`,
		want:    map[string]string{"T1": "pass", "T3": "unmet"},
		atoms:   map[string][]string{"T3": {"error.decision"}}},
	{name: "anthropic C08 is_error false", api: "anthropic", fixture: "C08",
		carrier: `{"type":"tool_result","tool_use_id":"toolu_1","content":$TEXT,"is_error":false}`,
		want:    map[string]string{"T1": "pass", "T3": "pass"}},
	{name: "anthropic C11 base64 image block", api: "anthropic", fixture: "C11",
		carrier: `{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"image","source":{"type":"base64","media_type":$MIME,"data":$DATA}}]}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}, image: true},

	// Gemini: the functionResponse part.
	{name: "gemini C09 output text", api: "gemini", fixture: "C09",
		carrier: `{"functionResponse":{"id":"call_1","name":"fixture_tool","response":{"output":$TEXT}}}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "gemini C09 call id dropped", api: "gemini", fixture: "C09",
		carrier: `{"functionResponse":{"response":{"output":$TEXT},"name":"mcp_fixture_tool","id":null},"thoughtSignature":"c2ln"}`,
		want:    map[string]string{"T1": "pass", "T4": "pass"}},
	{name: "gemini C05 output text is not a structured slot", api: "gemini", fixture: "C05",
		carrier: `{"functionResponse":{"name":"fixture_tool","response":{"output":$TEXT}}}`,
		want:    map[string]string{"T1": "pass", "T2": "unmet"},
		atoms:   map[string][]string{"T2": {"structured.relation", "structured.state"}}},
	{name: "gemini C05 output object is the structured slot", api: "gemini", fixture: "C05",
		carrier: `{"functionResponse":{"name":"fixture_tool","response":{"output":$STRUCT}}}`,
		// The value arrives typed and equal; the text beside it does not arrive at all.
		want:  map[string]string{"T1": "unmet", "T2": "unmet"},
		atoms: map[string][]string{"T2": {"structured.relation"}}},
	{name: "gemini C07 response error", api: "gemini", fixture: "C07",
		carrier: `{"functionResponse":{"name":"fixture_tool","response":{"error":$TEXT}}}`,
		want:    map[string]string{"T1": "unmet", "T3": "pass"}},
	{name: "gemini C08 no explicit continue", api: "gemini", fixture: "C08",
		carrier: `{"functionResponse":{"name":"fixture_tool","response":{"output":$TEXT}}}`,
		want:    map[string]string{"T1": "pass", "T3": "unmet"},
		atoms:   map[string][]string{"T3": {"error.decision"}}},
}

// providerLane is the lane id of an API's lane in the test layer.
func providerLane(api string) string { return "probe-" + api }

// providerConfig is the configuration a case is recorded under: one position per case.
func providerConfig(c providerCase) string {
	return strings.ToLower(strings.NewReplacer(" ", "-", "_", "-").Replace(c.name))
}

// providerSource reads a built-in fixture's bytes and decoded result.
func providerSource(t *testing.T, id string) ([]byte, map[string]any) {
	t.Helper()
	matches, err := fs.Glob(contractcheck.Builtin, "fixtures/sources/*/"+id+".json")
	if err != nil || len(matches) != 1 {
		t.Fatalf("fixture %s: %v %v", id, matches, err)
	}
	data, err := fs.ReadFile(contractcheck.Builtin, matches[0])
	if err != nil {
		t.Fatal(err)
	}
	doc, err := strictjson.Decode(matches[0], data, strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return data, doc.(map[string]any)
}

// providerCarrier fills a case's placeholders from its fixture. `"a"+$X+"b"` concatenates JSON
// strings, so a data URL can be spelled out of the fixture's MIME type and bytes.
func providerCarrier(t *testing.T, c providerCase, src map[string]any) string {
	t.Helper()
	str := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	block := src["content"].([]any)[0].(map[string]any)
	structured := "null"
	if s, ok := src["structuredContent"]; ok {
		structured = str(s)
	}
	out := strings.NewReplacer(
		"$TEXT", str(block["text"]), "$DATA", str(block["data"]), "$MIME", str(block["mimeType"]), "$STRUCT", structured,
	).Replace(c.carrier)
	// Join adjacent JSON strings: "x"+"y" → "xy".
	out = strings.ReplaceAll(out, `"+"`, "")
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: the carrier is not JSON: %v\n%s", c.name, err, out)
	}
	return out
}

// providerLayer writes a contract layer with one lane per API (H4 from _providerH4, every other
// stage not observable, a configuration per case) and a profile, and the records of the cases.
func providerLayer(t *testing.T, cases []providerCase) (contracts, observations string) {
	t.Helper()
	dir := t.TempDir()
	contracts, observations = filepath.Join(dir, "contracts"), filepath.Join(dir, "observations")
	var b strings.Builder
	b.WriteString("package contracts\n")
	for _, api := range providerAPIs {
		fmt.Fprintf(&b, "\nlanes: %q: {\n\tdoc: %q\n\torigin: \"captured\"\n\tversions: [\"v1\"]\n\tconfigurations: {\n\t\tdefault: doc: \"No case.\"\n", providerLane(api), "Any agent speaking "+api+", read through the generic provider binding.")
		for _, c := range cases {
			if c.api == api {
				fmt.Fprintf(&b, "\t\t%q: doc: %q\n", providerConfig(c), c.name)
			}
		}
		b.WriteString("\t}\n\tstages: {\n")
		for _, st := range []string{"D1", "A2", "M3"} {
			fmt.Fprintf(&b, "\t\t%s: {exposure: \"not_observable\", doc: \"Not reported.\", compartments: {}}\n", st)
		}
		fmt.Fprintf(&b, "\t\tH4: _providerH4[%q]\n\t}\n}\n", api)
	}
	b.WriteString("\nprofiles: \"provider-lanes\": {\n\tdoc: \"Every item was judged.\"\n\tnullPolicy: \"strict\"\n\trequire: [{\n\t\tdoc: \"H4 judged.\"\n\t\tstages: [\"H4\"]\n\t\toutcomes: [\"pass\", \"unmet\"]\n\t}]\n}\n")
	testkit.WriteFile(t, filepath.Join(contracts, "lanes.cue"), b.String())
	for _, c := range cases {
		data, src := providerSource(t, c.fixture)
		sum := sha256.Sum256(data)
		rec := fmt.Sprintf(`{"fixture":%q,"lane":%q,"laneVersion":"v1","configuration":%q,"stage":"H4","repetition":1,"state":"captured","carrier":%s,"sourceSha256":%q,"origin":"captured"}`+"\n",
			c.fixture, providerLane(c.api), providerConfig(c), providerCarrier(t, c, src), hex.EncodeToString(sum[:]))
		testkit.WriteFile(t, filepath.Join(observations, providerLane(c.api), "v1", providerConfig(c)+".jsonl"), rec)
	}
	return contracts, observations
}

// TestProviderLanes checks every case's outcomes, diagnostics and, for the images, the view.
func TestProviderLanes(t *testing.T) {
	contracts, observations := providerLayer(t, providerCases)
	ctx := context.Background()
	opts := inputs.Options{Profile: "provider-lanes", Contracts: []string{contracts}, Observations: []string{observations}}
	in, err := instrument.Load(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	files, err := opts.RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunWith(ctx, in, files, 0)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ lane, configuration, task string }
	got := map[key]*result.Result{}
	for _, res := range r.Each() {
		if res.Stage != "H4" {
			t.Errorf("%s %s %s: a result at %s, which no record observes", res.Lane, res.Configuration, res.Task, res.Stage)
			continue
		}
		got[key{res.Lane, res.Configuration, res.Task}] = res
	}
	for _, c := range providerCases {
		t.Run(c.name, func(t *testing.T) {
			lane, cfg := providerLane(c.api), providerConfig(c)
			for task, want := range c.want {
				res := got[key{lane, cfg, task}]
				if res == nil {
					t.Errorf("%s: no result", task)
					continue
				}
				var atoms []string
				for _, d := range res.Diagnostics {
					atoms = append(atoms, fmt.Sprint(d["atom"]))
				}
				slices.Sort(atoms)
				atoms = slices.Compact(atoms)
				if res.Outcome != want {
					t.Errorf("%s: %s, want %s (diagnostics %v %s)", task, res.Outcome, want, res.Diagnostics, res.Error)
					continue
				}
				if w, ok := c.atoms[task]; ok && !slices.Equal(atoms, w) {
					t.Errorf("%s: diagnostics name %v, want %v (%v)", task, atoms, w, res.Diagnostics)
				}
			}
			if !c.image {
				return
			}
			_, src := providerSource(t, c.fixture)
			var carrier any
			if err := json.Unmarshal([]byte(providerCarrier(t, c, src)), &carrier); err != nil {
				t.Fatal(err)
			}
			view := in.View(lane, "H4", "content", carrier)
			blocks, _ := view["content"].([]any)
			block := src["content"].([]any)[0].(map[string]any)
			if len(blocks) != 1 {
				t.Fatalf("content view %v, want one image block", view)
			}
			b := blocks[0].(map[string]any)
			if b["kind"] != "image" || b["payload"] != block["data"] || b["mimeType"] != block["mimeType"] {
				t.Errorf("content view block %v, want kind image, payload %v, mimeType %v", b, block["data"], block["mimeType"])
			}
		})
	}
}

// TestProviderLanesReadNoJSONText: no generic binding parses text. The text of C05 is the JSON of
// its structured value; whatever item carries it, the structured compartment holds no slot, and
// the content holds the text as carried.
func TestProviderLanesReadNoJSONText(t *testing.T) {
	contracts, observations := providerLayer(t, nil)
	in, err := instrument.Load(context.Background(), inputs.Options{Profile: "provider-lanes", Contracts: []string{contracts}, Observations: []string{observations}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range providerCases {
		if c.fixture != "C05" || strings.Contains(c.carrier, "$STRUCT") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			_, src := providerSource(t, c.fixture)
			var carrier any
			if err := json.Unmarshal([]byte(providerCarrier(t, c, src)), &carrier); err != nil {
				t.Fatal(err)
			}
			view := in.View(providerLane(c.api), "H4", "structured", carrier)
			if _, ok := view["structured"]; ok {
				t.Errorf("structured view %v: a slot read out of text", view)
			}
			blocks, _ := view["content"].([]any)
			text := src["content"].([]any)[0].(map[string]any)["text"]
			if len(blocks) != 1 || blocks[0].(map[string]any)["text"] != text {
				t.Errorf("structured view %v, want the text item %v", view, text)
			}
		})
	}
}

// TestProviderCarrierSchemas: an item of another API is not the API's carrier. A record holding
// one stops the check with an input error at the record and the carrier, never with verdicts
// read off the wrong shape.
func TestProviderCarrierSchemas(t *testing.T) {
	items := map[string]string{
		"openai-responses": `{"type":"function_call_output","call_id":"call_1","output":"x"}`,
		"openai-chat":      `{"role":"tool","tool_call_id":"call_1","content":"x"}`,
		"anthropic":        `{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}`,
		"gemini":           `{"functionResponse":{"name":"fixture_tool","response":{"output":"x"}}}`,
		// The proto name function_response is not what the google-genai SDKs write, and the
		// binding reads functionResponse: refused, not read as carrying nothing.
		"gemini proto name": `{"function_response":{"name":"fixture_tool","response":{"output":"x"}}}`,
	}
	contracts, _ := providerLayer(t, nil)
	in, err := instrument.Load(context.Background(), inputs.Options{Profile: "provider-lanes", Contracts: []string{contracts}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := providerSource(t, "C09")
	sum := sha256.Sum256(data)
	for _, api := range providerAPIs {
		for _, other := range append(slices.Clone(providerAPIs), "gemini proto name") {
			if other == api {
				continue
			}
			t.Run(api+" given "+other, func(t *testing.T) {
				rec := fmt.Sprintf(`{"fixture":"C09","lane":%q,"laneVersion":"v1","configuration":"default","stage":"H4","repetition":1,"state":"captured","carrier":%s,"sourceSha256":%q,"origin":"captured"}`+"\n",
					providerLane(api), items[other], hex.EncodeToString(sum[:]))
				files, err := inputs.RecordFiles(inputs.Dir{FS: fstest.MapFS{"obs/x.jsonl": {Data: []byte(rec)}}, Root: "obs", Display: "obs"})
				if err != nil {
					t.Fatal(err)
				}
				_, err = RunWith(context.Background(), in, files, 1)
				var ve *schema.ValidationError
				if !errors.As(err, &ve) || ve.Line != 1 || !strings.HasPrefix(ve.Pointer, "/carrier") {
					t.Fatalf("got %v, want a carrier schema violation at obs/x.jsonl:1 /carrier…", err)
				}
			})
		}
	}
}
