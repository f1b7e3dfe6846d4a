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
