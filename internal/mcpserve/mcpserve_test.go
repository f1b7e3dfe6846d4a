package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// hostile is a fixture whose bytes must reach the client as written: insignificant whitespace
// goes, numbers, escapes and key order stay.
const hostile = `{
  "structuredContent": {"z": 1e2, "a": 9007199254740993, "s": "\u2028 \"*/ <script>\u202e"},
  "content": [ {"type": "text", "text": "\/ ok"} ]
}`

const errorEnvelope = `{"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "boom"}}`

const resultEnvelope = `{"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": false}}`

func TestHandle(t *testing.T) {
	builtin := []string{"2025-06-18", "2025-11-25", "2026-07-28"}
	one := &Server{Revisions: builtin, Fixtures: []Fixture{{ID: "H1", Revision: "2025-11-25", Bytes: []byte(hostile)}}}
	errSrv := &Server{Revisions: builtin, Fixtures: []Fixture{{ID: "E1", Revision: "2025-11-25", Bytes: []byte(errorEnvelope)}}}
	resSrv := &Server{Revisions: builtin, Fixtures: []Fixture{{ID: "E2", Revision: "2025-11-25", Bytes: []byte(resultEnvelope)}}}
	newer := &Server{Revisions: builtin, Fixtures: []Fixture{{ID: "N1", Revision: "2026-07-28", Bytes: []byte(`{"content":[],"resultType":"complete"}`)}}}
	// A user's schema layers add a dated revision, offered, and drafts (a draft name, a date with a
	// suffix), never offered: the draft fixture is served under the default revision.
	layered := &Server{Revisions: append(builtin, "2026-12-01-draft", "2027-01-01", "DRAFT-2026-v1"), Fixtures: []Fixture{{ID: "U1", Revision: "DRAFT-2026-v1", Bytes: []byte(`{"content":[],"structuredContent":[1]}`)}}}
	batch := &Server{Tool: "t", Fixtures: []Fixture{{ID: "A", Bytes: []byte(`{"content":[]}`)}, {ID: "B", Bytes: []byte(`{"content":[{"type":"text","text":"b"}]}`)}}}
	tests := []struct {
		name string
		srv  *Server
		msg  string
		want string
	}{
		{"call serves the fixture compacted, numbers and escapes kept", one,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"z":1e2,"a":9007199254740993,"s":"\u2028 \"*/ <script>\u202e"},"content":[{"type":"text","text":"\/ ok"}]}}`},
		{"a 2026-07-28 call gets resultType after the fixture's own bytes", one,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"z":1e2,"a":9007199254740993,"s":"\u2028 \"*/ <script>\u202e"},"content":[{"type":"text","text":"\/ ok"}],"resultType":"complete"}}`},
		{"a 2026-07-28 result envelope's result gets resultType", resSrv,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_tool","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false,"resultType":"complete"}}`},
		{"a 2026-07-28 error envelope is served as it is", errSrv,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_tool","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`},
		{"a 2026-07-28 fixture keeps its own resultType", newer,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_tool","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}`},
		{"a 2026-07-28 ping carries resultType", one,
			`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`},
		{"a protocol version in _meta the server does not offer is refused with the ones it does", one,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version 2099-01-01","data":{"requested":"2099-01-01","supported":["2025-11-25","2026-07-28","2025-06-18"]}}}`},
		{"initialize never answers with a revision initialize does not negotiate", newer,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}}`},
		{"a string id is kept", one,
			`{"jsonrpc":"2.0","id":"x\"y","method":"ping"}`, `{"jsonrpc":"2.0","id":"x\"y","result":{}}`},
		{"an error envelope is served as an error under the request's id", errSrv,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_tool"}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`},
		{"a result envelope is served as its result", resSrv,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_tool"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`},
		{"initialize speaks the client's revision", one,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}}`},
		{"initialize with an unknown revision gets the fixture's", one,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}}`},
		{"discover offers the fixture's revision first", newer,
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25","2025-06-18"],"capabilities":{"tools":{}},"cacheScope":"public","ttlMs":0,"resultType":"complete"}}`},
		{"discover offers a layer's dated revision, not its draft", layered,
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25","2027-01-01","2026-07-28","2025-06-18"],"capabilities":{"tools":{}},"cacheScope":"public","ttlMs":0,"resultType":"complete"}}`},
		{"initialize does not speak a draft", layered,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"DRAFT-2026-v1"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}}`},
		{"a draft fixture is served as it is", layered,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fixture_tool","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":[1]}}`},
		{"a 2026-07-28 tools/list carries the cache fields", newer,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"fixture_tool","description":"Returns the fixture result.","inputSchema":{"type":"object","properties":{}}}],"cacheScope":"public","ttlMs":0,"resultType":"complete"}}`},
		{"batch lists the fixture argument", batch,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","description":"Returns the fixture result.","inputSchema":{"type":"object","properties":{"fixture":{"type":"string","description":"The fixture to return."}}}}]}}`},
		{"batch serves the fixture a call names", batch,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{"fixture":"B"}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"b"}]}}`},
		{"batch refuses a call naming no fixture", batch,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"tools/call: no fixture for arguments {}"}}`},
		{"an unknown tool is an error", one,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"other"}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"unknown tool \"other\" (the server lists \"fixture_tool\")"}}`},
		{"an unknown method is an error", one,
			`{"jsonrpc":"2.0","id":6,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"method not found: resources/list"}}`},
		{"a notification gets no answer", one, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.srv.Handle([]byte(tt.msg))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if len(got) > 0 && !json.Valid(got) {
				t.Errorf("answer is not JSON: %s", got)
			}
		})
	}
}

func TestCallsAreCounted(t *testing.T) {
	var seen []Call
	s := &Server{Fixtures: []Fixture{{ID: "F", Bytes: []byte(`{"content":[]}`)}}, OnCall: func(c Call) { seen = append(seen, c) }}
	for range 2 {
		if _, err := s.Handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fixture_tool","arguments":{"q":1}}}`)); err != nil {
			t.Fatal(err)
		}
	}
	calls := s.Calls()
	if len(calls) != 2 || len(seen) != 2 || calls[1].Index != 1 || calls[0].Fixture != "F" || string(calls[0].Arguments) != `{"q":1}` {
		t.Errorf("calls %+v, seen %+v", calls, seen)
	}
}

