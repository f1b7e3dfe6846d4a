package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// These tests run the built-in tasks T1–T5 end to end, the way a user's check does: the source
// through the canonical MCP binding (contracts/source.cue), the carrier through the `direct`
// lane's compartments (contracts/lanes.cue), the built-in Rego policies, under the built-in
// profiles. Each case names one distinction a task makes; an unmet case lists the diagnostics'
// (atom, kind, path) triples exactly, since those are what users gate and read.
//
// Documents live in testdata/tasks/<task>/<name>.json.

// Built-in profiles the cases run under.
const (
	strict       = "strict"
	optionalNull = "optional-null"
	withholdMeta = "withhold-private-meta"
)

var nullPolicies = []string{strict, optionalNull}

// instruments are the built-in instruments by profile, each loaded once per test binary.
var instruments testkit.OnceEach[string, *instrument.Instrument]

// loadInstrument loads a built-in profile once per test binary.
func loadInstrument(t *testing.T, profile string) *instrument.Instrument {
	t.Helper()
	in, err := instruments.Get(profile, func() (*instrument.Instrument, error) {
		return instrument.Load(context.Background(), inputs.Options{Profile: profile})
	})
	if err != nil {
		t.Fatalf("Load(profile %q): %v", profile, err)
	}
	return in
}

// diag is the part of a diagnostic a user's gate relies on.
type diag struct{ atom, kind, path string }

func (d diag) String() string { return fmt.Sprintf("(%s, %s, %q)", d.atom, d.kind, d.path) }

type outcome string

const (
	pass  outcome = "pass"
	unmet outcome = "unmet"
)

// taskCase is one (source, carrier) pair evaluated for one task under one profile at one stage.
type taskCase struct {
	name    string
	task    string // T1 … T5
	profile string // a built-in profile; empty in a table means both null policies (see expand)
	stage   string // the direct lane's stage; A2 when empty
	fixture contract.Fixture
	source  string // file under testdata/tasks/<task>/
	carrier string // file under testdata/tasks/<task>/
	want    outcome
	diags   []diag // the exact diagnostics of an unmet case
	// readout, when set, is the readout the task must report for the carrier.
	readout map[string]any
}

// expand runs every case without a profile under both null policies.
func expand(cases []taskCase) []taskCase {
	var out []taskCase
	for _, c := range cases {
		if c.profile != "" {
			out = append(out, c)
			continue
		}
		for _, p := range nullPolicies {
			c := c
			c.profile = p
			out = append(out, c)
		}
	}
	return out
}

// under sets the profile of a case (for the cases whose outcome depends on the null policy).
func under(profile string, c taskCase) taskCase {
	c.profile = profile
	return c
}

func loadDoc(t *testing.T, task, name string) any {
	t.Helper()
	p := filepath.Join("testdata", "tasks", strings.ToLower(task), name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := strictjson.Decode(p, data, strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func runTaskCases(t *testing.T, cases []taskCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range expand(cases) {
		id := c.profile + "/" + c.name
		if seen[id] {
			t.Fatalf("duplicate case %s", id)
		}
		seen[id] = true
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			if c.want == pass && len(c.diags) > 0 {
				t.Fatal("a passing case lists diagnostics")
			}
			if c.want == unmet && len(c.diags) == 0 {
				t.Fatal("an unmet case lists no diagnostics")
			}
			stage := c.stage
			if stage == "" {
				stage = "A2"
			}
			fixture := c.fixture
			if fixture.Family == "" {
				fixture.Family = defaultFamily[c.task]
			}
			in := loadInstrument(t, c.profile)
			src := loadDoc(t, c.task, c.source)
			car := loadDoc(t, c.task, c.carrier)
			v, err := in.EvaluatePair(context.Background(), c.task, result.Position{Fixture: "pair", Lane: "direct", LaneVersion: "v1", Configuration: "default", Stage: stage}, fixture, src, car)
			if err != nil {
				t.Fatalf("EvaluatePair: %v", err)
			}
			got := pass
			if !v.Pass() {
				got = unmet
			}
			var gotDiags []diag
			for _, d := range v.Diagnostics {
				gotDiags = append(gotDiags, diag{str(d["atom"]), str(d["kind"]), str(d["path"])})
			}
			sortDiags(gotDiags)
			want := append([]diag(nil), c.diags...)
			sortDiags(want)
			if got != c.want || !reflect.DeepEqual(gotDiags, want) {
				t.Errorf("%s %s(%s) vs %s at direct/%s:\n got  %s %v\n want %s %v\n diagnostics: %v",
					c.task, c.profile, c.source, c.carrier, stage, got, gotDiags, c.want, want, v.Diagnostics)
			}
			for k, w := range c.readout {
				if g, ok := v.Readout[k]; !ok || fmt.Sprint(g) != fmt.Sprint(w) {
					t.Errorf("readout[%q] = %v (present %v), want %v; readout %v", k, g, ok, w, v.Readout)
				}
			}
		})
	}
}

var defaultFamily = map[string]string{"T1": "rich", "T2": "structured", "T3": "error", "T4": "rich", "T5": "meta"}

func str(v any) string {
	s, ok := v.(string)
	if !ok {
		return fmt.Sprintf("<%T %v>", v, v)
	}
	return s
}

func sortDiags(ds []diag) {
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.path != b.path {
			return a.path < b.path
		}
		if a.atom != b.atom {
			return a.atom < b.atom
		}
		return a.kind < b.kind
	})
}

