package project

import (
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

func benchDoc(b *testing.B, s string) any {
	b.Helper()
	v, err := strictjson.Decode("bench", []byte(s), strictjson.DefaultLimits)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// benchBlocks maps MCP text and image blocks, as the built-in source binding does.
var benchBlocks = map[string]contract.BlockMapping{
	"text": {Kind: "text", Fields: map[string]contract.Field{"text": {Path: "/text"}, "annotations": {Path: "/annotations"}, "_meta": {Path: "/_meta"}}},
	"image": {Kind: "image", Fields: map[string]contract.Field{"payload": {Path: "/data", Decode: "base64"}, "mimeType": {Path: "/mimeType"},
		"annotations": {Path: "/annotations"}, "_meta": {Path: "/_meta"}}},
}

// BenchmarkProjectPointers projects a CallToolResult through a binding of plain pointers: the
// cost every record pays, which value selectors must not raise.
func BenchmarkProjectPointers(b *testing.B) {
	p, err := Compile("bench", contract.Compartment{Unwrap: "jsonrpc",
		Content:    &contract.ContentBinding{Path: "/content", Discriminator: "/type", Kinds: benchBlocks},
		Structured: &contract.Field{Path: "/structuredContent"}, IsError: &contract.ErrorField{Path: "/isError"}, Meta: &contract.Field{Path: "/_meta"}})
	if err != nil {
		b.Fatal(err)
	}
	carrier := benchDoc(b, `{"content":[{"type":"text","text":"{\"a\":1}"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"more","annotations":{"priority":1}}],"structuredContent":{"a":1,"b":[1,2,3]},"isError":false,"_meta":{"k":"v"}}`)
	b.ReportAllocs()
	for b.Loop() {
		p.Project(carrier)
	}
}

// BenchmarkProjectSelectors projects a result of outputs[] through a binding that selects the
// assistant's outputs by audience and format, with Read (which reports several matches).
func BenchmarkProjectSelectors(b *testing.B) {
	p, err := Compile("bench", contract.Compartment{Unwrap: "jsonrpc",
		Content:    &contract.ContentBinding{Path: `/outputs[audience="assistant",format="content"]/content`, Discriminator: "/type", Kinds: benchBlocks},
		Structured: &contract.Field{Path: `/outputs[audience="assistant",format="structured"]/structuredContent`}, IsError: &contract.ErrorField{Path: "/isError"}, Meta: &contract.Field{Path: "/_meta"}})
	if err != nil {
		b.Fatal(err)
	}
	carrier := benchDoc(b, `{"outputs":[{"audience":"user","format":"structured","structuredContent":{"u":1}},{"audience":"assistant","format":"content","content":[{"type":"text","text":"{\"a\":1}"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"more","annotations":{"priority":1}}]},{"audience":"programmatic","format":"structured","structuredContent":{"p":1}},{"audience":"assistant","format":"structured","structuredContent":{"a":1,"b":[1,2,3]}}],"isError":false,"_meta":{"k":"v"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Read(carrier); err != nil {
			b.Fatal(err)
		}
	}
}
