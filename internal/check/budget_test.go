package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// processMemory is what the memory budget holds the process to: the Go runtime's memory less
// what it released, or the resident memory when that is larger.
func processMemory(t *testing.T) int64 {
	t.Helper()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	used := int64(ms.Sys - ms.HeapReleased)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				used = max(used, pages*int64(os.Getpagesize()))
			}
		}
	}
	return used
}

// TestLargeRecordRefusedWithinTheBudget: a record whose decoding and evaluation would cost more
// than the memory budget has room for (a carrier of 200,000 content blocks: its decoded tree,
// views, policy input and diagnostics come to about a gigabyte) is refused before it is decoded,
// with a *guard.LimitError naming its file, line and size and the budget (exit 3); the records
// before it were read, and the run allocated a small part of what the record would have cost.
// The watchdog alone stopped such a record only after it had been decoded and evaluated well
// past the budget (500,000 blocks under 256 MiB: 715 MB).
func TestLargeRecordRefusedWithinTheBudget(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "observations", "direct", "v1", "default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var rec map[string]any
	if err := json.Unmarshal(first, &rec); err != nil {
		t.Fatal(err)
	}
	rec["stage"] = "A2" // the record before it is D1's
	blocks := make([]any, 200_000)
	for i := range blocks {
		blocks[i] = map[string]any{"type": "text", "text": "x"}
	}
	rec["carrier"] = map[string]any{"content": blocks}
	big, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "obs.jsonl"), append(append(append(first, '\n'), big...), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks, rec, big = nil, nil, nil
	debug.FreeOSMemory()
	budget := (processMemory(t) + 192<<20) &^ (1<<20 - 1)
	ctx, stop := guard.Watch(guard.WithLimits(context.Background(), guard.Limits{Memory: budget, Target: -1}))
	defer stop()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Run(ctx, inputs.Options{Observations: []string{dir}, Workers: 2})
	runtime.ReadMemStats(&after)
	var le *guard.LimitError
	if !errors.As(err, &le) || result.ExitCode(err) != 3 {
		t.Fatalf("got %v (exit %d), want a *guard.LimitError (exit 3)", err, result.ExitCode(err))
	}
	want := "obs.jsonl:2: a record of 5.2 MiB and 600012 JSON values: stopped at the memory budget of " + guard.Size(budget) + ": it needs about "
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to contain %q", err, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 160<<20 {
		t.Errorf("the run allocated %d MiB: the record was read past its admission", alloc>>20)
	}
}