// TestTaskT1 covers T1 content: kind, primary value, count and order of the content items.
func TestTaskT1(t *testing.T) { runTaskCases(t, t1Cases()) }

func t1Cases() []taskCase {
	src := "source.json"
	return []taskCase{
		{name: "equal content", task: "T1", source: src, carrier: "equal.json", want: pass},
		{name: "dropped block", task: "T1", source: src, carrier: "dropped_block.json", want: unmet,
			diags: []diag{{"block.count", "missing", "/3"}}},
		{name: "added block", task: "T1", source: src, carrier: "added_block.json", want: unmet,
			diags: []diag{{"block.count", "added", "/4"}}},
		{name: "changed kind", task: "T1", source: src, carrier: "changed_kind.json", want: unmet,
			diags: []diag{{"block.kind", "altered", "/1/kind"}}},
		{name: "changed text", task: "T1", source: src, carrier: "changed_text.json", want: unmet,
			diags: []diag{{"block.primary", "altered", "/0"}}},
		{name: "changed image bytes same base64 length", task: "T1", source: src, carrier: "changed_image_bytes.json", want: unmet,
			diags: []diag{{"block.primary", "altered", "/1"}}},
		// The payload is the bytes, not their spelling: unpadded base64 of the same bytes passes.
		{name: "unpadded base64 same bytes", task: "T1", source: src, carrier: "unpadded_base64.json", want: pass},
		{name: "resource uri changed", task: "T1", source: src, carrier: "changed_resource_uri.json", want: unmet,
			diags: []diag{{"block.primary", "altered", "/2"}}},
		// T1 reads only kind and primary value: descriptors and annotations are T4's.
		{name: "resource link name is not primary", task: "T1", source: src, carrier: "link_name_changed.json", want: pass},
		{name: "annotations are not primary", task: "T1", source: src, carrier: "text_annotated.json", want: pass},
	}
}

// TestTaskT2 covers T2 structured: state, type, exact value and text relation.
func TestTaskT2(t *testing.T) { runTaskCases(t, t2Cases()) }

