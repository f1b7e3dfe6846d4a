package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

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
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("D1Carrier = %v, %v; want the error %q", carrier, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(carrier)
			if err != nil || string(b) != tc.want {
				t.Fatalf("carrier %s (%v), want %s", b, err, tc.want)
			}
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
