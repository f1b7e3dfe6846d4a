package check

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/bench"
	"github.com/contractcheck/contractcheck/internal/census"
	"github.com/contractcheck/contractcheck/internal/censusdir"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestGeneratedSetCount keeps the benchmarks' generator honest: the bindings it says a set holds
// are the ones a check of it evaluates, whatever tasks, selectors and stages the built-in
// contracts gain, so that a bindings/s figure divides by the right number.
func TestGeneratedSetCount(t *testing.T) {
	tests := []struct {
		name        string
		bindings    int
		repetitions int
		unique      bool
	}{
		{name: "unique", bindings: 500, repetitions: 1, unique: true},
		{name: "repeated", bindings: 500, repetitions: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			set, err := bench.Generate(t.TempDir(), bench.Options{Bindings: tc.bindings, Repetitions: tc.repetitions, Unique: tc.unique})
			if err != nil {
				t.Fatal(err)
			}
			if set.Bindings < tc.bindings {
				t.Fatalf("the set holds %d bindings, fewer than the %d asked for", set.Bindings, tc.bindings)
			}
			in, files := loadSet(t, set)
			r, err := RunWith(ctx, in, files, 0)
			if err != nil {
				t.Fatal(err)
			}
			if r.Len() != set.Bindings {
				t.Fatalf("a check of the set gives %d results, the generator says %d", r.Len(), set.Bindings)
			}
		})
	}
}