func t2Cases() []taskCase {
	const (
		state    = "structured.state"
		typ      = "structured.type"
		value    = "structured.value"
		relation = "structured.relation"
	)
	rd := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return []taskCase{
		// Each structured state, passing.
		{name: "state missing", task: "T2", source: "src_missing.json", carrier: "src_missing.json", want: pass,
			readout: rd("state", "missing", "relation", "neither")},
		// A 2026-07-28 result (resultType, structuredContent null): the policy does not look at the revision.
		{name: "state null", task: "T2", source: "src_null.json", carrier: "src_null.json", want: pass,
			readout: rd("state", "null", "type", "null", "relation", "structure_only")},
		{name: "state empty object", task: "T2", source: "src_empty_object.json", carrier: "src_empty_object.json", want: pass,
			readout: rd("state", "empty", "type", "object", "relation", "equivalent")},
		{name: "state empty array", task: "T2", source: "src_empty_array.json", carrier: "src_empty_array.json", want: pass,
			readout: rd("state", "empty", "type", "array", "relation", "equivalent")},
		{name: "state populated", task: "T2", source: "src_populated.json", carrier: "src_populated.json", want: pass,
			readout: rd("state", "populated", "type", "object", "relation", "structure_only")},
		{name: "object key order ignored", task: "T2", source: "src_populated.json", carrier: "key_order_changed.json", want: pass},

		// Each structured state, failing.
		{name: "populated to missing", task: "T2", source: "src_populated.json", carrier: "populated_dropped.json", want: unmet,
			diags:   []diag{{state, "missing", ""}, {relation, "altered", ""}},
			readout: rd("state", "missing", "relation", "neither")},
		{name: "missing to added", task: "T2", source: "src_missing.json", carrier: "missing_added.json", want: unmet,
			diags: []diag{{state, "added", ""}, {relation, "altered", ""}}},
		{name: "populated to null", task: "T2", source: "src_populated.json", carrier: "populated_null.json", want: unmet,
			diags: []diag{{state, "altered", ""}, {typ, "altered", ""}}},
		{name: "null to missing", task: "T2", source: "src_null.json", carrier: "null_dropped.json", want: unmet,
			diags: []diag{{state, "missing", ""}, {relation, "altered", ""}}},
		{name: "empty object to empty array", task: "T2", source: "src_empty_object.json", carrier: "empty_object_to_array.json", want: unmet,
			diags: []diag{{typ, "altered", ""}}},
		{name: "object to string", task: "T2", source: "src_populated.json", carrier: "object_to_string.json", want: unmet,
			diags: []diag{{typ, "altered", ""}}},
		{name: "changed leaf", task: "T2", source: "src_populated.json", carrier: "changed_leaf.json", want: unmet,
			diags: []diag{{value, "altered", "/a/b"}}},
		{name: "key missing", task: "T2", source: "src_populated.json", carrier: "key_missing.json", want: unmet,
			diags: []diag{{value, "missing", "/status"}}},
		// Inside the slot, an explicit null field is a value: absent or 0 instead is unmet under
		// both null policies (the optional-null policy relaxes descriptors and metadata only).
		{name: "explicit null field", task: "T2", source: "src_explicit_null.json", carrier: "src_explicit_null.json", want: pass},
		{name: "explicit null field dropped", task: "T2", source: "src_explicit_null.json", carrier: "explicit_null_dropped.json", want: unmet,
			diags: []diag{{value, "missing", "/reorderPoint"}}},
		{name: "explicit null field to zero", task: "T2", source: "src_explicit_null.json", carrier: "explicit_null_to_zero.json", want: unmet,
			diags: []diag{{value, "altered", "/reorderPoint"}}},
		{name: "key added", task: "T2", source: "src_populated.json", carrier: "key_added.json", want: unmet,
			diags: []diag{{value, "added", "/extra"}}},
		{name: "array reordered", task: "T2", source: "src_populated.json", carrier: "array_reordered.json", want: unmet,
			diags: []diag{{value, "altered", "/tags/0"}, {value, "altered", "/tags/1"}}},
		// Numbers are compared exactly, never through float64 (both round to the same float64).
		{name: "big integer rounded", task: "T2", source: "src_bigint.json", carrier: "bigint_rounded.json", want: unmet,
			diags: []diag{{value, "altered", "/id"}}},
		// 1e2 and 100 are the same decimal: exact comparison equates spellings of one number.
		{name: "exponent respelled", task: "T2", source: "src_exponent.json", carrier: "exponent_respelled.json", want: pass},

		// Each text relation, passing when equal.
		{name: "relation neither", task: "T2", source: "src_missing.json", carrier: "src_missing.json", want: pass,
			readout: rd("relation", "neither")},
		{name: "relation text_only", task: "T2", source: "src_text_only.json", carrier: "src_text_only.json", want: pass,
			readout: rd("state", "missing", "relation", "text_only")},
		{name: "relation structure_only", task: "T2", source: "src_populated.json", carrier: "src_populated.json", want: pass,
			readout: rd("relation", "structure_only")},
		{name: "relation equivalent", task: "T2", source: "src_populated_json.json", carrier: "src_populated_json.json", want: pass,
			readout: rd("state", "populated", "relation", "equivalent")},
		// Whitespace and key order of the JSON text do not matter: it is compared as a value.
		{name: "relation equivalent respaced text", task: "T2", source: "src_populated_json.json", carrier: "equivalent_text_respaced.json", want: pass,
			readout: rd("relation", "equivalent")},
		{name: "relation conflicting", task: "T2", source: "src_conflicting.json", carrier: "src_conflicting.json", want: pass,
			readout: rd("relation", "conflicting")},
		// Prose around JSON is not JSON: the source is structure_only, and stays so.
		{name: "relation prose-wrapped json is not json", task: "T2", source: "src_prose_json.json", carrier: "src_prose_json.json", want: pass,
			readout: rd("relation", "structure_only")},

		// Each text relation, unmet when changed.
		{name: "equivalent to structure_only (json text dropped)", task: "T2", source: "src_populated_json.json", carrier: "equivalent_text_dropped.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "structure_only")},
		{name: "equivalent to conflicting (json text differs)", task: "T2", source: "src_populated_json.json", carrier: "equivalent_text_differs.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "conflicting")},
		// A value that survives only as JSON text does not satisfy T2.
		{name: "value surviving only as json text", task: "T2", source: "src_populated_json.json", carrier: "json_text_only.json", want: unmet,
			diags:   []diag{{state, "missing", ""}, {relation, "altered", ""}},
			readout: rd("state", "missing", "relation", "text_only")},
		{name: "text_only to neither (json wrapped in prose)", task: "T2", source: "src_text_only.json", carrier: "text_only_prose_wrapped.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "neither")},
		{name: "neither to text_only (json text added)", task: "T2", source: "src_missing.json", carrier: "neither_json_text_added.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "text_only")},
		{name: "structure_only to equivalent (json text added)", task: "T2", source: "src_populated.json", carrier: "structure_only_json_text_added.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "equivalent")},
		{name: "conflicting to equivalent", task: "T2", source: "src_conflicting.json", carrier: "conflicting_resolved.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "equivalent")},
		{name: "structure_only to equivalent (prose unwrapped)", task: "T2", source: "src_prose_json.json", carrier: "prose_json_unwrapped.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "equivalent")},

		// Duplicate-key and concatenated JSON are not JSON either.
		{name: "relation duplicate-key json is not json", task: "T2", source: "src_duplicate_key_text.json", carrier: "src_duplicate_key_text.json", want: pass,
			readout: rd("relation", "structure_only")},
		{name: "structure_only to equivalent (duplicate key removed)", task: "T2", source: "src_duplicate_key_text.json", carrier: "prose_json_unwrapped.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}},
		{name: "relation concatenated json is not json", task: "T2", source: "src_concatenated_text.json", carrier: "src_concatenated_text.json", want: pass,
			readout: rd("relation", "structure_only")},
		{name: "structure_only to equivalent (concatenation removed)", task: "T2", source: "src_concatenated_text.json", carrier: "prose_json_unwrapped.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}},
		// Prose text items beside a JSON one do not take part in the relation; every JSON one does.
		{name: "relation equivalent beside prose", task: "T2", source: "src_one_json_one_prose.json", carrier: "src_one_json_one_prose.json", want: pass,
			readout: rd("relation", "equivalent")},
		{name: "equivalent to conflicting (a second json text differs)", task: "T2", source: "src_one_json_one_prose.json", carrier: "two_json_texts_one_differs.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "conflicting")},
		// The JSON text "null" is the null value.
		{name: "relation equivalent null", task: "T2", source: "src_null_json_text.json", carrier: "src_null_json_text.json", want: pass,
			readout: rd("state", "null", "type", "null", "relation", "equivalent")},
		{name: "null equivalent to structure_only", task: "T2", source: "src_null_json_text.json", carrier: "src_null.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}},

		// Exact numbers in the slot and in the JSON text.
		{name: "big integer in json text is exact", task: "T2", source: "src_bigint_json.json", carrier: "src_bigint_json.json", want: pass,
			readout: rd("relation", "equivalent")},
		{name: "big integer rounded in json text", task: "T2", source: "src_bigint_json.json", carrier: "bigint_text_rounded.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "conflicting")},
		{name: "trailing-zero decimals are exact", task: "T2", source: "src_trailing_zeros.json", carrier: "src_trailing_zeros.json", want: pass,
			readout: rd("relation", "equivalent")},
		{name: "trailing-zero decimal rounded in the slot", task: "T2", source: "src_trailing_zeros.json", carrier: "trailing_zeros_rounded.json", want: unmet,
			diags: []diag{{value, "altered", "/ratio"}, {relation, "altered", ""}}, readout: rd("relation", "conflicting")},
		{name: "trailing-zero decimal rounded in json text", task: "T2", source: "src_trailing_zeros.json", carrier: "trailing_zeros_text_rounded.json", want: unmet,
			diags: []diag{{relation, "altered", ""}}, readout: rd("relation", "conflicting")},

		// 2026-07-28 array structuredContent: array order kept.
		{name: "array populated", task: "T2", source: "src_array.json", carrier: "src_array.json", want: pass,
			readout: rd("state", "populated", "type", "array", "relation", "equivalent")},
		{name: "array elements swapped", task: "T2", source: "src_array.json", carrier: "array_elements_swapped.json", want: unmet,
			diags: []diag{{value, "altered", "/0/sku"}, {value, "altered", "/0/onHand"}, {value, "altered", "/1/sku"}, {value, "altered", "/1/onHand"}}},
	}
}

// TestTaskT3 covers T3 error: the continue/abort/unknown decision.
func TestTaskT3(t *testing.T) { runTaskCases(t, t3Cases()) }

func t3Cases() []taskCase {
	decision := func(d string) map[string]any { return map[string]any{"decision": d} }
	altered := []diag{{"error.decision", "altered", "/isError"}}
	return []taskCase{
		{name: "continue", task: "T3", source: "continue.json", carrier: "continue.json", want: pass, readout: decision("continue")},
		{name: "abort", task: "T3", source: "abort.json", carrier: "abort.json", want: pass, readout: decision("abort")},
		{name: "unknown", task: "T3", source: "unknown.json", carrier: "unknown.json", want: pass, readout: decision("unknown")},
		{name: "absent vs null is unknown on both", task: "T3", source: "unknown.json", carrier: "null.json", want: pass, readout: decision("unknown")},
		{name: "false to absent", task: "T3", source: "continue.json", carrier: "unknown.json", want: unmet, diags: altered, readout: decision("unknown")},
		{name: "false to null", task: "T3", source: "continue.json", carrier: "null.json", want: unmet, diags: altered, readout: decision("unknown")},
		{name: "true to absent", task: "T3", source: "abort.json", carrier: "unknown.json", want: unmet, diags: altered, readout: decision("unknown")},
		{name: "true to false", task: "T3", source: "abort.json", carrier: "continue.json", want: unmet, diags: altered, readout: decision("continue")},
		{name: "absent to false", task: "T3", source: "unknown.json", carrier: "continue.json", want: unmet, diags: altered, readout: decision("continue")},
		{name: "null to false", task: "T3", source: "null.json", carrier: "continue.json", want: unmet, diags: altered, readout: decision("continue")},
		{name: "jsonrpc error response", task: "T3", source: "rpc_error.json", carrier: "rpc_error.json", want: pass, readout: decision("abort")},
		{name: "jsonrpc error response to isError true", task: "T3", source: "rpc_error.json", carrier: "abort.json", want: pass, readout: decision("abort")},
		{name: "jsonrpc error response to plain result isError false", task: "T3", source: "rpc_error.json", carrier: "continue.json", want: unmet, diags: altered, readout: decision("continue")},
		{name: "jsonrpc result response unwrapped", task: "T3", source: "rpc_result_continue.json", carrier: "continue.json", want: pass, readout: decision("continue")},
	}
}

// TestTaskT4 covers T4 rich content: every atom of every block, in order, and the null policies.
func TestTaskT4(t *testing.T) { runTaskCases(t, t4Cases()) }

func t4Cases() []taskCase {
	src := "source.json"
	cases := []taskCase{
		{name: "equal", task: "T4", source: src, carrier: src, want: pass},
		{name: "text", task: "T4", source: src, carrier: "text_changed.json", want: unmet,
			diags: []diag{{"block.text", "altered", "/0/text"}}},
		{name: "payload", task: "T4", source: src, carrier: "payload_changed.json", want: unmet,
			diags: []diag{{"block.payload", "altered", "/1/payload"}}},
		// The payload is the bytes: unpadded base64 of the same bytes passes.
		{name: "payload unpadded", task: "T4", source: src, carrier: "payload_unpadded.json", want: pass},
		// The payload is never relaxed: null where bytes were is altered under both null policies.
		{name: "payload null", task: "T4", source: src, carrier: "payload_null.json", want: unmet,
			diags: []diag{{"block.payload", "altered", "/1/payload"}}},
		{name: "mimeType", task: "T4", source: src, carrier: "mimetype_changed.json", want: unmet,
			diags: []diag{{"block.mimeType", "altered", "/1/mimeType"}}},
		{name: "uri", task: "T4", source: src, carrier: "uri_changed.json", want: unmet,
			diags: []diag{{"block.uri", "altered", "/2/uri"}}},
		{name: "name", task: "T4", source: src, carrier: "name_changed.json", want: unmet,
			diags: []diag{{"block.name", "altered", "/3/name"}}},
		{name: "title", task: "T4", source: src, carrier: "title_changed.json", want: unmet,
			diags: []diag{{"block.title", "altered", "/3/title"}}},
		// A populated optional descriptor is never relaxed: dropping it is unmet under both.
		{name: "title dropped", task: "T4", source: src, carrier: "title_dropped.json", want: unmet,
			diags: []diag{{"block.title", "missing", "/3/title"}}},
		{name: "description", task: "T4", source: src, carrier: "description_changed.json", want: unmet,
			diags: []diag{{"block.description", "altered", "/3/description"}}},
		{name: "size", task: "T4", source: src, carrier: "size_changed.json", want: unmet,
			diags: []diag{{"block.size", "altered", "/3/size"}}},
		{name: "icons", task: "T4", source: src, carrier: "icons_changed.json", want: unmet,
			diags: []diag{{"block.icons", "altered", "/3/icons/0/sizes/0"}}},
		{name: "icons dropped", task: "T4", source: src, carrier: "icons_dropped.json", want: unmet,
			diags: []diag{{"block.icons", "missing", "/3/icons"}}},
		{name: "annotations nested member", task: "T4", source: src, carrier: "annotations_priority_changed.json", want: unmet,
			diags: []diag{{"block.annotations", "altered", "/0/annotations/priority"}}},
		{name: "annotations dropped", task: "T4", source: src, carrier: "annotations_dropped.json", want: unmet,
			diags: []diag{{"block.annotations", "missing", "/0/annotations"}}},
		// The _meta key "com.example/trace" is escaped in the pointer (RFC 6901).
		{name: "block _meta", task: "T4", source: src, carrier: "block_meta_changed.json", want: unmet,
			diags: []diag{{"block._meta", "altered", "/0/_meta/com.example~1trace"}}},
		{name: "resourceMeta dropped", task: "T4", source: src, carrier: "resource_meta_dropped.json", want: unmet,
			diags: []diag{{"block.resourceMeta", "missing", "/2/resourceMeta"}}},
		{name: "kind", task: "T4", source: src, carrier: "kind_changed.json", want: unmet,
			diags: []diag{{"block.kind", "altered", "/1/kind"}}},
		{name: "count missing", task: "T4", source: src, carrier: "count_missing.json", want: unmet,
			diags: []diag{{"block.count", "missing", "/3"}}},
		{name: "count added", task: "T4", source: src, carrier: "count_added.json", want: unmet,
			diags: []diag{{"block.count", "added", "/4"}}},
		{name: "order equal", task: "T4", source: "order_source.json", carrier: "order_source.json", want: pass},
		{name: "order two blocks swapped", task: "T4", source: "order_source.json", carrier: "order_blocks_swapped.json", want: unmet,
			diags: []diag{{"block.text", "altered", "/0/text"}, {"block.text", "altered", "/1/text"}}},
		// The study's blind spot: URIs and order intact, the embedded resources' texts swapped.
		{name: "order embedded resource texts swapped", task: "T4", source: "order_source.json", carrier: "order_resource_texts_swapped.json", want: unmet,
			diags: []diag{{"block.text", "altered", "/2/text"}, {"block.text", "altered", "/3/text"}}},
		// A non-optional atom is never relaxed: absent vs null is unmet under both null policies.
		{name: "absent mimeType vs null", task: "T4", source: "link_source.json", carrier: "link_mimetype_null.json", want: unmet,
			diags: []diag{{"block.mimeType", "added", "/0/mimeType"}}},
		// A populated value is never relaxed: "a" vs null is unmet under both null policies.
		{name: "populated title vs null", task: "T4", source: "link_titled_source.json", carrier: "link_title_null.json", want: unmet,
			diags: []diag{{"block.title", "altered", "/0/title"}}},
		// (A data-URL carrier cannot occur in the MCP binding of the direct lane: not covered here.)
	}
	// An absent optional descriptor vs null: relaxed under optional-null only.
	cases = append(cases,
		under(optionalNull, taskCase{name: "absent title vs null", task: "T4", source: "link_source.json", carrier: "link_title_null.json", want: pass}),
		under(strict, taskCase{name: "absent title vs null", task: "T4", source: "link_source.json", carrier: "link_title_null.json", want: unmet,
			diags: []diag{{"block.title", "added", "/0/title"}}}),
		under(optionalNull, taskCase{name: "absent optional atoms vs null", task: "T4", source: "link_source.json", carrier: "link_optional_null.json", want: pass}),
		under(strict, taskCase{name: "absent optional atoms vs null", task: "T4", source: "link_source.json", carrier: "link_optional_null.json", want: unmet,
			diags: []diag{
				{"block.title", "added", "/0/title"},
				{"block.description", "added", "/0/description"},
				{"block.size", "added", "/0/size"},
				{"block.icons", "added", "/0/icons"},
				{"block.annotations", "added", "/0/annotations"},
				{"block._meta", "added", "/0/_meta"},
			}}),
		// Symmetric: null on the source side, absent on the observed side.
		under(optionalNull, taskCase{name: "null title vs absent", task: "T4", source: "link_title_null.json", carrier: "link_source.json", want: pass}),
		under(strict, taskCase{name: "null title vs absent", task: "T4", source: "link_title_null.json", carrier: "link_source.json", want: unmet,
			diags: []diag{{"block.title", "missing", "/0/title"}}}),
	)
	return cases
}

// TestTaskT5 covers T5 result metadata: preserve under both null policies, and withhold.
func TestTaskT5(t *testing.T) { runTaskCases(t, t5Cases()) }

func t5Cases() []taskCase {
	const atom = "result._meta"
	src := "source.json"
	private := contract.Fixture{Family: "meta", PrivateMeta: []string{"com.example/session-token"}}
	cases := []taskCase{
		{name: "preserve equal", task: "T5", source: src, carrier: src, want: pass},
		{name: "preserve changed value", task: "T5", source: src, carrier: "value_changed.json", want: unmet,
			diags: []diag{{atom, "altered", "/com.example~1request-id"}}},
		// Dropping a populated _meta is unmet under both null policies: populated values are never relaxed.
		{name: "preserve dropped", task: "T5", source: src, carrier: "meta_dropped.json", want: unmet,
			diags: []diag{{atom, "missing", ""}}},
		{name: "preserve populated to null", task: "T5", source: src, carrier: "meta_null.json", want: unmet,
			diags: []diag{{atom, "altered", ""}}},
		{name: "preserve absent", task: "T5", source: "meta_dropped.json", carrier: "meta_dropped.json", want: pass},
		{name: "preserve empty", task: "T5", source: "meta_empty.json", carrier: "meta_empty.json", want: pass},
		// An empty {} is not null: absent vs {} is unmet under both null policies.
		{name: "absent to empty", task: "T5", source: "meta_dropped.json", carrier: "meta_empty.json", want: unmet,
			diags: []diag{{atom, "added", ""}}},
		{name: "empty to absent", task: "T5", source: "meta_empty.json", carrier: "meta_dropped.json", want: unmet,
			diags: []diag{{atom, "missing", ""}}},
	}
	cases = append(cases,
		// Absent vs null: relaxed under optional-null only, on either side.
		under(optionalNull, taskCase{name: "absent to null", task: "T5", source: "meta_dropped.json", carrier: "meta_null.json", want: pass}),
		under(strict, taskCase{name: "absent to null", task: "T5", source: "meta_dropped.json", carrier: "meta_null.json", want: unmet,
			diags: []diag{{atom, "added", ""}}}),
		under(optionalNull, taskCase{name: "null to absent", task: "T5", source: "meta_null.json", carrier: "meta_dropped.json", want: pass}),
		under(strict, taskCase{name: "null to absent", task: "T5", source: "meta_null.json", carrier: "meta_dropped.json", want: unmet,
			diags: []diag{{atom, "missing", ""}}}),

		// withhold-private-meta: the private key must not reach M3 (or H4); D1 preserves.
		taskCase{name: "withhold private key present at M3", task: "T5", profile: withholdMeta, stage: "M3", fixture: private,
			source: src, carrier: src, want: unmet, diags: []diag{{atom, "added", "/com.example~1session-token"}}},
		taskCase{name: "withhold private key present at H4", task: "T5", profile: withholdMeta, stage: "H4", fixture: private,
			source: src, carrier: src, want: unmet, diags: []diag{{atom, "added", "/com.example~1session-token"}}},
		taskCase{name: "withhold private key removed at M3", task: "T5", profile: withholdMeta, stage: "M3", fixture: private,
			source: src, carrier: "private_key_removed.json", want: pass},
		taskCase{name: "withhold whole meta removed at M3", task: "T5", profile: withholdMeta, stage: "M3", fixture: private,
			source: src, carrier: "meta_dropped.json", want: pass},
		taskCase{name: "preserve at D1 equal", task: "T5", profile: withholdMeta, stage: "D1", fixture: private,
			source: src, carrier: src, want: pass},
		taskCase{name: "preserve at D1 private key removed", task: "T5", profile: withholdMeta, stage: "D1", fixture: private,
			source: src, carrier: "private_key_removed.json", want: unmet, diags: []diag{{atom, "missing", "/com.example~1session-token"}}},
		// A fixture without private keys is preserved even at a withheld stage.
		taskCase{name: "no private keys preserve at M3", task: "T5", profile: withholdMeta, stage: "M3",
			source: src, carrier: "private_key_removed.json", want: unmet, diags: []diag{{atom, "missing", "/com.example~1session-token"}}},
	)
	return cases
}

// TestTaskTestdataUsed keeps testdata/tasks exact: every document is strict JSON, every case's
// documents exist, and no document is left that no case reads.
func TestTaskTestdataUsed(t *testing.T) {
	used := map[string]bool{}
	for _, cases := range [][]taskCase{t1Cases(), t2Cases(), t3Cases(), t4Cases(), t5Cases()} {
		for _, c := range cases {
			dir := filepath.Join("testdata", "tasks", strings.ToLower(c.task))
			used[filepath.Join(dir, c.source)] = true
			used[filepath.Join(dir, c.carrier)] = true
		}
	}
	onDisk := map[string]bool{}
	err := filepath.WalkDir(filepath.Join("testdata", "tasks"), func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		onDisk[p] = true
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if _, err := strictjson.Decode(p, data, strictjson.DefaultLimits); err != nil {
			t.Errorf("%v", err)
		}
		if !used[p] {
			t.Errorf("%s: no case reads it", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range used {
		if !onDisk[p] {
			t.Errorf("%s: a case reads it but it does not exist", p)
		}
	}
}
