package main

import "testing"

func TestOpenAIAgentsRules(t *testing.T) {
	cases := []struct {
		name       string
		result     string
		structured bool
		want       string // pyJSONDumps of the tool output, compact
	}{
		{name: "one text block is one item, not a list", result: `{"content":[{"type":"text","text":"hi"}]}`,
			want: `{"type":"text","text":"hi"}`},
		{name: "image becomes a data URL", result: `{"content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
			want: `[{"type":"text","text":"a"},{"type":"image","image_url":"data:image/png;base64,AAAA"}]`},
		{name: "resource link is its model_dump_json: field names, nulls, the URL normalised", result: `{"content":[{"type":"resource_link","uri":"https://e.com","name":"n"}]}`,
			want: `{"type":"text","text":"{\"name\":\"n\",\"title\":null,\"uri\":\"https://e.com/\",\"description\":null,\"mimeType\":null,\"size\":null,\"icons\":null,\"annotations\":null,\"meta\":null,\"type\":\"resource_link\"}"}`},
		{name: "empty content is an empty list", result: `{"content":[]}`, want: `[]`},
		{name: "structured content replaces the text, ensure_ascii and default separators", structured: true,
			result: `{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":"Zoë","v":2.5E-7}}`,
			want:   `"{\"n\": \"Zo\\u00eb\", \"v\": 2.5e-07}"`},
		{name: "empty structured content is falsy", structured: true,
			result: `{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`,
			want:   `{"type":"text","text":"{}"}`},
		{name: "error results keep their content", structured: true,
			result: `{"content":[{"type":"text","text":"bad"}],"structuredContent":{"a":1},"isError":true}`,
			want:   `{"type":"text","text":"bad"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := mcpServed(mustLoad(t, c.result))
			ctr, fail, _ := mcpCallTool(r)
			if fail != nil {
				t.Fatalf("unexpected failure %v", fail)
			}
			out, _ := invokeMCPTool(ctr, c.structured)
			if got := pyJSONDumps(out, false, pyCompactSeparators); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestOpenAIAgentsArrayStructuredContentFailsValidation(t *testing.T) {
	r, _ := mcpServed(mustLoad(t, `{"content":[],"structuredContent":[1,2]}`))
	_, fail, _ := mcpCallTool(r)
	if fail == nil || fail.pyType != "ValidationError" {
		t.Fatalf("want a ValidationError, got %v", fail)
	}
}

func TestToolCallOutputItem(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want string
	}{
		{name: "string kept", out: `"x"`, want: `"x"`},
		{name: "single item wrapped in a list", out: `{"type":"text","text":"t"}`, want: `[{"type":"input_text","text":"t"}]`},
		{name: "empty list stringified", out: `[]`, want: `"[]"`},
		{name: "image part", out: `[{"type":"image","image_url":"data:image/png;base64,AA=="}]`, want: `[{"type":"input_image","image_url":"data:image/png;base64,AA=="}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			item, _ := toolCallOutputItem("c", mustLoad(t, c.out))
			if got := pyJSONDumps(pyGet(item, "output"), false, pyCompactSeparators); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
