package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

// lcJSON marshals a reconstructed value (Python values marshal as pyRaw writes them) for
// comparison with an expected JSON text.
func lcJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
			res, err := mcp1CallToolResult(mustLoad(t, `{"content":[`+tc.block+`]}`))
			if err != nil {
				t.Fatal(err)
			}
			c, _ := res.get("content")
			got, err := convertMCPContentToLCBlock(c.([]any)[0].(*pyDict), 1)
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
				v, _ := msg.get(k)
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
