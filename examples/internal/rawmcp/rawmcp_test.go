package rawmcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestResponseKeepsTheFixture(t *testing.T) {
	tests := []struct {
		name, fixture, want string
	}{
		{
			name:    "a result is served verbatim but for whitespace",
			fixture: "{\n  \"content\": [{\"type\": \"text\", \"text\": \"caf\\u00e9 \"}],\n  \"structuredContent\": {\"n\": 12345678901234567891, \"x\": 1.50}\n}\n",
			want:    `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"caf\u00e9 "}],"structuredContent":{"n":12345678901234567891,"x":1.50}}}`,
		},
		{
			name:    "an error envelope is served under the request's id",
			fixture: `{"jsonrpc": "2.0", "id": 17, "error": {"code": -32602, "message": "no"}}`,
			want:    `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no"}}`,
		},
		{
			name:    "a result envelope is unwrapped",
			fixture: `{"jsonrpc": "2.0", "id": 1, "result": {"content": []}}`,
			want:    `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Response([]byte(tc.fixture), json.RawMessage("7"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestServe(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"fixture_tool"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"server/discover"}`,
	}, "\n") + "\n"
	s := &Server{Fixture: []byte(`{"content": []}`)}
	var out bytes.Buffer
	if err := s.Serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || s.Calls != 1 {
		t.Fatalf("%d responses, %d calls:\n%s", len(lines), s.Calls, out.String())
	}
	for i, want := range []string{`"protocolVersion":"2025-06-18"`, `"name":"fixture_tool"`, `{"jsonrpc":"2.0","id":"a","result":{"content":[]}}`, `"code":-32601`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("response %d %s lacks %s", i, lines[i], want)
		}
	}
}
