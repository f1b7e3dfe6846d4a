package schema

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestReachCutsTheMCPSchemas: what a source is checked against reaches a few definitions of each
// pinned MCP schema, and only those are handed to the library; the carrier schemas and provider
// schemas shipped with contractcheck are all followed (none falls back to whole documents).
func TestReachCutsTheMCPSchemas(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name  string
		roots []string
		cut   map[string][]string // document → definitions it must keep
	}{
		{
			name:  "control-lane carrier",
			roots: []string{"carriers/mcp-source.schema.json"},
			cut: map[string][]string{
				MCPSchemaPath("2025-06-18"): {"CallToolResult", "JSONRPCError", "JSONRPCResponse", "TextContent", "EmbeddedResource"},
				MCPSchemaPath("2025-11-25"): {"CallToolResult", "JSONRPCErrorResponse", "JSONRPCResultResponse", "ResourceLink", "Icon"},
				MCPSchemaPath("2026-07-28"): {"CallToolResult", "JSONRPCErrorResponse", "JSONRPCResultResponse", "ResultMetaObject"},
			},
		},
		{
			name:  "one revision's definitions",
			roots: []string{MCPSchemaPath("2025-11-25") + "#/$defs/CallToolResult"},
			cut:   map[string][]string{MCPSchemaPath("2025-11-25"): {"CallToolResult", "ContentBlock", "AudioContent"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, ok := v.docs.reach(tc.roots)
			if !ok {
				t.Fatal("reach gave up")
			}
			for path, want := range tc.cut {
				d := docs[path]
				if d == nil || d.whole {
					t.Fatalf("%s: %+v, want it cut", path, d)
				}
				for _, name := range want {
					if !d.names[name] {
						t.Errorf("%s: %s not reached", path, name)
					}
				}
				for _, name := range []string{"InitializeRequest", "ListToolsResult"} {
					if d.names[name] {
						t.Errorf("%s: %s reached, which no tool result holds", path, name)
					}
				}
			}
		})
	}
	for _, dir := range []string{CarrierSchemaDir, ProviderSchemaDir} {
		files, err := fs.Glob(os.DirFS(schemasDir), dir+"*.schema.json")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v %v", dir, files, err)
		}
		for _, f := range files {
			if _, ok := v.docs.reach([]string{f}); !ok {
				t.Errorf("%s: reach gave up: every document is read whole", f)
			}
		}
	}
}

// TestReachGivesUp: what cannot be followed with certainty is not cut (the library then reads
// every document whole, and says what is wrong); what can be is.
func TestReachGivesUp(t *testing.T) {
	const lib = `{"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}, "C": {"type": "number"}, "D": {"$ref": "#/definitions/E"}}, "definitions": {"E": {}}}`
	tests := []struct {
		name   string
		root   string
		ok     bool
		whole  bool     // lib.json read whole
		reachd []string // lib.json's definitions reached (none: lib.json is not reached)
	}{
		{name: "definitions", root: `{"$ref": "lib.json#/$defs/A"}`, ok: true, reachd: []string{"A", "B"}},
		{name: "below a definition", root: `{"$ref": "lib.json#/$defs/A/$ref"}`, ok: true, reachd: []string{"A", "B"}},
		{name: "escaped name", root: `{"$ref": "lib.json#/$defs/C~1x"}`, ok: false}, // C/x: not there
		{name: "whole document", root: `{"$ref": "lib.json"}`, ok: true, whole: true},
		{name: "two containers", root: `{"$ref": "lib.json#/$defs/D"}`, ok: true, whole: true},
		{name: "root pointer", root: `{"$ref": "lib.json#/$defs"}`, ok: true, whole: true},
		{name: "missing definition", root: `{"$ref": "lib.json#/$defs/Z"}`, ok: false},
		{name: "missing document", root: `{"$ref": "nope.json#/$defs/A"}`, ok: false},
		{name: "out of the directory", root: `{"$ref": "https://example.com/lib.json#/$defs/A"}`, ok: false},
		{name: "root $id elsewhere", root: `{"$id": "https://example.com/x.json", "$ref": "lib.json#/$defs/A"}`, ok: false},
		{name: "root $id elsewhere, local references", root: `{"$id": "https://example.com/x.json#", "$defs": {"L": {"$ref": "#/$defs/M"}, "M": {"$ref": "https://example.com/x.json#/$defs/L"}}, "$ref": "#/$defs/L"}`, ok: true},
		{name: "root $id here", root: `{"$id": "contractcheck-schemas:///sub/x.json", "$ref": "../lib.json#/$defs/A"}`, ok: true, reachd: []string{"A", "B"}},
		{name: "nested $id", root: `{"properties": {"x": {"$id": "y.json"}}, "$ref": "lib.json#/$defs/A"}`, ok: false},
		{name: "draft-04 id", root: `{"id": "x.json", "$ref": "lib.json#/$defs/A"}`, ok: false},
		{name: "a property named id", root: `{"properties": {"id": {"type": "string"}}, "$ref": "lib.json#/$defs/A"}`, ok: true, reachd: []string{"A", "B"}},
		{name: "anchor", root: `{"$defs": {"x": {"$anchor": "x"}}, "$ref": "lib.json#/$defs/A"}`, ok: false},
		{name: "dynamic reference", root: `{"$dynamicRef": "#meta", "$ref": "lib.json#/$defs/A"}`, ok: false},
		{name: "not JSON", root: `{"$ref": "lib.json#/$defs/A",}`, ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &docCache{fsys: fstest.MapFS{
				"root.json": {Data: []byte(tc.root)},
				"lib.json":  {Data: []byte(lib)},
			}}
			docs, ok := c.reach([]string{"root.json"})
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%v)", ok, tc.ok, docs)
			}
			if !ok {
				return
			}
			d := docs["lib.json"]
			if !tc.whole && tc.reachd == nil {
				if d != nil {
					t.Errorf("lib.json reached: %+v", d)
				}
				return
			}
			if d == nil || d.whole != tc.whole {
				t.Fatalf("lib.json: %+v, want whole %v", d, tc.whole)
			}
			if !tc.whole {
				var got []string
				for n := range d.names {
					got = append(got, n)
				}
				slices.Sort(got)
				if !slices.Equal(got, tc.reachd) {
					t.Errorf("reached %v, want %v", got, tc.reachd)
				}
			}
		})
	}
}

