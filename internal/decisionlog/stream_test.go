package decisionlog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestBatchHoldsOneEventAtATime: a batch file (a JSON array of events, as OPA uploads them) is
// read event by event, as collect reads an upload: at its last decision, Read holds about one
// event's tree, not the whole batch's (decoded whole, a 4 MB batch is tens of MB of maps).
func TestBatchHoldsOneEventAtATime(t *testing.T) {
	data, err := os.ReadFile("testdata/console.log")
	if err != nil {
		t.Fatal(err)
	}
	var decisions []map[string]any
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		v, err := strictjson.Decode("console.log", line, strictjson.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		if ev := v.(map[string]any); ev["path"] == "contractcheck/decision" {
			decisions = append(decisions, ev)
		}
	}
	if len(decisions) == 0 {
		t.Fatal("testdata/console.log holds no decision")
	}
	var batch []any
	for i := 0; len(batch) < 6000; i++ {
		ev := map[string]any{}
		for k, v := range decisions[i%len(decisions)] {
			ev[k] = v
		}
		ev["decision_id"] = "id-" + strconv.Itoa(i)
		batch = append(batch, ev)
	}
	raw, err := strictjson.Marshal(batch)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "batch.json")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	size, events := len(raw), len(batch)
	raw, batch, decisions = nil, nil, nil
	base := testkit.LiveHeap()
	held, n := int64(-1), 0
	c, err := Read(context.Background(), []string{file}, nil, func(*Decision) error {
		if n++; n == events {
			held = testkit.LiveHeap()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if held < 0 {
		t.Fatalf("%d decisions read of %d events (%+v)", n, events, c)
	}
	if grew := held - base; grew > int64(size)/4 {
		t.Fatalf("at the last decision of a batch of %d events (%d bytes), Read held %d bytes more than before: the batch's tree, not one event", events, size, grew)
	}
	t.Logf("%d events, %d bytes: %d bytes held at the last", events, size, held-base)
}
