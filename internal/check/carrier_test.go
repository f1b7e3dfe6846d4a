package check

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// These tests hold the rule that no captured carrier is read without being checked first: every
// observed stage names the JSON Schema of its carrier (schemas/carriers/), and a record whose
// carrier is not that framework's object is an input error (exit 2) at the record's file:line and
// the JSON pointer of the offending value, never a set of task verdicts read off the wrong shape.

// TestEveryObservedStageNamesACarrierSchema asserts that each stage of each built-in lane that can
// hold captured records names a carrier schema, and that the schema compiles.
func TestEveryObservedStageNamesACarrierSchema(t *testing.T) {
	in := loadInstrument(t, strict)
	observed := 0
	for _, lane := range contract.SortedKeys(in.Model.Lanes) {
		for _, st := range contract.SortedKeys(in.Model.Lanes[lane].Stages) {
			sd := in.Model.Lanes[lane].Stages[st]
			if sd.Exposure != contract.Observed {
				continue
			}
			observed++
			if sd.Carrier == "" {
				t.Errorf("lanes.%s.stages.%s is observed but names no carrier schema", lane, st)
				continue
			}
			if err := in.Validator.CompileCarrier(sd.Carrier); err != nil {
				t.Errorf("lanes.%s.stages.%s.carrier: %v", lane, st, err)
			}
		}
	}
	if observed == 0 {
		t.Fatal("the built-in model has no observed stage")
	}
}

// builtinRecord returns the first captured record of a lane version's built-in observations at a
// stage whose carrier has a value at the JSON pointer at ("" for any carrier): the line as written
// and the line decoded as the checker decodes it.
func builtinRecord(t *testing.T, lane, version, stage, at string) (string, map[string]any) {
	t.Helper()
	file := "fixtures/observations/" + lane + "/" + version + "/default.jsonl"
	data, err := fs.ReadFile(contractcheck.Builtin, file)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		doc, err := strictjson.Decode(file+":"+strconv.Itoa(i+1), []byte(line), strictjson.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		rec := doc.(map[string]any)
		if rec["stage"] != stage || rec["state"] != "captured" {
			continue
		}
		if _, ok := lookup(rec["carrier"], at); ok {
			return line, rec
		}
	}
	t.Fatalf("%s has no captured %s record with a value at %q", file, stage, at)
	return "", nil
}

