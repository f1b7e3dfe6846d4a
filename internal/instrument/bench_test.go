package instrument

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/bench"
	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/open-policy-agent/opa/v1/ast"
)

// BenchmarkPolicyFloor is the floor of a binding's cost: the prepared task queries alone,
// evaluated on plain policy inputs built beforehand (the whole source and observed views of every
// binding of a generated set of about 20,000 bindings, all distinct), on every core: one plain
// prepared evaluation per binding. Beside BenchmarkCheckMatrix it tells what the rest of the
// pipeline (reading, validating, projecting, the census, the report) adds to OPA's evaluation.
func BenchmarkPolicyFloor(b *testing.B) {
	ctx := context.Background()
	set, err := bench.Generate(b.TempDir(), bench.Options{Bindings: 20_000, Unique: true})
	if err != nil {
		b.Fatal(err)
	}
	in, err := Load(ctx, inputs.Options{Contracts: []string{set.Contracts}, Profile: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	files, err := inputs.RecordFiles(inputs.UserDir(set.Observations))
	if err != nil {
		b.Fatal(err)
	}
	type prepared struct {
		q     *policy.Query
		input ast.Value
	}
	var inputs []prepared
	plain := map[inputKey]base{}
	err = in.ReadRecords(ctx, files, func(rec *Record) error {
		pos := result.Position{Fixture: rec.Fixture, Lane: rec.Lane, LaneVersion: rec.LaneVersion, Configuration: rec.Configuration, Stage: rec.Stage}
		for _, task := range in.Model.ProfileTasks(in.Profile, in.Model.Fixtures[rec.Fixture]) {
			if !in.Model.Tasks[task].AtStage(rec.Stage) {
				continue
			}
			// The plain input: the whole source and observed views, whatever members the task
			// declares it reads (check hands it those only).
			o, err := in.observe(rec.Fixture, rec.Lane, rec.Stage, in.Model.Tasks[task].Compartment, "", rec.Carrier, nil)
			if err != nil {
				return err
			}
			val, err := policy.Input(o.tree)
			if err != nil {
				return err
			}
			k := inputKey{rec.Fixture, task, rec.Stage}
			b, ok := plain[k]
			if !ok {
				src, err := NewObserved(in.SourceView(rec.Fixture))
				if err != nil {
					return err
				}
				if b, err = in.baseInput(rec.Fixture, in.Model.Fixtures[rec.Fixture], task, rec.Stage, src, in.Sources[rec.Fixture].Doc); err != nil {
					return err
				}
				plain[k] = b
			}
			inputs = append(inputs, prepared{in.queries[task], withObserved(b.term, pos, ast.NewTerm(val))})
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	// The collector paced as the command line paces it (guard.TargetGCPercent; the floor's heap
	// stays far below the memory target): the evaluations' garbage is part of their cost.
	defer debug.SetGCPercent(debug.SetGCPercent(guard.TargetGCPercent))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuClock()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := inputs[int(next.Add(1))%len(inputs)]
			if _, err := p.q.Eval(ctx, p.input); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(cpuClock()-cpu)/1e3/float64(b.N), "cpu-µs/eval")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "evals/s")
}

// cpuClock returns the CPU time (user and system, every thread, the garbage collector's
// included) the process has used.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
