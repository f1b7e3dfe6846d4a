package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

// lcJSON marshals a reconstructed value for comparison with an expected JSON text.
func lcJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lcMust(t *testing.T, s string) any {
	t.Helper()
	v, err := lcDecodeOrdered([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLCPyFloatRepr(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   float64
		want string
	}{
		{"shortest digits", 0.1, "0.1"},
		{"integral float keeps .0", 18250.0, "18250.0"},
		{"small switches to exponent at 1e-5", 2.5e-7, "2.5e-07"},
		{"1e-4 stays fixed", 0.0001, "0.0001"},
		{"1e-5 is scientific", 0.00001, "1e-05"},
		{"1e15 stays fixed", 1e15, "1000000000000000.0"},
		{"1e16 is scientific", 1e16, "1e+16"},
		{"large with digits", 123456789012345678901.0, "1.2345678901234568e+20"},
		{"negative zero", math.Copysign(0, -1), "-0.0"},
		{"negative", -412.8, "-412.8"},
		{"subnormal", 5e-324, "5e-324"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lcPyFloatRepr(tc.in); got != tc.want {
				t.Errorf("lcPyFloatRepr(%v) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLCPyNumber(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"int beyond 2^53 stays exact", "9007199254740993", "9007199254740993"},
		{"int beyond int64 stays exact", "-9223372036854775809", "-9223372036854775809"},
		{"negative zero int", "-0", "0"},
		{"float rounds through a double", "0.1000000000000000055511151231257827", "0.1"},
		{"exponent literal is a float", "2.5E-7", "2.5e-07"},
		{"exponent without a point is a float", "1E2", "100.0"},
		{"float with zero fraction", "6.0", "6.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(lcPyNumber(json.Number(tc.in))); got != tc.want {
				t.Errorf("lcPyNumber(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestLCPyJSONDumps(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"separators", `{"a":1,"b":[true,null]}`, `{"a": 1, "b": [true, null]}`},
		{"key order kept", `{"z":1,"a":2}`, `{"z": 1, "a": 2}`},
		{"ensure_ascii", `{"s":"Café — 📦"}`, `{"s": "Caf\u00e9 \u2014 \ud83d\udce6"}`},
		{"escapes", `{"s":"a\"b\\c\n\t\u0001/"}`, `{"s": "a\"b\\c\n\t\u0001/"}`},
		{"floats by repr", `{"x":2.5E-7,"y":0.1000000000000000055511151231257827,"n":12345678901234567891}`, `{"x": 2.5e-07, "y": 0.1, "n": 12345678901234567891}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lcPyJSONDumps(lcPyValue(lcMust(t, tc.in))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestLCPydanticURL(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"bare host gets a slash", "https://example.com", "https://example.com/"},
		{"path unchanged", "https://files.example.com/a/b.pdf", "https://files.example.com/a/b.pdf"},
		{"scheme and host lowercased", "HTTPS://Docs.Example.COM/x", "https://docs.example.com/x"},
		{"query on bare host", "https://example.com?q=1", "https://example.com/?q=1"},
		{"non-special scheme untouched", "urn:isbn:0451450523", "urn:isbn:0451450523"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lcPydanticURL(tc.in); got != tc.want {
				t.Errorf("lcPydanticURL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestConvertMCPContentToLCBlock(t *testing.T) {
	for _, tc := range []struct {
		name, block, want, err string
	}{
		{"text keeps only text", `{"type":"text","text":"hi","annotations":{"priority":0.5},"_meta":{"k":1}}`,
			`{"type":"text","text":"hi","id":"lc_00000000-0000-4000-8000-000000000001"}`, ""},
		{"image base64", `{"type":"image","data":"AAAA","mimeType":"image/png"}`,
			`{"type":"image","id":"lc_00000000-0000-4000-8000-000000000001","base64":"AAAA","mime_type":"image/png"}`, ""},
		{"audio raises", `{"type":"audio","data":"AAAA","mimeType":"audio/wav"}`, "",
			"AudioContent conversion to LangChain content blocks is not yet supported. Received audio with mime type: audio/wav"},
		{"link to an image becomes an image url", `{"type":"resource_link","uri":"https://x.example/a.png","name":"a","mimeType":"image/png"}`,
			`{"type":"image","id":"lc_00000000-0000-4000-8000-000000000001","url":"https://x.example/a.png","mime_type":"image/png"}`, ""},
		{"other link becomes a file url, descriptors lost", `{"type":"resource_link","uri":"https://x.example","name":"a","title":"T","size":3}`,
			`{"type":"file","id":"lc_00000000-0000-4000-8000-000000000001","url":"https://x.example/"}`, ""},
		{"embedded text keeps only text", `{"type":"resource","resource":{"uri":"https://x.example/r.md","mimeType":"text/markdown","text":"# r"}}`,
			`{"type":"text","text":"# r","id":"lc_00000000-0000-4000-8000-000000000001"}`, ""},
		{"embedded blob becomes a file", `{"type":"resource","resource":{"uri":"https://x.example/r.gz","mimeType":"application/gzip","blob":"AAAA"}}`,
			`{"type":"file","id":"lc_00000000-0000-4000-8000-000000000001","base64":"AAAA","mime_type":"application/gzip"}`, ""},
		{"embedded blob without MIME type raises", `{"type":"resource","resource":{"uri":"https://x.example/r.gz","blob":"AAAA"}}`, "",
			"mime_type is required when using base64 data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := lcMCPCallToolResult(lcMust(t, `{"content":[`+tc.block+`]}`))
			if err != nil {
				t.Fatal(err)
			}
			c, _ := res.Get("content")
			got, err := convertMCPContentToLCBlock(c.([]any)[0].(*lcDict), 1)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := lcJSON(t, got); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
		})
	}
}

func TestLCToolMessage(t *testing.T) {
	for _, tc := range []struct {
		name, cfg, src string
		want           map[string]string // top-level ToolMessage key → JSON
		err            string
	}{
		{name: "structured content goes to the artifact only", cfg: "default",
			src:  `{"content":[{"type":"text","text":"{}"}],"structuredContent":{"a":0.1000000000000000055511151231257827,"n":null}}`,
			want: map[string]string{"artifact": `{"structured_content":{"a":0.1,"n":null}}`, "status": `"success"`}},
		{name: "null structuredContent gives no artifact", cfg: "default",
			src:  `{"content":[],"structuredContent":null}`,
			want: map[string]string{"artifact": `null`, "content": `[]`}},
		{name: "isError true: status error, no artifact", cfg: "default",
			src:  `{"content":[{"type":"text","text":"no"}],"structuredContent":{"a":1},"isError":true}`,
			want: map[string]string{"artifact": `null`, "status": `"error"`, "content": `[{"type":"text","text":"no","id":"lc_00000000-0000-4000-8000-000000000001"}]`}},
		{name: "isError with empty content gets the placeholder", cfg: "default",
			src:  `{"content":[],"isError":true}`,
			want: map[string]string{"content": `[{"type":"text","text":"MCP tool returned an error with empty content.","id":"lc_00000000-0000-4000-8000-000000000001"}]`}},
		{name: "isError false and absent both read success", cfg: "default",
			src:  `{"content":[{"type":"text","text":"ok"}]}`,
			want: map[string]string{"status": `"success"`}},
		{name: "JSON-RPC error raises McpError", cfg: "default",
			src: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: x"}}`, err: "Unknown tool: x"},
		{name: "array structuredContent fails validation", cfg: "default",
			src: `{"content":[],"structuredContent":[1]}`, err: "1 validation error for CallToolResult\nstructuredContent\n  Input should be a valid dictionary"},
		{name: "interceptor appends json.dumps of a truthy value", cfg: lcInterceptorConfig,
			src:  `{"content":[],"structuredContent":{"q":3,"r":"Ø"}}`,
			want: map[string]string{"content": `[{"type":"text","text":"{\"q\": 3, \"r\": \"\\u00d8\"}","id":"lc_00000000-0000-4000-8000-000000000001"}]`}},
		{name: "interceptor skips an empty object", cfg: lcInterceptorConfig,
			src:  `{"content":[{"type":"text","text":"{}"}],"structuredContent":{}}`,
			want: map[string]string{"content": `[{"type":"text","text":"{}","id":"lc_00000000-0000-4000-8000-000000000001"}]`, "artifact": `{"structured_content":{}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, basis, err := lcToolMessage(tc.cfg, record.Fixture{ID: "T", Bytes: []byte(tc.src)})
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error = %v, want prefix %q", err, tc.err)
				}
				if len(err.(*lcFailure).basis) == 0 {
					t.Error("a failure must cite its basis")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(basis) == 0 {
				t.Error("no basis")
			}
			for k, want := range tc.want {
				v, _ := msg.Get(k)
				if got := lcJSON(t, v); got != want {
					t.Errorf("%s = %s, want %s", k, got, want)
				}
			}
		})
	}
}

func TestReconstructLangChainStages(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"captured result", `{"content":[{"type":"text","text":"x"}]}`, []string{"not_observable", "captured", "captured", "not_applicable"}},
		{"audio fails at A2", `{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}`, []string{"not_observable", "execution_failed", "not_reached", "not_applicable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stages := reconstructLangChain("default", record.Fixture{ID: "T", Bytes: []byte(tc.src)}, nil)
			for i, st := range stages {
				if st.State != tc.want[i] {
					t.Errorf("%s: state %s, want %s", st.Stage, st.State, tc.want[i])
				}
				if len(st.Basis) == 0 {
					t.Errorf("%s: no basis", st.Stage)
				}
			}
			if stages[1].State == "captured" && stages[1].Carrier != stages[2].Carrier {
				t.Error("A2 and M3 must be the same ToolMessage")
			}
		})
	}
}
