package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/examples/internal/rawmcp"
	"github.com/contractcheck/contractcheck/examples/internal/record"
)

func TestRaisedBy(t *testing.T) {
	b, err := json.Marshal(RaisedBy(errors.New("Unknown tool: x")))
	if err != nil || string(b) != `{"error":{"message":"Unknown tool: x"}}` {
		t.Fatalf("got %s, %v", b, err)
	}
}

// libResult is a library's decoded result with a MarshalJSON of its own, as the SDKs' results have.
type libResult struct{ Text string }

func (r libResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": r.Text}}})
}

func TestD1Carrier(t *testing.T) {
	cases := []struct {
		name     string
		res      any
		callErr  error
		rpcError bool
		want     string // the carrier's JSON
		wantErr  string // or the error that makes D1 execution_failed
	}{
		{name: "a result is re-encoded by the library", res: libResult{Text: "ok"}, want: `{"content":[{"text":"ok","type":"text"}]}`},
		{name: "a server's JSON-RPC error is raised", callErr: errors.New("Unknown tool: x"), rpcError: true, want: `{"error":{"message":"Unknown tool: x"}}`},
		{name: "another failure is execution_failed", callErr: errors.New("decoding the result: unexpected end"), wantErr: "decoding the result: unexpected end"},
		{name: "a result the library cannot encode is execution_failed", res: func() {}, wantErr: "re-encoding the decoded result: json: unsupported type: func()"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			carrier, err := D1Carrier(tc.res, tc.callErr, tc.rpcError)
			checkCarrier(t, carrier, err, tc.want, tc.wantErr)
		})
	}
}

// checkCarrier holds a D1 carrier and its error to the carrier's JSON want, or to the error
// wantErr (D1 execution_failed) when that is not empty.
func checkCarrier(t *testing.T, carrier any, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("carrier %v, error %v; want the error %q", carrier, err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(carrier)
	if err != nil || string(b) != want {
		t.Fatalf("carrier %s (%v), want %s", b, err, want)
	}
}

// lineClient calls the fixture tool n times over pipes, one JSON-RPC line each way, as a client
// library would, and returns the last result: a JSON-RPC error is the call's error, marked as
// the server's; a transport failure is the call's error too.
func lineClient(n int) func(ctx context.Context, pipes *Pipes) (Call, error) {
	return func(_ context.Context, pipes *Pipes) (Call, error) {
		in := bufio.NewReader(pipes.In)
		var c Call
		for i := 1; i <= n; i++ {
			if _, err := fmt.Fprintf(pipes.Out, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`+"\n", i, rawmcp.ToolName); err != nil {
				return Call{Err: err}, nil
			}
			line, err := in.ReadBytes('\n')
			if err != nil {
				return Call{Err: err}, nil
			}
			var resp struct {
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(line, &resp); err != nil {
				return Call{}, err
			}
			c = Call{Result: resp.Result}
			if resp.Error != nil {
				c = Call{Err: errors.New(resp.Error.Message), RPCError: true}
			}
		}
		return c, nil
	}
}

func TestCaptureD1(t *testing.T) {
	cases := []struct {
		name    string
		fixture string
		call    func(ctx context.Context, pipes *Pipes) (Call, error)
		want    string // the carrier's JSON
		wantErr string // or the error that makes D1 execution_failed
	}{
		{name: "the result of one call", fixture: `{"content": [ {"type":"text","text":"ok"} ]}`, call: lineClient(1),
			want: `{"content":[{"type":"text","text":"ok"}]}`},
		{name: "the server's JSON-RPC error is raised", fixture: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}`, call: lineClient(1),
			want: `{"error":{"message":"Unknown tool"}}`},
		{name: "a second call is refused", fixture: `{"content":[]}`, call: lineClient(2), wantErr: "the client sent 2 tools/call requests, want 1"},
		{name: "no call is refused", fixture: `{"content":[]}`, call: lineClient(0), wantErr: "the client sent 0 tools/call requests, want 1"},
		{name: "the client's own failure", fixture: `{"content":[]}`, call: func(context.Context, *Pipes) (Call, error) { return Call{}, errors.New("connect: refused") },
			wantErr: "connect: refused"},
		// The server's failure is named, not the client's (EOF) that followed from it.
		{name: "the server's failure", fixture: `not json`, call: lineClient(1), wantErr: "raw server: fixture: invalid character 'o' in literal null (expecting 'u')"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			carrier, err := CaptureD1([]byte(tc.fixture), tc.call)
			checkCarrier(t, carrier, err, tc.want, tc.wantErr)
		})
	}
}

func TestModuleVersionOfAModuleNotLinked(t *testing.T) {
	if _, err := ModuleVersion("example.com/not/linked"); err == nil {
		t.Fatal("no error for a module that is not linked")
	}
}

func TestServeClosedBeforeAnyRequest(t *testing.T) {
	p := Serve([]byte(`{"content":[]}`))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.CalledOnce(); err == nil || !strings.Contains(err.Error(), "0 tools/call") {
		t.Fatalf("CalledOnce = %v", err)
	}
}

func TestWriteD1Lane(t *testing.T) {
	var buf bytes.Buffer
	w := &record.Writer{W: &buf, Lane: "l", LaneVersion: "v", Configuration: "default", Repetition: 1}
	calls := 0
	err := WriteD1Lane(w, "../../../fixtures/sources", func(fixture []byte) (any, error) {
		calls++
		if calls == 1 {
			return nil, errors.New("boom")
		}
		return json.RawMessage(`{}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4*calls {
		t.Fatalf("%d records for %d fixtures", len(lines), calls)
	}
	for i, want := range []string{`"stage":"D1","repetition":1,"state":"execution_failed"`, `"stage":"A2","repetition":1,"state":"not_applicable"`, `"stage":"D1","repetition":1,"state":"captured"`} {
		line := lines[[]int{0, 1, 4}[i]]
		if !strings.Contains(line, want) {
			t.Errorf("record %s lacks %s", line, want)
		}
	}
}
