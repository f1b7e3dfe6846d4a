package check

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/contract"
)

// BenchmarkCheckBuiltin is `contractcheck check` on the built-in data, instrument load included.
func BenchmarkCheckBuiltin(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(ctx, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckMatrix checks a generated matrix of about 100,000 bindings: a generated lane
// "bench" with enough versions that every fixture at every stage of every version gives the
// count. Every other version's carriers lose structuredContent, isError and block annotations, so
// both passes and unmet bindings with diagnostics are evaluated. It reports bindings/s and the
// peak heap in use.
//
// "unique": one repetition, and every version's carriers carry a result _meta entry naming the
// version, so no two bindings have the same policy input and every one is evaluated.
// "repeated": three identical repetitions per position, as captures are, with the versions'
// carriers repeating too; the memoized verdicts serve the repeats.
func BenchmarkCheckMatrix(b *testing.B) {
	b.Run("unique", func(b *testing.B) { benchMatrix(b, 1, true) })
	b.Run("repeated", func(b *testing.B) { benchMatrix(b, 3, false) })
}

func benchMatrix(b *testing.B, repetitions int, unique bool) {
	ctx := context.Background()
	dir := b.TempDir()
	contracts, obs, bindings := generateMatrix(b, dir, 100_000, repetitions, unique)
	in, err := Load(ctx, Options{Contracts: []string{contracts}})
	if err != nil {
		b.Fatal(err)
	}
	d := UserDir(obs)
	files, err := RecordFiles(d)
	if err != nil {
		b.Fatal(err)
	}
	peak := watchHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		in.verdicts.Clear() // each iteration starts as a fresh process would
		r, err := in.Check(ctx, files, 0)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Results) != bindings {
			b.Fatalf("%d results, want %d", len(r.Results), bindings)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(bindings)*float64(b.N)/b.Elapsed().Seconds(), "bindings/s")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
}

// watchHeap samples the heap in use until the returned function is called, which returns the peak.
func watchHeap() func() uint64 {
	var mu sync.Mutex
	var max uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			mu.Lock()
			if ms.HeapInuse > max {
				max = ms.HeapInuse
			}
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return max
	}
}

// generateMatrix writes a contracts directory (the built-in one plus a generated lane) and an
// observations directory with about want bindings, and returns their paths and the exact count.
func generateMatrix(tb testing.TB, dir string, want, repetitions int, unique bool) (string, string, int) {
	tb.Helper()
	contracts := filepath.Join(dir, "contracts")
	if err := os.MkdirAll(contracts, 0o755); err != nil {
		tb.Fatal(err)
	}
	in, err := Load(context.Background(), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	perVersion := 0
	m := in.Model
	for _, f := range m.Fixtures {
		perVersion += 4 * len(f.Tasks)
	}
	versions := (want + perVersion - 1) / perVersion
	var names []string
	for v := range versions {
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("v%d", v)))
	}
	lane := fmt.Sprintf(`package contracts

lanes: bench: {
	doc:    "A generated lane for the benchmark: every stage reads the whole result."
	origin: "captured"
	versions: [%s]
	configurations: default: doc: "The only configuration."
	stages: {
		D1: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
		A2: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
		M3: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
		H4: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
	}
}
`, strings.Join(names, ", "))
	if err := os.WriteFile(filepath.Join(contracts, "bench.cue"), []byte(lane), 0o644); err != nil {
		tb.Fatal(err)
	}
	obs := filepath.Join(dir, "observations")
	if err := os.MkdirAll(obs, 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(filepath.Join(obs, "bench.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for v := range versions {
		for _, id := range contract.SortedKeys(m.Fixtures) {
			src := in.Sources[id]
			carrier := src.Doc
			if v%2 == 1 {
				carrier = degrade(carrier)
			}
			if unique {
				carrier = withVersionMeta(carrier, v)
			}
			for _, st := range []string{"D1", "A2", "M3", "H4"} {
				for rep := 1; rep <= repetitions; rep++ {
					err := enc.Encode(map[string]any{
						"fixture": id, "lane": "bench", "laneVersion": fmt.Sprintf("v%d", v), "configuration": "default",
						"stage": st, "repetition": rep, "state": "captured", "carrier": carrier,
						"sourceSha256": src.Sha256, "origin": "captured",
					})
					if err != nil {
						tb.Fatal(err)
					}
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return contracts, obs, versions * perVersion
}

// withVersionMeta adds a result _meta entry naming the version (inside a JSON-RPC envelope's
// result when there is one), which every compartment of the lane reads.
func withVersionMeta(doc any, v int) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := map[string]any{}
	for k, x := range m {
		out[k] = x
	}
	if res, ok := m["result"]; ok {
		out["result"] = withVersionMeta(res, v)
		return out
	}
	if _, isRPC := m["jsonrpc"]; isRPC {
		return out
	}
	meta := map[string]any{}
	if old, ok := m["_meta"].(map[string]any); ok {
		for k, x := range old {
			meta[k] = x
		}
	}
	meta["bench/version"] = json.Number(fmt.Sprint(v))
	out["_meta"] = meta
	return out
}

// degrade drops what frameworks are seen to drop: structuredContent, isError and block annotations.
func degrade(doc any) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := map[string]any{}
	for k, v := range m {
		if k != "structuredContent" && k != "isError" {
			out[k] = v
		}
	}
	if content, ok := m["content"].([]any); ok {
		blocks := make([]any, len(content))
		for i, c := range content {
			if b, ok := c.(map[string]any); ok {
				nb := map[string]any{}
				for k, v := range b {
					if k != "annotations" {
						nb[k] = v
					}
				}
				blocks[i] = nb
			} else {
				blocks[i] = c
			}
		}
		out["content"] = blocks
	}
	return out
}