func TestNotJSONRPC(t *testing.T) {
	s := &Server{}
	if _, err := s.Handle([]byte(`{"jsonrpc":`)); err == nil {
		t.Error("a truncated message was accepted")
	}
}

// TestReadRequest: a request is decoded with its params as the reader's type and is to be
// answered; a notification (no id or a null one) and a response (no method) are not; bytes that
// are not JSON-RPC, or params that are not the reader's type, are an error.
func TestReadRequest(t *testing.T) {
	type params struct {
		Name      string `json:"name"`
		Arguments struct {
			Which string `json:"which"`
		} `json:"arguments"`
	}
	tests := []struct {
		name    string
		msg     string
		answer  bool
		id      string
		which   string
		wantErr string
	}{
		{name: "request", msg: `{"jsonrpc":"2.0","id":"a\u2028","method":"tools/call","params":{"name":"t","arguments":{"which":"x"}}}`, answer: true, id: `"a\u2028"`, which: "x"},
		{name: "request without params", msg: `{"jsonrpc":"2.0","id":0,"method":"ping"}`, answer: true, id: `0`},
		{name: "notification", msg: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{name: "null id is a notification", msg: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, id: `null`},
		{name: "response", msg: `{"jsonrpc":"2.0","id":3,"result":{}}`, id: `3`},
		{name: "not JSON", msg: `{"jsonrpc":`, wantErr: "mcpserve: not a JSON-RPC message"},
		{name: "params of another shape", msg: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`, wantErr: "mcpserve: not a JSON-RPC message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, answer, err := ReadRequest[params]([]byte(tc.msg))
			if testkit.ErrCase(t, err, tc.wantErr) {
				return
			}
			if answer != tc.answer || string(req.ID) != tc.id || req.Params.Arguments.Which != tc.which {
				t.Errorf("answer %v, id %s, which %q; want %v, %s, %q", answer, req.ID, req.Params.Arguments.Which, tc.answer, tc.id, tc.which)
			}
		})
	}
}

// TestServeLines: each non-blank line goes to the handler and its answer, if any, comes back as
// one line in order; a handler's error ends the loop with it.
func TestServeLines(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{name: "answers in order, blank lines and nil answers skipped", in: "a\n\n  \nquiet\nb", want: "<a>\n<b>\n"},
		{name: "handler error ends the loop", in: "a\nfail\nb\n", want: "<a>\n", wantErr: "fail refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := ServeLines(strings.NewReader(tc.in), &out, func(line []byte) ([]byte, error) {
				switch string(line) {
				case "quiet":
					return nil, nil
				case "fail":
					return nil, fmt.Errorf("%s refused", line)
				}
				return []byte("<" + string(line) + ">"), nil
			})
			if (err == nil) != (tc.wantErr == "") || (err != nil && err.Error() != tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if out.String() != tc.want {
				t.Errorf("wrote %q, want %q", out.String(), tc.want)
			}
		})
	}
}

func TestStreamableHTTPAndRelay(t *testing.T) {
	s := &Server{Fixtures: []Fixture{{ID: "H1", Bytes: []byte(hostile)}}}
	ts := httptest.NewServer(s)
	defer ts.Close()

	t.Run("POST a request", func(t *testing.T) {
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Mcp-Session-Id") == "" || string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("%s %v %s", resp.Status, resp.Header, body)
		}
	})
	for _, tc := range []struct {
		name, method, body string
		status             int
	}{
		{name: "POST a notification", method: http.MethodPost, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: http.StatusAccepted},
		{name: "GET is not allowed", method: http.MethodGet, status: http.StatusMethodNotAllowed},
		{name: "POST bytes that are not JSON-RPC", method: http.MethodPost, body: `nope`, status: http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := testkit.Do(t, tc.method, ts.URL, map[string]string{"Content-Type": "application/json"}, tc.body); resp.StatusCode != tc.status {
				t.Errorf("status %s, want %d", resp.Status, tc.status)
			}
		})
	}
	t.Run("relay stdio lines to the endpoint", func(t *testing.T) {
		in := strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n\n" +
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fixture_tool"}}` + "\n")
		var out bytes.Buffer
		if err := Relay(ts.Client(), ts.URL, in, &out); err != nil {
			t.Fatal(err)
		}
		want := `{"jsonrpc":"2.0","id":9,"result":{"structuredContent":{"z":1e2,"a":9007199254740993,"s":"\u2028 \"*/ <script>\u202e"},"content":[{"type":"text","text":"\/ ok"}]}}` + "\n"
		if out.String() != want {
			t.Errorf("got  %s\nwant %s", out.String(), want)
		}
	})
	t.Run("stdio stream", func(t *testing.T) {
		var out bytes.Buffer
		if err := s.ServeStream(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		if out.String() != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
			t.Errorf("got %q", out.String())
		}
	})
}