// FuzzCutIsWhole: a schema compiled from cut documents says what the same schema compiled from
// whole ones says, about any document: the sources' three definitions at each revision, and the
// control lane's carrier schema, which reaches all three revisions.
func FuzzCutIsWhole(f *testing.F) {
	v := newValidator(f)
	whole := newCompiler(fsLoader{&docCache{fsys: os.DirFS(schemasDir)}})
	var roots []string
	for _, rev := range v.Revisions() {
		d, err := v.definitions(v.revisions[rev])
		if err != nil {
			f.Fatal(err)
		}
		for _, def := range []string{d.result, d.errorResponse, d.resultResponse} {
			roots = append(roots, MCPSchemaPath(rev)+def)
		}
	}
	roots = append(roots, "carriers/mcp-source.schema.json")
	cut, err := v.compile(roots...)
	if err != nil {
		f.Fatal(err)
	}
	full := make([]*jsonschema.Schema, len(roots))
	for i, r := range roots {
		if full[i], err = whole.Compile(baseURL + r); err != nil {
			f.Fatal(err)
		}
	}
	seeds, _ := filepath.Glob("testdata/source/*/*.json")
	more, _ := filepath.Glob("../../fixtures/sources/*/*.json")
	for _, p := range append(seeds, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := strictjson.Decode("x.json", data, strictjson.DefaultLimits)
		if err != nil {
			return
		}
		for i, r := range roots {
			got, want := verdict(cut[i], doc), verdict(full[i], doc)
			if got != want {
				t.Fatalf("%s: cut says %q, whole says %q", r, got, want)
			}
		}
	})
}

// verdict is what validating doc against s reports, "" for valid.
func verdict(s *jsonschema.Schema, doc any) string {
	err := s.Validate(doc)
	if err == nil {
		return ""
	}
	return convert(err, "x.json", 0, "", nil).Error()
}

// The cut documents keep every member but the definitions no root reaches.
func TestCutKeepsTheRest(t *testing.T) {
	doc := map[string]any{"$schema": "s", "title": "t", "$defs": map[string]any{"A": true, "B": false}}
	got := cut(doc, &reached{container: "$defs", names: map[string]bool{"A": true}}).(map[string]any)
	if got["$schema"] != "s" || got["title"] != "t" || len(got["$defs"].(map[string]any)) != 1 {
		t.Errorf("cut = %v", got)
	}
	if len(doc["$defs"].(map[string]any)) != 2 {
		t.Errorf("cut changed the shared document: %v", doc)
	}
}

// TestSchemaDocumentsAreReadStrictly: a schema document is read as every other input is, so a
// user's carrier schema with a member written twice is refused with its line and column, not read
// with one of the two.
func TestSchemaDocumentsAreReadStrictly(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, rev := range pinned {
		fsys[MCPSchemaPath(rev)] = &fstest.MapFile{Data: []byte(`{}`)}
	}
	fsys["carriers/x.schema.json"] = &fstest.MapFile{Data: []byte("{\n  \"type\": \"object\",\n  \"type\": \"array\"\n}")}
	v, err := New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	err = v.CompileCarrier("carriers/x.schema.json")
	if err == nil || !strings.Contains(err.Error(), "carriers/x.schema.json:3:3: ") || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("CompileCarrier: %v, want the duplicate member's position", err)
	}
}