// BenchmarkCheckBuiltin is `contractcheck check` on the built-in data, instrument load included.
func BenchmarkCheckBuiltin(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(ctx, inputs.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckMatrix checks a generated matrix of about 100,000 bindings: a generated lane
// "bench" with enough versions that every fixture at every stage of every version gives the
// count. Every other version's carriers lose structuredContent, isError and block annotations, so
// both passes and unmet bindings with diagnostics are evaluated. It reports bindings/s, the
// peak heap in use and the heap the report keeps per binding.
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
	bindings := set.Bindings
	in, files := loadSet(b, set)
	in.WaitWarm() // the background carrier compile's garbage is not the census's
	settle()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := watchHeap()
	// The watchdog and the collector's pacing the command line runs under (guard.Watch: GOGC=200
	// below the memory target), so that the cost per binding is the command line's.
	wctx, stop := guard.Watch(ctx)
	defer stop()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuClock()
	var r *result.Report
	for b.Loop() {
		in.ForgetVerdicts() // each iteration starts as a fresh process would
		r, err = RunWith(wctx, in, files, 0)
		if err != nil {
			b.Fatal(err)
		}
		if r.Len() != bindings {
			b.Fatalf("%d results, want %d", r.Len(), bindings)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuClock()-cpu)/1e3/float64(bindings*b.N), "cpu-µs/binding")
	b.ReportMetric(float64(in.Evaluations())/float64(bindings), "evals/binding")
	b.ReportMetric(float64(bindings)*float64(b.N)/b.Elapsed().Seconds(), "bindings/s")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
	// What the report holds, the census, is what grows with the run (docs/design.md).
	in.ForgetVerdicts()
	settle()
	var held runtime.MemStats
	runtime.ReadMemStats(&held)
	b.ReportMetric((float64(held.HeapAlloc)-float64(base.HeapAlloc))/float64(bindings), "report-B/binding")
	runtime.KeepAlive(r)
	runtime.KeepAlive(in) // else the instrument, in base, is collected before held is read
}

// settle collects until what sync.Pools kept is gone too (a pool's objects survive one
// collection): the heap in use is then what is reachable.
func settle() {
	runtime.GC()
	runtime.GC()
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

// loadSet loads a generated set's instrument (its contracts, profile bench) and lists its record
// files: what a check of the set reads.
func loadSet(tb testing.TB, set bench.Set) (*instrument.Instrument, []inputs.RecordFile) {
	tb.Helper()
	in, err := instrument.Load(context.Background(), inputs.Options{Contracts: []string{set.Contracts}, Profile: "bench"})
	if err != nil {
		tb.Fatal(err)
	}
	files, err := inputs.RecordFiles(inputs.UserDir(set.Observations))
	if err != nil {
		tb.Fatal(err)
	}
	return in, files
}

// cpuClock returns the CPU time (user and system, every thread, the garbage collector's
// included) the process has used. Beside wall time it gives a per-binding cost that does not
// depend on what else the machine runs, and counts the collector's work on other cores.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchBindings is the size of BenchmarkCheckMatrix's sets; CONTRACTCHECK_BENCH_BINDINGS changes
// it (scripts/bench runs the command line on larger sets).
var benchBindings = func() int {
	if n, err := strconv.Atoi(os.Getenv("CONTRACTCHECK_BENCH_BINDINGS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}()

// BenchmarkCensusMerge measures issue 45's goal "merging two half-censuses costs ≤ 10% of building
// the whole one": a generated set (benchBindings, every policy input distinct) is split by
// fixture into two censuses (check --census-out, outside the timing), and each iteration builds
// the whole census from the records (RunWith, the verdicts forgotten as in a fresh process) and
// reports on the union of the halves (FromCensuses), both to the report. It reports each one's
// milliseconds and merge/build, the goal's ratio, by wall time and by CPU time.
func BenchmarkCensusMerge(b *testing.B) {
	ctx := context.Background()
	set, err := bench.Generate(b.TempDir(), bench.Options{Bindings: benchBindings, Repetitions: 1, Unique: true})
	if err != nil {
		b.Fatal(err)
	}
	in, files := loadSet(b, set)
	fixtures := contract.SortedKeys(in.Model.Fixtures)
	var halves []string
	for _, part := range [][]string{fixtures[:len(fixtures)/2], fixtures[len(fixtures)/2:]} {
		o := inputs.Options{Contracts: []string{set.Contracts}, Profile: "bench", Scope: result.Scope{Fixtures: part}}
		hin, err := instrument.Load(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		dir := filepath.Join(b.TempDir(), "census")
		set, err := censusdir.SetOf(hin.Options())
		if err != nil {
			b.Fatal(err)
		}
		w, err := censusdir.Create(dir, set)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := runWith(ctx, hin, files, 0, w, census.Options{}); err != nil && !result.IsInstrumentFailure(err) {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		halves = append(halves, dir)
	}
	in.WaitWarm()
	wctx, stop := guard.Watch(ctx)
	defer stop()
	var build, merge, buildCPU, mergeCPU time.Duration
	for b.Loop() {
		in.ForgetVerdicts()
		// Each side starts from a collected heap, with nothing of the other live: as each runs in
		// a process of its own, neither pays for marking the other's report or collecting its
		// garbage.
		runtime.GC()
		start, startCPU := time.Now(), cpuClock()
		whole, err := RunWith(wctx, in, files, 0)
		if err != nil {
			b.Fatal(err)
		}
		end, endCPU := time.Now(), cpuClock()
		wholeLen := whole.Len() // whole's last use: its report is not live while the merge runs
		runtime.GC()
		mid, midCPU := time.Now(), cpuClock()
		merged, _, err := FromCensuses(wctx, in, halves, "")
		if err != nil {
			b.Fatal(err)
		}
		merge += time.Since(mid)
		mergeCPU += cpuClock() - midCPU
		build += end.Sub(start)
		buildCPU += endCPU - startCPU
		if merged.Len() != wholeLen || merged.Len() != set.Bindings {
			b.Fatalf("merged %d bindings, whole %d, the set %d", merged.Len(), wholeLen, set.Bindings)
		}
	}
	b.ReportMetric(float64(build.Milliseconds())/float64(b.N), "build-ms")
	b.ReportMetric(float64(merge.Milliseconds())/float64(b.N), "merge-ms")
	b.ReportMetric(float64(merge)/float64(build), "merge/build")
	// CPU time, which a shared machine disturbs less than wall time (both use every core).
	b.ReportMetric(float64(mergeCPU)/float64(buildCPU), "cpu-merge/build")
}