// lookup resolves a JSON pointer in a decoded tree.
func lookup(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		switch n := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = n[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			v = n[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// set replaces (or, in an object, adds) the value at a JSON pointer whose parent exists.
func set(t *testing.T, root any, ptr string, value any) {
	t.Helper()
	i := strings.LastIndex(ptr, "/")
	parent, ok := lookup(root, ptr[:i])
	if !ok {
		t.Fatalf("no value at %q", ptr[:i])
	}
	switch p := parent.(type) {
	case map[string]any:
		p[ptr[i+1:]] = value
	case []any:
		n, err := strconv.Atoi(ptr[i+1:])
		if err != nil || n < 0 || n >= len(p) {
			t.Fatalf("no element %q", ptr)
		}
		p[n] = value
	default:
		t.Fatalf("%q is not in an object or array", ptr)
	}
}

// TestUnrelatedCarrierIsAnInputError puts a carrier that belongs to no framework,
// {"completely":"unrelated"}, in a second repetition of a valid record of each stage that issue #10
// found without a carrier schema, and checks the directory: the check must stop with an input error
// naming the file, the record's line and a pointer into its carrier. Without the schemas these
// records were read through the stage's bindings and gave verdicts.
func TestUnrelatedCarrierIsAnInputError(t *testing.T) {
	in := loadInstrument(t, strict)
	tests := []struct {
		name, lane, version, stage string
	}{
		{name: "adk-go A2", lane: "adk-go", version: "v1.7.0", stage: "A2"},
		{name: "adk-go M3", lane: "adk-go", version: "v1.7.0", stage: "M3"},
		{name: "adk-go H4", lane: "adk-go", version: "v1.0.0", stage: "H4"},
		{name: "genkit-go A2", lane: "genkit-go", version: "v1.4.0", stage: "A2"},
		{name: "genkit-go M3", lane: "genkit-go", version: "v1.4.0", stage: "M3"},
		{name: "genkit-go H4", lane: "genkit-go", version: "v1.4.0", stage: "H4"},
		{name: "go-sdk D1", lane: "go-sdk", version: "v1.8.0", stage: "D1"},
		{name: "mcp-go D1", lane: "mcp-go", version: "v1.2.1", stage: "D1"},
		{name: "direct D1", lane: "direct", version: "v1", stage: "D1"},
		{name: "direct A2", lane: "direct", version: "v1", stage: "A2"},
		{name: "direct M3", lane: "direct", version: "v1", stage: "M3"},
		{name: "direct H4", lane: "direct", version: "v1", stage: "H4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, _ := builtinRecord(t, tc.lane, tc.version, tc.stage, "")
			var rec map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			// Repetition 2 of the same record, so that only its carrier can make it wrong.
			rec["repetition"] = json.RawMessage(`2`)
			rec["carrier"] = json.RawMessage(`{"completely":"unrelated"}`)
			bad, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			d := inputs.Dir{FS: fstest.MapFS{"obs/x.jsonl": {Data: []byte(line + "\n" + string(bad) + "\n")}}, Root: "obs", Display: "obs"}
			files, err := inputs.RecordFiles(d)
			if err != nil {
				t.Fatal(err)
			}
			_, err = RunWith(context.Background(), in, files, 2)
			var ie *result.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an input error", err)
			}
			var ve *schema.ValidationError
			if !errors.As(err, &ve) || ve.File != "obs/x.jsonl" || ve.Line != 2 || !strings.HasPrefix(ve.Pointer, "/carrier") {
				t.Fatalf("got %v, want a carrier schema violation at obs/x.jsonl:2 /carrier…", err)
			}
			if !strings.HasPrefix(err.Error(), "obs/x.jsonl:2: /carrier") {
				t.Errorf("message %q does not start with file:line and the pointer", err)
			}
		})
	}
}

// TestCarrierSchemasFollowTheFramework changes one member of a real captured carrier the way the
// framework's own type never would, and requires the record to be refused at that member: the
// schemas are closed where the framework's types are, so a carrier that drifted is not read.
func TestCarrierSchemasFollowTheFramework(t *testing.T) {
	in := loadInstrument(t, strict)
	tests := []struct {
		name, lane, version, stage string
		has                        string // a pointer the chosen record's carrier must resolve
		at                         string // JSON pointer into the carrier
		value                      string // JSON to put there
		want                       string // pointer of the reported violation
	}{
		{name: "direct: content that is not a list", lane: "direct", version: "v1", stage: "M3",
			has: "/content", at: "/content", value: `"text"`, want: "/carrier/content"},
		{name: "go-sdk: omitempty never writes isError false", lane: "go-sdk", version: "v1.8.0", stage: "D1",
			at: "/isError", value: `false`, want: "/carrier/isError"},
		{name: "go-sdk: image data is re-encoded as padded base64", lane: "go-sdk", version: "v1.8.0", stage: "D1",
			has: "/content/0/data", at: "/content/0/data", value: `"abc"`, want: "/carrier/content/0/data"},
		{name: "mcp-go: a block type a CallToolResult cannot hold", lane: "mcp-go", version: "v1.2.1", stage: "D1",
			has: "/content/0", at: "/content/0/type", value: `"tool_use"`, want: "/carrier/content/0/type"},
		{name: "adk-go: Run never returns a null output", lane: "adk-go", version: "v1.7.0", stage: "A2",
			has: "/result/output", at: "/result/output", value: `null`, want: "/carrier/result/output"},
		{name: "adk-go: the response map has one key", lane: "adk-go", version: "v1.0.0", stage: "M3",
			has: "/response/output", at: "/response/extra", value: `1`, want: "/carrier/response"},
		{name: "adk-go: the function response is a user content", lane: "adk-go", version: "v1.7.0", stage: "H4",
			has: "/contents/2", at: "/contents/2/role", value: `"tool"`, want: "/carrier/contents/2/role"},
		{name: "genkit-go: mcp-go v0.29.0 has no structuredContent", lane: "genkit-go", version: "v1.4.0", stage: "A2",
			at: "/structuredContent", value: `{}`, want: "/carrier"},
		{name: "genkit-go: ParseContent knows no resource_link", lane: "genkit-go", version: "v1.4.0", stage: "M3",
			has: "/content/0/toolResponse/output/content/0", at: "/content/0/toolResponse/output/content/0/type", value: `"resource_link"`, want: "/carrier/content/0/toolResponse/output/content/0/type"},
		{name: "genkit-go: the tool message keeps its role", lane: "genkit-go", version: "v1.4.0", stage: "H4",
			has: "/contents/2", at: "/contents/2/role", value: `"user"`, want: "/carrier/contents/2/role"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rec := builtinRecord(t, tc.lane, tc.version, tc.stage, tc.has)
			if _, err := in.ParseRecord("x.jsonl", 7, rec); err != nil {
				t.Fatalf("the record as captured is refused: %v", err)
			}
			value, err := strictjson.Decode("value", []byte(tc.value), strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			set(t, rec["carrier"], tc.at, value)
			_, err = in.ParseRecord("x.jsonl", 7, rec)
			var ve *schema.ValidationError
			if !errors.As(err, &ve) || ve.File != "x.jsonl" || ve.Line != 7 || ve.Pointer != tc.want {
				t.Fatalf("got %v, want a carrier schema violation at x.jsonl:7 %s", err, tc.want)
			}
		})
	}
}
