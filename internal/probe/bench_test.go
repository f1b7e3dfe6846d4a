package probe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkProbe probes the whole built-in catalogue through the Go test agent (Chat Completions,
// streamed, Streamable HTTP), one repetition, once starting the agent per fixture and once in
// batch mode. Besides ns/op it reports the agent's start-up (a run of the same binary that exits
// at once, median of 5) and, for batch mode, the goal for it, 3 × start-up + 10 ms a
// fixture, and the run's share of that goal (of-goal ≤ 1 meets it):
//
//	go test ./internal/probe -run '^$' -bench Probe -count 6 | tee probe.txt; benchstat probe.txt
func BenchmarkProbe(b *testing.B) {
	startup := agentStartup(b)
	for _, mode := range []struct {
		name  string
		batch bool
	}{{"per-fixture", false}, {"batch", true}} {
		b.Run(mode.name, func(b *testing.B) {
			fixtures := 0
			for i := 0; b.Loop(); i++ {
				fixtures = benchProbe(b, func(o *Options) { o.Batch = mode.batch }).Captured
			}
			perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(fixtures), "fixtures")
			b.ReportMetric(float64(startup.Nanoseconds()), "startup-ns")
			b.ReportMetric(perOp/float64(fixtures), "ns/fixture")
			if mode.batch {
				goal := 3*float64(startup.Nanoseconds()) + float64(fixtures)*float64(10*time.Millisecond)
				b.ReportMetric(perOp/goal, "of-goal")
			}
		})
	}
}

// benchProbe probes every catalogued fixture once into a fresh directory through the Go test
// agent (Chat Completions, streamed, Streamable HTTP), with edit applied to the options; those of
// a revision the agent's 2025-11-25 refuses (X01, X02) are served all the same, as the capture
// programs serve them, so every run must capture.
func benchProbe(b *testing.B, edit func(*Options)) *Result {
	o := Options{
		Lane: "bench-agent", Version: "1.0.0", Configuration: "default", Repetitions: 1, OutOfRevision: true,
		Output:     filepath.Join(b.TempDir(), "out"),
		RunTimeout: time.Minute,
		Command:    []string{os.Args[0]},
		Executable: os.Args[0],
		Env:        append(slices.Clone(os.Environ()), "CONTRACTCHECK_TESTAGENT=agent", "TESTAGENT_API=openai-chat", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=http"),
	}
	edit(&o)
	res, err := Run(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	if res.Failed != 0 || res.Captured == 0 {
		b.Fatalf("result %+v", res)
	}
	return res
}

// agentStartup is the median time of starting the test agent's binary and having it exit.
func agentStartup(b *testing.B) time.Duration {
	var ds []time.Duration
	for range 5 {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "CONTRACTCHECK_TESTAGENT=silent")
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkProbeJobs probes the whole built-in catalogue × 3 repetitions through the Go test
// agent (Chat Completions, streamed, Streamable HTTP), a process per run, once one run at a time
// (jobs=1) and once GOMAXPROCS runs at once; the ratio of the two ns/op is the speed-up of
// --jobs, whose goal is at least 0.8 × the cores:
//
//	go test ./internal/probe -run '^$' -bench ProbeJobs -benchtime 1x -count 3
func BenchmarkProbeJobs(b *testing.B) {
	for _, jobs := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			runs := 0
			for b.Loop() {
				runs = benchProbe(b, func(o *Options) { o.Repetitions, o.Jobs = 3, jobs }).Runs
			}
			b.ReportMetric(float64(runs), "runs")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(runs), "ns/run")
		})
	}
}
