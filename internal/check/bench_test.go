package check

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/bench"
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
	set, err := bench.Generate(dir, bench.Options{Bindings: benchBindings, Repetitions: repetitions, Unique: unique})
	if err != nil {
		b.Fatal(err)
	}
	obs, bindings := set.Observations, set.Bindings
	in, err := Load(ctx, Options{Contracts: []string{set.Contracts}, Profile: "bench"})
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

// benchBindings is the size of BenchmarkCheckMatrix's sets; CONTRACTCHECK_BENCH_BINDINGS changes
// it (scripts/bench runs the command line on larger sets).
var benchBindings = func() int {
	if n, err := strconv.Atoi(os.Getenv("CONTRACTCHECK_BENCH_BINDINGS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}()
