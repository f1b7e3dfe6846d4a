package project

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := strictjson.Decode("test", []byte(s), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mcp is a binding shaped like the canonical one; openai is shaped like a provider request that
// carries the content as input_text / input_image parts with data URLs, under another root.
var (
	mcp = contract.Compartment{
		Unwrap: "jsonrpc",
		Content: &contract.ContentBinding{Path: "/content", Discriminator: "/type", Kinds: map[string]contract.BlockMapping{
			"text":  {Kind: "text", Fields: map[string]contract.Field{"text": {Path: "/text"}, "annotations": {Path: "/annotations"}}},
			"image": {Kind: "image", Fields: map[string]contract.Field{"payload": {Path: "/data", Decode: "base64"}, "mimeType": {Path: "/mimeType"}}},
		}},
		Structured: &contract.Field{Path: "/structuredContent"},
		IsError:    &contract.ErrorField{Path: "/isError"},
		Meta:       &contract.Field{Path: "/_meta"},
	}
	openai = contract.Compartment{
		Root: "/input/1",
		Content: &contract.ContentBinding{Path: "/output", Discriminator: "/type", Kinds: map[string]contract.BlockMapping{
			"input_text":  {Kind: "text", Fields: map[string]contract.Field{"text": {Path: "/text"}}},
			"input_image": {Kind: "image", Fields: map[string]contract.Field{"payload": {Path: "/image_url", Decode: "dataurl-payload"}, "mimeType": {Path: "/image_url", Decode: "dataurl-mime"}}},
		}},
		IsError: &contract.ErrorField{Path: "/status", Abort: []string{"error"}, Continue: []string{"success"}},
		Raised:  &contract.Field{Path: "/exception"},
	}
	flat = contract.Compartment{
		Content:    &contract.ContentBinding{Path: "/output", Decode: "text"},
		Structured: &contract.Field{Path: "/sc", Decode: "json"},
	}
)

func TestProject(t *testing.T) {
	tests := []struct {
		name    string
		binding contract.Compartment
		carrier string
		want    string
	}{
		{
			name:    "absent stays absent and null stays null",
			binding: mcp,
			carrier: `{"content": [], "structuredContent": null}`,
			want:    `{"content": [], "structured": null}`,
		},
		{
			name:    "a null content list is kept as null",
			binding: mcp,
			carrier: `{"content": null}`,
			want:    `{"content": null}`,
		},
		{
			name:    "isError false is kept, not dropped as a zero value",
			binding: mcp,
			carrier: `{"content": [{"type": "text", "text": "a"}], "isError": false, "_meta": {}}`,
			want:    `{"content": [{"kind": "text", "text": "a"}], "isError": false, "meta": {}}`,
		},
		{
			name:    "unpadded base64 reads as the same bytes as padded",
			binding: mcp,
			carrier: `{"content": [{"type": "image", "data": "AAE", "mimeType": "image/png"}]}`,
			want:    `{"content": [{"kind": "image", "payload": "AAE=", "mimeType": "image/png"}]}`,
		},
		{
			name:    "undecodable base64 is kept as carried so the difference shows",
			binding: mcp,
			carrier: `{"content": [{"type": "image", "data": "%%%", "mimeType": "image/png"}]}`,
			want:    `{"content": [{"kind": "image", "payload": "%%%", "mimeType": "image/png"}]}`,
		},
		{
			name:    "an unknown item type becomes an unmapped block, not nothing",
			binding: mcp,
			carrier: `{"content": [{"type": "video", "url": "https://example.com/v"}]}`,
			want:    `{"content": [{"kind": "unmapped", "type": "video"}]}`,
		},
		{
			name:    "a JSON-RPC result response is unwrapped",
			binding: mcp,
			carrier: `{"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}}`,
			want:    `{"content": [], "isError": true}`,
		},
		{
			name:    "a JSON-RPC error response is raised",
			binding: mcp,
			carrier: `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}}`,
			want:    `{"raised": {"message": "bad"}}`,
		},
		{
			name:    "data URLs carry payload and MIME; renamed fields and a status map onto atoms",
			binding: openai,
			carrier: `{"input": [{}, {"type": "function_call_output", "status": "success", "output": [
				{"type": "input_text", "text": "t"}, {"type": "input_image", "image_url": "data:image/png;base64,AAE="}]}]}`,
			want: `{"content": [{"kind": "text", "text": "t"}, {"kind": "image", "payload": "AAE=", "mimeType": "image/png"}], "isError": false}`,
		},
		{
			name:    "a carried exception is raised",
			binding: openai,
			carrier: `{"input": [{}, {"output": "Error", "status": "error", "exception": "boom"}]}`,
			want:    `{"content": [{"kind": "unmapped", "carried": "Error"}], "isError": true, "raised": {"message": "boom"}}`,
		},
		{
			name:    "a missing root reads nothing",
			binding: openai,
			carrier: `{"input": []}`,
			want:    `{}`,
		},
		{
			name:    "a flattened string is one text item; JSON text decodes exactly",
			binding: flat,
			carrier: `{"output": "hello", "sc": "{\"n\": 12345678901234567891}"}`,
			want:    `{"content": [{"kind": "text", "text": "hello"}], "delivery": ["text"], "structured": {"n": 12345678901234567891}}`,
		},
		{
			name:    "JSON text that does not parse is kept as the string",
			binding: flat,
			carrier: `{"sc": "{\"a\": 1, \"a\": 2}"}`,
			want:    `{"structured": "{\"a\": 1, \"a\": 2}"}`,
		},
		{
			name:    "no recursive search: a value outside the allowlisted paths is invisible",
			binding: flat,
			carrier: `{"nested": {"output": "hidden", "sc": "{}"}}`,
			want:    `{}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile("test", tc.binding)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Project(decode(t, tc.carrier))
			want := decode(t, tc.want)
			if !strictjson.Equal(got, want) {
				g, _ := json.Marshal(got)
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name    string
		binding contract.Compartment
	}{
		{name: "a pointer without a leading slash", binding: contract.Compartment{Root: "input"}},
		{name: "a bad escape", binding: contract.Compartment{Meta: &contract.Field{Path: "/a~3b"}}},
		{name: "a selector without a quoted value", binding: contract.Compartment{Structured: &contract.Field{Path: "/outputs[format=structured]/structuredContent"}}},
		{name: "an unclosed selector in a block field", binding: contract.Compartment{Content: &contract.ContentBinding{Path: "/c", Discriminator: "/type",
			Kinds: map[string]contract.BlockMapping{"text": {Kind: "text", Fields: map[string]contract.Field{"text": {Path: `/parts[kind="text"`}}}}}}},
		{name: "an unknown decoder", binding: contract.Compartment{Meta: &contract.Field{Path: "/a", Decode: "rot13"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Compile("test", tc.binding); err == nil {
				t.Error("want an error")
			}
		})
	}
}

func TestPointer(t *testing.T) {
	doc := decode(t, `{"a/b": {"~c": [10, 20]}, "": 1}`)
	tests := []struct {
		name, ptr string
		want      any
		ok        bool
	}{
		{"whole document", "", doc, true},
		{"escaped slash and tilde", "/a~1b/~0c/1", json.Number("20"), true},
		{"empty key", "/", json.Number("1"), true},
		{"index out of range", "/a~1b/~0c/2", nil, false},
		{"leading zero is not an index", "/a~1b/~0c/01", nil, false},
		{"absent key", "/x", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parsePointer(tc.ptr)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := p.Lookup(doc)
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("lookup(%q) = %v, %v; want %v, %v", tc.ptr, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestProjectTypes(t *testing.T) {
	// One key filled with the structured value when there is one, else with the text, as some
	// frameworks do: the binding reads each slot only for the types it can hold.
	shared := contract.Compartment{
		Content:    &contract.ContentBinding{Path: "/output", Decode: "text", Types: []string{"string"}},
		Structured: &contract.Field{Path: "/output", Types: []string{"object", "array", "number", "boolean", "null"}},
	}
	tests := []struct {
		name, carrier, want string
	}{
		{name: "a string is text, not structure", carrier: `{"output": "hello"}`, want: `{"content": [{"kind": "text", "text": "hello"}], "delivery": ["text"]}`},
		{name: "an object is structure, not text", carrier: `{"output": {"a": 1}}`, want: `{"structured": {"a": 1}}`},
		{name: "null is a null structured slot", carrier: `{"output": null}`, want: `{"structured": null}`},
		{name: "absent is neither", carrier: `{}`, want: `{}`},
	}
	p, err := Compile("shared", shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assertProjects(t, p, tc.carrier, tc.want) })
	}
}

// TestProjectEmbeddedBlocks covers a framework that carries a content block it has no part for as
// a text part holding the block's JSON (openai-agents' input_text with model_dump_json()): the
// binding reads such an item as the typed block, and leaves every other text item as text.
func TestProjectEmbeddedBlocks(t *testing.T) {
	embedded := contract.Compartment{
		Content: &contract.ContentBinding{Path: "/output", Discriminator: "/type", Kinds: map[string]contract.BlockMapping{
			"input_text": {
				Kind:   "text",
				Fields: map[string]contract.Field{"text": {Path: "/text"}},
				Embedded: &contract.EmbeddedBlock{Path: "/text", Discriminator: "/type", Kinds: map[string]contract.BlockMapping{
					"resource_link": {Kind: "resource_link", Fields: map[string]contract.Field{
						"uri": {Path: "/uri"}, "name": {Path: "/name"}, "title": {Path: "/title"}, "mimeType": {Path: "/mimeType"},
						"size": {Path: "/size"}, "annotations": {Path: "/annotations"}, "_meta": {Path: "/meta"},
					}},
					"audio": {Kind: "audio", Fields: map[string]contract.Field{"payload": {Path: "/data", Decode: "base64"}, "mimeType": {Path: "/mimeType"}}},
					"resource": {Kind: "resource", Fields: map[string]contract.Field{
						"uri": {Path: "/resource/uri"}, "text": {Path: "/resource/text"}, "payload": {Path: "/resource/blob", Decode: "base64"},
						"mimeType": {Path: "/resource/mimeType"}, "resourceMeta": {Path: "/resource/meta"},
					}},
				}},
			},
		}},
	}
	text := func(s string) string {
		b, _ := json.Marshal(s)
		return `{"output": [{"type": "input_text", "text": ` + string(b) + `}]}`
	}
	tests := []struct {
		name, carrier, want string
	}{
		{
			name:    "a resource link's JSON reads as the link: null fields stay null, absent ones absent, numbers exact",
			carrier: text(`{"name":"m.pdf","title":null,"uri":"https://x.example/m.pdf","mimeType":"application/pdf","size":12345678901234567891,"annotations":null,"meta":{"k":1},"type":"resource_link"}`),
			want:    `{"content": [{"kind": "resource_link", "name": "m.pdf", "title": null, "uri": "https://x.example/m.pdf", "mimeType": "application/pdf", "size": 12345678901234567891, "annotations": null, "_meta": {"k": 1}}]}`,
		},
		{
			name:    "an audio block's payload is decoded like any base64 payload",
			carrier: text(`{"type":"audio","data":"AAE","mimeType":"audio/wav"}`),
			want:    `{"content": [{"kind": "audio", "payload": "AAE=", "mimeType": "audio/wav"}]}`,
		},
		{
			name:    "an embedded resource keeps its contents' fields",
			carrier: text(`{"type":"resource","resource":{"uri":"file:///a.md","mimeType":"text/markdown","text":"# A","meta":null}}`),
			want:    `{"content": [{"kind": "resource", "uri": "file:///a.md", "mimeType": "text/markdown", "text": "# A", "resourceMeta": null}]}`,
		},
		{
			name:    "plain text stays text",
			carrier: text(`Dock 3 is open.`),
			want:    `{"content": [{"kind": "text", "text": "Dock 3 is open."}]}`,
		},
		{
			name:    "JSON of a kind the binding does not embed stays text",
			carrier: text(`{"type":"text","text":"x"}`),
			want:    `{"content": [{"kind": "text", "text": "{\"type\":\"text\",\"text\":\"x\"}"}]}`,
		},
		{
			name:    "a JSON object without a string discriminator stays text",
			carrier: text(`{"type":7,"uri":"https://x.example/"}`),
			want:    `{"content": [{"kind": "text", "text": "{\"type\":7,\"uri\":\"https://x.example/\"}"}]}`,
		},
		{
			name:    "a JSON array stays text",
			carrier: text(`[{"type":"resource_link"}]`),
			want:    `{"content": [{"kind": "text", "text": "[{\"type\":\"resource_link\"}]"}]}`,
		},
		{
			name:    "JSON that is not strict (a duplicate key) stays text",
			carrier: text(`{"type":"resource_link","uri":"a","uri":"b"}`),
			want:    `{"content": [{"kind": "text", "text": "{\"type\":\"resource_link\",\"uri\":\"a\",\"uri\":\"b\"}"}]}`,
		},
		{
			name:    "a text that is not a string is read as carried",
			carrier: `{"output": [{"type": "input_text", "text": null}]}`,
			want:    `{"content": [{"kind": "text", "text": null}]}`,
		},
	}
	p, err := Compile("embedded", embedded)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assertProjects(t, p, tc.carrier, tc.want) })
	}

	t.Run("an embedded mapping cannot embed another", func(t *testing.T) {
		nested := contract.Compartment{Content: &contract.ContentBinding{Path: "/c", Kinds: map[string]contract.BlockMapping{
			"t": {Kind: "text", Embedded: &contract.EmbeddedBlock{Path: "/text", Kinds: map[string]contract.BlockMapping{
				"u": {Kind: "text", Embedded: &contract.EmbeddedBlock{Path: "/text"}},
			}}},
		}}}
		if _, err := Compile("nested", nested); err == nil {
			t.Error("want an error")
		}
	})
	t.Run("a bad embedded pointer is a compile error", func(t *testing.T) {
		bad := contract.Compartment{Content: &contract.ContentBinding{Path: "/c", Kinds: map[string]contract.BlockMapping{
			"t": {Kind: "text", Embedded: &contract.EmbeddedBlock{Path: "text"}},
		}}}
		if _, err := Compile("bad", bad); err == nil {
			t.Error("want an error")
		}
	})
}

// assertProjects checks that the projector reads carrier as the view want.
func assertProjects(t *testing.T, p *Projector, carrier, want string) {
	t.Helper()
	got := p.Project(decode(t, carrier))
	if !strictjson.Equal(got, decode(t, want)) {
		g, _ := json.Marshal(got)
		t.Errorf("got  %s\nwant %s", g, want)
	}
}

// TestSelectors: a binding's paths may select an array element by its members' values, in any
// path (root, content list, fields); zero matches is absent, several an error of Read naming the
// compartment and the path, while Project reads them as absent.
func TestSelectors(t *testing.T) {
	t.Parallel()
	binding := contract.Compartment{
		Content: &contract.ContentBinding{Path: `/outputs[audience="assistant",format="content"]/content`, Discriminator: "/type",
			Kinds: map[string]contract.BlockMapping{"text": {Kind: "text", Fields: map[string]contract.Field{"text": {Path: "/text"}}}}},
		Structured: &contract.Field{Path: `/outputs[audience="assistant",format="structured"]/structuredContent`},
		Meta:       &contract.Field{Path: `/outputs[audience="assistant",format="structured"]/_meta`},
	}
	tests := []struct {
		name    string
		carrier string
		want    string // the view; "" when Read fails
		err     string
	}{
		{name: "order in the array carries no meaning",
			carrier: `{"outputs":[{"audience":"user","format":"structured","structuredContent":{"u":1}},{"audience":"assistant","format":"structured","structuredContent":{"a":1}},{"audience":"assistant","format":"content","content":[{"type":"text","text":"hi"}]}]}`,
			want:    `{"content":[{"kind":"text","text":"hi"}],"structured":{"a":1}}`},
		{name: "no assistant output: absent, not empty",
			carrier: `{"outputs":[{"audience":"user","format":"structured","structuredContent":{"u":1}}]}`,
			want:    `{}`},
		{name: "a null slot stays null",
			carrier: `{"outputs":[{"audience":"assistant","format":"structured","structuredContent":null}]}`,
			want:    `{"structured":null}`},
		{name: "two assistant structured outputs",
			carrier: `{"outputs":[{"audience":"assistant","format":"structured","structuredContent":{"a":1}},{"audience":"assistant","format":"structured","structuredContent":{"a":2}}]}`,
			err:     `compartment draft: path "/outputs[audience=\"assistant\",format=\"structured\"]/structuredContent": 2 elements of the array at "/outputs" match its selector (indices 0, 1)`},
	}
	p, err := Compile("draft", binding)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Selects() {
		t.Error("Selects() = false for a binding that selects")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.Read(decode(t, tc.carrier))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Read: %v, want an error holding %s", err, tc.err)
				}
				if _, has := p.Project(decode(t, tc.carrier))["structured"]; has {
					t.Error("Project read an ambiguous slot")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strictjson.Equal(got, decode(t, tc.want)) {
				g, _ := json.Marshal(got)
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
	plain, err := Compile("plain", contract.Compartment{Structured: &contract.Field{Path: "/structuredContent"}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Selects() {
		t.Error("Selects() = true for a binding of plain pointers")
	}
}
