package schema

import (
	"encoding/json"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// userSchema is 2025-11-25's schema with CallToolResult also requiring structuredContent: a draft
// a user might try.
func userSchema(t *testing.T, edit func(string) string) []byte {
	t.Helper()
	data, err := os.ReadFile(schemasDir + "/mcp/2025-11-25/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if edit != nil {
		s = edit(s)
	}
	return []byte(s)
}

// requireStructured makes CallToolResult require structuredContent.
func requireStructured(s string) string {
	const from = `"required": [
                "content"
            ],
            "type": "object"
        },
        "CancelTaskRequest"`
	if !strings.Contains(s, from) {
		panic("2025-11-25's CallToolResult is not written as the test expects")
	}
	return strings.Replace(s, from, `"required": [
                "content",
                "structuredContent"
            ],
            "type": "object"
        },
        "CancelTaskRequest"`, 1)
}

// TestRevisionLayers: the revisions a validator knows are those its schema layers hold, in order;
// a user layer adds revisions with a descriptor or by convention, and is refused, naming the
// files, when it would silently replace one or names a revision badly.
func TestRevisionLayers(t *testing.T) {
	base := os.DirFS(schemasDir)
	draft := userSchema(t, requireStructured)
	plain := userSchema(t, nil)
	tests := []struct {
		name    string
		layers  []fstest.MapFS
		want    []string // the revisions, in order
		wantErr string
	}{
		{name: "none", want: pinned},
		{name: "a draft and a date", layers: []fstest.MapFS{{
			"mcp/DRAFT-2026-v10/schema.json": {Data: plain},
			"mcp/DRAFT-2026-v2/schema.json":  {Data: draft},
			"mcp/2027-01-01/schema.json":     {Data: plain},
			"mcp/README.md":                  {Data: []byte("not a revision")},
		}}, want: append(slices.Clone(pinned), "2027-01-01", "DRAFT-2026-v2", "DRAFT-2026-v10")},
		{name: "dated drafts and draft names", layers: []fstest.MapFS{{
			"mcp/2026-12-01-draft/schema.json": {Data: plain},
			"mcp/2026-12-01-rc.10/schema.json": {Data: plain},
			"mcp/2026-12-01-rc.2/schema.json":  {Data: plain},
			"mcp/2026-12-01/schema.json":       {Data: plain},
			"mcp/2026-01-15-draft/schema.json": {Data: plain},
			"mcp/DRAFT-2026-12-01/schema.json": {Data: plain},
		}}, want: []string{"2025-06-18", "2025-11-25", "2026-01-15-draft", "2026-07-28", "2026-12-01-draft", "2026-12-01-rc.2", "2026-12-01-rc.10", "2026-12-01", "DRAFT-2026-12-01"}},
		{name: "not a date", layers: []fstest.MapFS{{"mcp/2026-99-99/schema.json": {Data: plain}}},
			wantErr: `my/mcp/2026-99-99: not an MCP revision name: "2026-99-99" is not a calendar date: want a date YYYY-MM-DD (2026-07-28), a date with a suffix`},
		{name: "a suffixed date that is no date", layers: []fstest.MapFS{{"mcp/2026-02-30-draft/schema.json": {Data: plain}}},
			wantErr: `my/mcp/2026-02-30-draft: not an MCP revision name: "2026-02-30" is not a calendar date`},
		{name: "an empty suffix", layers: []fstest.MapFS{{"mcp/2026-12-01-/schema.json": {Data: plain}}},
			wantErr: `my/mcp/2026-12-01-: not an MCP revision name: "2026-12-01-" is none of these: want a date YYYY-MM-DD`},
		{name: "a lower-case draft prefix", layers: []fstest.MapFS{{"mcp/draft-2026/schema.json": {Data: plain}}},
			wantErr: `my/mcp/draft-2026: not an MCP revision name: "draft-2026" is none of these: want a date YYYY-MM-DD (2026-07-28), a date with a suffix YYYY-MM-DD-<suffix> (2026-12-01-draft), or DRAFT-<name> (DRAFT-2026-12-01)`},
		{name: "too long", layers: []fstest.MapFS{{"mcp/2026-12-01-" + strings.Repeat("x", 60) + "/schema.json": {Data: plain}}},
			wantErr: "not an MCP revision name: longer than 64 characters: want a date"},
		{name: "not a revision name", layers: []fstest.MapFS{{"mcp/latest/schema.json": {Data: plain}}},
			wantErr: `my/mcp/latest: not an MCP revision name: "latest" is none of these: want a date YYYY-MM-DD`},
		{name: "no schema", layers: []fstest.MapFS{{"mcp/DRAFT-x/revision.json": {Data: []byte(`{}`)}}},
			wantErr: "my/mcp/DRAFT-x: a revision directory holds its schema.json, and this one has none"},
		{name: "replaces a built-in revision", layers: []fstest.MapFS{{"mcp/2025-11-25/schema.json": {Data: draft}}},
			wantErr: "my/mcp/2025-11-25/schema.json: MCP revision 2025-11-25 is already defined by an earlier schema layer at builtin:schemas/mcp/2025-11-25/schema.json"},
		{name: "a copy of a built-in revision", layers: []fstest.MapFS{{"mcp/2025-11-25/schema.json": {Data: plain}}}, want: pinned},
		{name: "a copy with a descriptor of its own", layers: []fstest.MapFS{{
			"mcp/2025-11-25/schema.json":   {Data: plain},
			"mcp/2025-11-25/revision.json": {Data: []byte(`{"result": "#/$defs/CallToolResult"}`)},
		}}, wantErr: "my/mcp/2025-11-25/schema.json: MCP revision 2025-11-25 is already defined"},
		{name: "replaces a built-in revision on purpose", layers: []fstest.MapFS{{
			"mcp/2025-11-25/schema.json":   {Data: draft},
			"mcp/2025-11-25/revision.json": {Data: []byte(`{"replace": true}`)},
		}}, want: pinned},
		{name: "replaces nothing", layers: []fstest.MapFS{{
			"mcp/DRAFT-x/schema.json":   {Data: draft},
			"mcp/DRAFT-x/revision.json": {Data: []byte(`{"replace": true}`)},
		}}, wantErr: "my/mcp/DRAFT-x/revision.json: /replace: no earlier schema layer holds revision DRAFT-x"},
		{name: "two layers, one revision", layers: []fstest.MapFS{
			{"mcp/DRAFT-x/schema.json": {Data: plain}},
			{"mcp/DRAFT-x/schema.json": {Data: draft}},
		}, wantErr: "my2/mcp/DRAFT-x/schema.json: MCP revision DRAFT-x is already defined by an earlier schema layer at my/mcp/DRAFT-x/schema.json"},
		{name: "descriptor member unknown", layers: []fstest.MapFS{{
			"mcp/DRAFT-x/schema.json":   {Data: plain},
			"mcp/DRAFT-x/revision.json": {Data: []byte(`{"results": "#/$defs/CallToolResult"}`)},
		}}, wantErr: "my/mcp/DRAFT-x/revision.json: /results: unknown member"},
		{name: "descriptor names nothing", layers: []fstest.MapFS{{
			"mcp/DRAFT-x/schema.json":   {Data: plain},
			"mcp/DRAFT-x/revision.json": {Data: []byte(`{"result": "#/$defs/ToolResult"}`)},
		}}, wantErr: "my/mcp/DRAFT-x/revision.json: /result: #/$defs/ToolResult names nothing in my/mcp/DRAFT-x/schema.json"},
		{name: "descriptor not a fragment", layers: []fstest.MapFS{{
			"mcp/DRAFT-x/schema.json":   {Data: plain},
			"mcp/DRAFT-x/revision.json": {Data: []byte(`{"result": "CallToolResult"}`)},
		}}, wantErr: "my/mcp/DRAFT-x/revision.json: /result: want a fragment"},
		{name: "no result definition", layers: []fstest.MapFS{{
			"mcp/DRAFT-x/schema.json": {Data: []byte(`{"$defs": {"JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)},
		}}, wantErr: `my/mcp/DRAFT-x/schema.json: no definition CallToolResult in "$defs": name the one to validate a result against in mcp/<revision>/revision.json`},
		{name: "two revisions, one $id", layers: []fstest.MapFS{{
			"mcp/DRAFT-a/schema.json": {Data: []byte(`{"$id": "urn:x:draft", "$defs": {"CallToolResult": {}, "JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)},
			"mcp/DRAFT-b/schema.json": {Data: []byte(`{"$id": "urn:x:draft", "$defs": {"CallToolResult": {}, "JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)},
		}}, wantErr: `my/mcp/DRAFT-b/schema.json: /$id: "urn:x:draft" is also the $id of my/mcp/DRAFT-a/schema.json`},
		{name: "one revision reaches another by its $id", layers: []fstest.MapFS{{
			"mcp/DRAFT-a/schema.json": {Data: []byte(`{"$id": "urn:x:a", "$defs": {"CallToolResult": {"$ref": "../2025-11-25/schema.json#/$defs/CallToolResult"}, "JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)},
			"mcp/DRAFT-b/schema.json": {Data: []byte(`{"$id": "urn:x:b", "$defs": {"CallToolResult": {"$ref": "urn:x:a#/$defs/CallToolResult"}, "JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)},
		}}, want: append(slices.Clone(pinned), "DRAFT-a", "DRAFT-b")},
		{name: "a reference to nothing is the schema's error, at load", layers: []fstest.MapFS{{
			"mcp/DRAFT-a/schema.json": {Data: []byte(`{"$id": "urn:x:a", "$defs": {"CallToolResult": {"$ref": "../2025-11-25/schema.json#/$defs/NoSuchResult"}, "JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)},
		}}, wantErr: `my/mcp/DRAFT-a/schema.json: schema: compiling mcp/DRAFT-a/schema.json#/$defs/CallToolResult: `},
		{name: "schema not JSON", layers: []fstest.MapFS{{"mcp/DRAFT-x/schema.json": {Data: []byte("{\n  \"$defs\": {},\n  \"$defs\": {}\n}")}}},
			wantErr: "my/mcp/DRAFT-x/schema.json:3:3: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var users []layer.Dir
			for i, l := range tc.layers {
				name := "my"
				if i > 0 {
					name += string(rune('1' + i))
				}
				users = append(users, layer.FS(l, ".", name))
			}
			v, err := NewLayered(base, users)
			if testkit.ErrCase(t, err, tc.wantErr) {
				return
			}
			if got := v.Revisions(); !slices.Equal(got, tc.want) {
				t.Errorf("Revisions() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUserRevisionValidates: a source is validated against a user revision's schema, through the
// definition its descriptor names or the convention's, and a replaced built-in revision is no
// longer the built-in schema.
func TestUserRevisionValidates(t *testing.T) {
	draft := userSchema(t, requireStructured)
	named := userSchema(t, func(s string) string {
		return strings.Replace(requireStructured(s), `"CallToolResult": {`, `"StrictToolResult": {`, 1)
	})
	user := fstest.MapFS{
		"mcp/DRAFT-2026-v1/schema.json":   {Data: draft},
		"mcp/DRAFT-named/schema.json":     {Data: named},
		"mcp/DRAFT-named/revision.json":   {Data: []byte(`{"result": "#/$defs/StrictToolResult"}`)},
		"mcp/2025-11-25/schema.json":      {Data: draft},
		"mcp/2025-11-25/revision.json":    {Data: []byte(`{"replace": true}`)},
		"mcp/DRAFT-2026-v1/examples/x.md": {Data: []byte("not read")},
	}
	v, err := NewLayered(os.DirFS(schemasDir), []layer.Dir{layer.FS(user, ".", "my")})
	if err != nil {
		t.Fatal(err)
	}
	text, err := strictjson.Decode("text.json", []byte(`{"content": [{"type": "text", "text": "hi"}]}`), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, revision, wantErr string
	}{
		{name: "built-in", revision: "2025-06-18"},
		{name: "draft by convention", revision: "DRAFT-2026-v1", wantErr: "text.json: "},
		{name: "draft by descriptor", revision: "DRAFT-named", wantErr: "text.json: "},
		{name: "replaced", revision: "2025-11-25", wantErr: "text.json: "},
		{name: "unknown", revision: "DRAFT-nope", wantErr: `text.json: unknown MCP revision "DRAFT-nope": no schema layer holds mcp/DRAFT-nope/schema.json (known: 2025-06-18, 2025-11-25, 2026-07-28, DRAFT-2026-v1, DRAFT-named; `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.ValidateSource("text.json", tc.revision, text)
			if !testkit.ErrPrefixCase(t, err, tc.wantErr) {
				return
			}
			if tc.revision != "DRAFT-nope" && !strings.Contains(err.Error(), "structuredContent") {
				t.Errorf("ValidateSource: %v, want it to name structuredContent", err)
			}
		})
	}
	r, _ := v.Revision("2025-11-25")
	if r.Builtin || v.BuiltinSchema("2025-11-25") || r.Replaces != "builtin:schemas/mcp/2025-11-25/schema.json" || r.File != "my/mcp/2025-11-25/schema.json" {
		t.Errorf("Revision(2025-11-25) = %+v, want my layer's replacing the built-in", r)
	}
	if !v.BuiltinSchema("2026-07-28") {
		t.Error("BuiltinSchema(2026-07-28) is false")
	}
}

// TestHostileRevisionNames: a revision directory named by a hostile string is refused as not a
// revision name, and a descriptor member named by one as unknown, each with the name as it is
// (the sinks escape it): no panic, and never taken as a revision.
func TestHostileRevisionNames(t *testing.T) {
	plain := userSchema(t, nil)
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			name := "DRAFT-" + c.S
			if !fs.ValidPath("mcp/"+name) || strings.Contains(name, "/") {
				t.Skip("not a directory name")
			}
			user := fstest.MapFS{"mcp/" + name + "/schema.json": {Data: plain}}
			_, err := NewLayered(os.DirFS(schemasDir), []layer.Dir{layer.FS(user, ".", "my")})
			if err == nil || !strings.Contains(err.Error(), "not an MCP revision name") {
				t.Errorf("NewLayered: %v, want the name refused", err)
			}
			member, _ := json.Marshal(c.S)
			user = fstest.MapFS{"mcp/DRAFT-x/schema.json": {Data: plain}, "mcp/DRAFT-x/revision.json": {Data: []byte(`{` + string(member) + `: true}`)}}
			_, err = NewLayered(os.DirFS(schemasDir), []layer.Dir{layer.FS(user, ".", "my")})
			if err == nil || (!strings.Contains(err.Error(), "unknown member") && !strings.Contains(err.Error(), "my/mcp/DRAFT-x/revision.json")) {
				t.Errorf("NewLayered: %v, want the member refused", err)
			}
		})
	}
}

// TestCompareRevisions: the order of revision names is total and deterministic, dated drafts
// before their date, DRAFT- names after every dated name; IsDraft says which names are drafts.
func TestCompareRevisions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		a, b     string
		want     int
		aIsDraft bool
	}{
		{name: "two dates", a: "2025-11-25", b: "2026-07-28", want: -1},
		{name: "a dated draft after an earlier date", a: "2026-12-01-draft", b: "2026-07-28", want: 1, aIsDraft: true},
		{name: "a dated draft before its date", a: "2026-12-01-draft", b: "2026-12-01", want: -1, aIsDraft: true},
		{name: "a dated draft before a later date", a: "2026-12-01-draft", b: "2027-01-01", want: -1, aIsDraft: true},
		{name: "suffixes in natural order", a: "2026-12-01-rc.2", b: "2026-12-01-rc.10", want: -1, aIsDraft: true},
		{name: "a draft name after every date", a: "DRAFT-2026-12-01", b: "2099-01-01-draft", want: 1, aIsDraft: true},
		{name: "draft names in natural order", a: "DRAFT-2026-v2", b: "DRAFT-2026-v10", want: -1, aIsDraft: true},
		{name: "the same", a: "2026-12-01-draft", b: "2026-12-01-draft", want: 0, aIsDraft: true},
		{name: "a date is released", a: "2026-12-01", b: "2026-12-01-draft", want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CompareRevisions(tc.a, tc.b); got != tc.want {
				t.Errorf("CompareRevisions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
			if got := CompareRevisions(tc.b, tc.a); got != -tc.want {
				t.Errorf("CompareRevisions(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
			}
			if got := IsDraft(tc.a); got != tc.aIsDraft {
				t.Errorf("IsDraft(%q) = %v, want %v", tc.a, got, tc.aIsDraft)
			}
		})
	}
}

// TestRevisionID: a user revision's schema whose root "$id" is a urn (testdata/layer-id) is read
// under its own place in the schema layers: its relative $refs reach the other revisions, a $ref
// naming its $id reaches itself, and bare results and JSON-RPC envelopes validate (or fail at
// the source's pointer), never "reference cycle" or a failed load.
func TestRevisionID(t *testing.T) {
	v, err := NewLayered(os.DirFS(schemasDir), []layer.Dir{layer.FS(os.DirFS("testdata/layer-id"), ".", "layer-id")})
	if err != nil {
		t.Fatal(err)
	}
	const rev = "DRAFT-2026-12-01"
	outputs := `{"outputs": [{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "12 items"}]}, {"audience": "programmatic", "format": "structured", "structuredContent": {"count": 12}}]}`
	for _, tc := range []struct {
		name, doc, wantErr string
	}{
		{name: "a bare result", doc: outputs},
		{name: "a result response", doc: `{"jsonrpc": "2.0", "id": 1, "result": ` + outputs + `}`},
		{name: "an error response", doc: `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "unknown tool"}}`},
		{name: "a content block of another revision, checked", doc: `{"outputs": [{"audience": "assistant", "format": "content", "content": [{"type": "text"}]}]}`,
			wantErr: "src.json: /outputs/0/content/0: missing property 'text'"},
		{name: "today's shape is not this revision's", doc: `{"content": [{"type": "text", "text": "hi"}]}`,
			wantErr: "src.json: missing property 'outputs'"},
		{name: "in an envelope too", doc: `{"jsonrpc": "2.0", "id": 1, "result": {"outputs": [{"audience": "user", "format": "structured"}]}}`,
			wantErr: "src.json: /result/outputs/0: missing property 'structuredContent'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := strictjson.Decode("src.json", []byte(tc.doc), strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.ValidateSource("src.json", rev, doc)
			if !testkit.ErrPrefixCase(t, err, tc.wantErr) {
				return
			}
		})
	}
}

// TestRevisionRefCycle: a revision's schema whose references form a cycle is the schema's fault:
// the error names the schema file and the definition's pointer, not the source as invalid.
func TestRevisionRefCycle(t *testing.T) {
	user := fstest.MapFS{"mcp/DRAFT-loop/schema.json": {Data: []byte(`{"$id": "urn:x:loop", "$defs": {
		"CallToolResult": {"$ref": "#/$defs/Result"},
		"Result": {"$ref": "urn:x:loop#/$defs/CallToolResult"},
		"JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)}}
	v, err := NewLayered(os.DirFS(schemasDir), []layer.Dir{layer.FS(user, ".", "my")})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := strictjson.Decode("src.json", []byte(`{"content": []}`), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.ValidateSource("src.json", "DRAFT-loop", doc)
	const want = "my/mcp/DRAFT-loop/schema.json: /$defs/"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "form a cycle") || !strings.Contains(err.Error(), "met validating src.json") {
		t.Fatalf("ValidateSource: %v, want an error starting %q naming the cycle and src.json", err, want)
	}
}

// TestValidateSourceCarrier: the control lane's carrier is held to its fixture's revision's
// schema, whatever the revision: a draft's result shape passes at the draft and fails at a pinned
// revision, and the error points into the record (/carrier) and names the schema it was held to.
func TestValidateSourceCarrier(t *testing.T) {
	v, err := NewLayered(os.DirFS(schemasDir), []layer.Dir{layer.FS(os.DirFS("testdata/layer-id"), ".", "layer-id")})
	if err != nil {
		t.Fatal(err)
	}
	outputs := `{"outputs": [{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "ok"}]}]}`
	for _, tc := range []struct {
		name, revision, carrier, wantErr string
	}{
		{name: "a draft's result at the draft", revision: "DRAFT-2026-12-01", carrier: outputs},
		{name: "in an envelope", revision: "DRAFT-2026-12-01", carrier: `{"jsonrpc": "2.0", "id": 1, "result": ` + outputs + `}`},
		{name: "today's shape at the draft", revision: "DRAFT-2026-12-01", carrier: `{"content": [{"type": "text", "text": "ok"}]}`,
			wantErr: "obs.jsonl:7: /carrier: missing property 'outputs' (the carrier is the source read back: held to layer-id/mcp/DRAFT-2026-12-01/schema.json#/$defs/CallToolResult, the schema of revision DRAFT-2026-12-01, the fixture's)"},
		{name: "an envelope at the draft", revision: "DRAFT-2026-12-01", carrier: `{"jsonrpc": "2.0", "id": 1, "result": {"content": []}}`,
			wantErr: "obs.jsonl:7: /carrier/result: missing property 'outputs' (the carrier is the source read back: held to layer-id/mcp/DRAFT-2026-12-01/schema.json#/$defs/JSONRPCResultResponse (or #/$defs/JSONRPCErrorResponse), its result #/$defs/CallToolResult, the schema of revision DRAFT-2026-12-01, the fixture's)"},
		{name: "the draft's shape at a pinned revision", revision: "2025-11-25", carrier: outputs,
			wantErr: "obs.jsonl:7: /carrier: missing property 'content' (the carrier is the source read back: held to builtin:schemas/mcp/2025-11-25/schema.json#/$defs/CallToolResult, the schema of revision 2025-11-25, the fixture's)"},
		{name: "not an object", revision: "2025-11-25", carrier: `[]`, wantErr: "obs.jsonl:7: /carrier: got array, want object (the carrier is the source read back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := strictjson.Decode("c.json", []byte(tc.carrier), strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			err = v.ValidateSourceCarrier("obs.jsonl", 7, tc.revision, doc)
			if !testkit.ErrPrefixCase(t, err, tc.wantErr) {
				return
			}
		})
	}
}