// TestNegotiationIsRecorded: every call says the revision it was answered under, how the client
// chose it, what was added to the fixture, and, when the fixture could not be served under it,
// why (and the client got an error naming the fixture and both revisions).
func TestNegotiationIsRecorded(t *testing.T) {
	v, err := schema.New(mustSub(t, "schemas"))
	if err != nil {
		t.Fatal(err)
	}
	call := func(meta string) string {
		if meta == "" {
			return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fixture_tool"}}`
		}
		return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"fixture_tool","_meta":{"io.modelcontextprotocol/protocolVersion":"` + meta + `"}}}`
	}
	old := Fixture{ID: "C", Revision: "2025-11-25", Bytes: []byte(`{"content":[]}`)}
	arr := Fixture{ID: "X", Revision: "2026-07-28", Bytes: []byte(`{"content":[],"structuredContent":[1],"resultType":"complete"}`)}
	tests := []struct {
		name    string
		fixture Fixture
		msgs    []string
		want    Call
		refused string // what the refusal (and the client's error) says; "" when served
	}{
		{"initialize", old, []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, call("")},
			Call{Fixture: "C", Revision: "2025-06-18", Via: ViaInitialize}, ""},
		{"server/discover, then _meta", old, []string{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, call("2026-07-28")},
			Call{Fixture: "C", Revision: "2026-07-28", Via: ViaDiscover, Added: []string{"resultType"}}, ""},
		{"_meta alone", old, []string{call("2026-07-28")},
			Call{Fixture: "C", Revision: "2026-07-28", Via: ViaMeta, Added: []string{"resultType"}}, ""},
		{"neither", old, []string{call("")}, Call{Fixture: "C", Revision: "2025-11-25", Via: ViaDefault}, ""},
		{"a 2026-07-28 array structuredContent under 2025-11-25", arr,
			[]string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, call("")},
			Call{Fixture: "X", Revision: "2025-11-25", Via: ViaInitialize},
			"fixture X (revision 2026-07-28) cannot be served under MCP revision 2025-11-25, which the client negotiated through initialize: the 2025-11-25 schema refuses it: response: /result/structuredContent: got array, want object"},
		{"the same fixture under 2026-07-28", arr, []string{call("2026-07-28")}, Call{Fixture: "X", Revision: "2026-07-28", Via: ViaMeta}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{Revisions: []string{"2025-06-18", "2025-11-25", "2026-07-28"}, Fixtures: []Fixture{tt.fixture}, Validate: SchemaValidator(v)}
			var last []byte
			for _, m := range tt.msgs {
				var err error
				if last, err = s.Handle([]byte(m)); err != nil {
					t.Fatal(err)
				}
			}
			calls := s.Calls()
			if len(calls) != 1 {
				t.Fatalf("calls %+v", calls)
			}
			got := calls[0]
			refused := got.Refused
			got.Refused = nil
			want := tt.want
			want.Arguments = got.Arguments
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("call %+v, want %+v", got, want)
			}
			switch {
			case tt.refused == "" && refused != nil:
				t.Errorf("refused: %v", refused)
			case tt.refused == "":
				if !bytes.Contains(last, []byte(`"result"`)) {
					t.Errorf("not served: %s", last)
				}
			case refused == nil || !strings.HasPrefix(refused.Error(), tt.refused):
				t.Errorf("refusal %v, want %q…", refused, tt.refused)
			case !bytes.Contains(last, []byte(`"error":{"code":-32603,"message":"contractcheck: `+tt.refused)):
				t.Errorf("the client's error does not say it: %s", last)
			}
		})
	}
}
