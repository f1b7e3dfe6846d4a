package main

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/examples/internal/record"
)

func TestLCMCPCallToolResultDump(t *testing.T) {
	for _, tc := range []struct{ name, src, want, err string }{
		{"isError defaults to false, null structuredContent omitted",
			`{"content":[],"structuredContent":null}`, `{"content":[],"isError":false}`, ""},
		{"_meta dumped as meta at every level, extras kept after fields",
			`{"resultType":"complete","_meta":{"k":null},"content":[{"_meta":{"a":1},"type":"text","text":"t"}]}`,
			`{"meta":{"k":null},"content":[{"type":"text","text":"t","meta":{"a":1}}],"isError":false,"resultType":"complete"}`, ""},
		{"annotations: priority a float, lastModified kept as extra",
			`{"content":[{"type":"text","text":"t","annotations":{"lastModified":"2025-01-01T00:00:00Z","priority":1,"audience":["user"]}}]}`,
			`{"content":[{"type":"text","text":"t","annotations":{"audience":["user"],"priority":1.0,"lastModified":"2025-01-01T00:00:00Z"}}],"isError":false}`, ""},
		{"resource link in model field order, URI normalised, None fields dropped",
			`{"content":[{"type":"resource_link","uri":"https://Example.com","name":"n","title":null,"size":12345678901234567891}]}`,
			`{"content":[{"name":"n","uri":"https://example.com/","size":12345678901234567891,"type":"resource_link"}],"isError":false}`, ""},
		{"embedded resource: contents meta renamed",
			`{"content":[{"type":"resource","resource":{"uri":"https://x.example/b","blob":"AAAA","mimeType":"application/gzip","_meta":{"r":4}}}]}`,
			`{"content":[{"type":"resource","resource":{"uri":"https://x.example/b","mimeType":"application/gzip","meta":{"r":4},"blob":"AAAA"}}],"isError":false}`, ""},
		{"structured values keep nulls and take Python numbers",
			`{"content":[],"structuredContent":{"a":null,"f":2.5E-7,"i":9007199254740993}}`,
			`{"content":[],"structuredContent":{"a":null,"f":2.5e-07,"i":9007199254740993},"isError":false}`, ""},
		{"array structuredContent is rejected", `{"content":[],"structuredContent":[]}`, "", "structuredContent\n  Input should be a valid dictionary"},
		{"missing content is rejected", `{"structuredContent":{}}`, "", "content\n  Field required"},
		{"null isError is rejected", `{"content":[],"isError":null}`, "", "isError\n  Input should be a valid boolean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mcp1CallToolResult(mustLoad(t, tc.src))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.err)
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

func TestReconstructGoogleADK(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		states    []string
		h4        string
		errPrefix string
	}{
		{name: "result reaches H4 as functionResponse.response",
			src:    `{"content":[{"type":"text","text":"x"}],"_meta":{"m":1}}`,
			states: []string{"not_observable", "captured", "captured", "captured"},
			h4:     `{"functionResponse":{"name":"fixture_tool","response":{"meta":{"m":1},"content":[{"type":"text","text":"x"}],"isError":false}}}`},
		{name: "isError true is data, not an exception",
			src:    `{"content":[],"isError":true}`,
			states: []string{"not_observable", "captured", "captured", "captured"},
			h4:     `{"functionResponse":{"name":"fixture_tool","response":{"content":[],"isError":true}}}`},
		{name: "JSON-RPC error propagates",
			src:       `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: x"}}`,
			states:    []string{"not_observable", "execution_failed", "not_reached", "not_reached"},
			errPrefix: "Unknown tool: x"},
		{name: "validation error propagates",
			src:       `{"content":[],"structuredContent":[{"a":1}]}`,
			states:    []string{"not_observable", "execution_failed", "not_reached", "not_reached"},
			errPrefix: "1 validation error for CallToolResult"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stages := reconstructGoogleADK("default", record.Fixture{ID: "T", Bytes: []byte(tc.src)}, nil)
			for i, st := range stages {
				if st.State != tc.states[i] {
					t.Errorf("%s: state %s, want %s", st.Stage, st.State, tc.states[i])
				}
				if len(st.Basis) == 0 {
					t.Errorf("%s: no basis", st.Stage)
				}
			}
			if tc.errPrefix != "" && !strings.HasPrefix(stages[1].Err, tc.errPrefix) {
				t.Errorf("A2 error %q, want prefix %q", stages[1].Err, tc.errPrefix)
			}
			if tc.h4 != "" {
				if got := lcJSON(t, stages[3].Carrier); got != tc.h4 {
					t.Errorf("H4 got  %s\nwant %s", got, tc.h4)
				}
				if stages[1].Carrier != stages[2].Carrier {
					t.Error("A2 and M3 must be the same dict")
				}
			}
		})
	}
}
