package census

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestPagedKeepsElements: a paged table never moves what it holds as it grows, past the first
// page and across several, and reads back what was added.
func TestPagedKeepsElements(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{name: "within the first page", n: 100},
		{name: "the first page full", n: pageSize},
		{name: "one past a page", n: pageSize + 1},
		{name: "several pages", n: 3*pageSize + 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p paged[int32]
			var first, mid *int32
			for i := range tc.n {
				if got := p.add(int32(i)); got != int32(i) {
					t.Fatalf("add %d returned index %d", i, got)
				}
				if i == pageSize { // the first page is full, and the second just begun
					first, mid = p.at(0), p.at(pageSize)
				}
			}
			if p.len() != int32(tc.n) {
				t.Fatalf("len %d, want %d", p.len(), tc.n)
			}
			for i := range tc.n {
				if *p.at(int32(i)) != int32(i) {
					t.Fatalf("element %d reads %d", i, *p.at(int32(i)))
				}
			}
			// The first page grows as a slice does until it is full; from then on no element
			// moves: every later page is allocated whole.
			if tc.n > pageSize && (mid != p.at(pageSize) || first != p.at(0)) {
				t.Errorf("an element moved as the table grew")
			}
			if got, want := len(p.pages), (tc.n+pageSize-1)/pageSize; got != want {
				t.Errorf("%d pages, want %d", got, want)
			}
		})
	}
}

// TestCensusSharesRecords: the readings of one record are kept as one record however many tasks
// it has, a reading from another record is not folded into it, and each binding still reads back
// the file, line and repetition of its own record.
func TestCensusSharesRecords(t *testing.T) {
	at := func(stage, task string, line, rep int) result.Reading {
		return result.Reading{
			Binding:    result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: "1", Configuration: "default", Stage: stage}, Task: task},
			Repetition: rep, Origin: "captured", Outcome: result.Pass, File: "obs/a.jsonl", Line: line,
		}
	}
	tests := []struct {
		name     string
		readings []result.Reading
		groups   int
	}{
		{name: "two tasks of one record", readings: []result.Reading{at("A2", "P", 1, 1), at("A2", "G", 1, 1)}, groups: 1},
		{name: "two records of two stages", readings: []result.Reading{at("A2", "P", 1, 1), at("A2", "G", 1, 1), at("M3", "P", 2, 1), at("M3", "G", 2, 1)}, groups: 2},
		{name: "a second repetition", readings: []result.Reading{at("A2", "P", 1, 1), at("A2", "G", 1, 1), at("A2", "P", 2, 2), at("A2", "G", 2, 2)}, groups: 1},
		{name: "records interleaved", readings: []result.Reading{at("A2", "P", 1, 1), at("M3", "P", 2, 1), at("A2", "G", 1, 1)}, groups: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := testNew(model(), "p")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.readings {
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			if len(c.groups) != tc.groups {
				t.Errorf("%d groups kept, want %d", len(c.groups), tc.groups)
			}
			res := mustReport(t, c).Results
			for i := range res.Len() {
				r := res.At(i)
				for _, ref := range r.Records {
					found := false
					for _, in := range tc.readings {
						found = found || in.Stage == r.Stage && in.Task == r.Task && in.Line == ref.Line && in.Repetition == ref.Repetition && in.File == ref.File
					}
					if !found {
						t.Errorf("%s %s reads record %+v, which none of its readings came from", r.Stage, r.Task, ref)
					}
				}
			}
		})
	}
}

// TestCensusGroupsRecords: records that differ only in version, line or repetition share a group;
// one that differs in its file, origin, execution failure or any part of its position but the
// version has a group of its own, and every binding reads back its own record's names.
func TestCensusGroupsRecords(t *testing.T) {
	base := result.Reading{
		Binding:    result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: "1", Configuration: "default", Stage: "A2"}, Task: "P"},
		Repetition: 1, Origin: "captured", Outcome: result.ExecutionFailed, File: "obs/a.jsonl", Line: 1,
	}
	with := func(f func(*result.Reading)) result.Reading {
		r := base
		r.Line = 2
		f(&r)
		return r
	}
	tests := []struct {
		name   string
		second result.Reading
		groups int
	}{
		{name: "another version", second: with(func(r *result.Reading) { r.LaneVersion = "2" }), groups: 1},
		{name: "another repetition", second: with(func(r *result.Reading) { r.Repetition = 2 }), groups: 1},
		{name: "another file", second: with(func(r *result.Reading) { r.File = "obs/b.jsonl"; r.Repetition = 2 }), groups: 2},
		{name: "another origin", second: with(func(r *result.Reading) { r.Origin = "reconstructed"; r.Repetition = 2 }), groups: 2},
		{name: "a failure message", second: with(func(r *result.Reading) { r.Error = "exit 1"; r.Repetition = 2 }), groups: 2},
		{name: "another stage", second: with(func(r *result.Reading) { r.Stage = "M3" }), groups: 2},
		{name: "another fixture", second: with(func(r *result.Reading) { r.Fixture = "F3" }), groups: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := testNew(model(), "p")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []result.Reading{base, tc.second} {
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			if len(c.groups) != tc.groups {
				t.Errorf("%d groups, want %d", len(c.groups), tc.groups)
			}
			var entries []entry
			tb, err := c.makeTable()
			if err != nil {
				t.Fatal(err)
			}
			if err := tb.each(c, func(b *binding) error { entries = append(entries, b.reps...); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(entries) != 2 {
				t.Fatalf("%d entries, want 2", len(entries))
			}
			for i, e := range entries {
				g := &c.groups[e.group]
				want := base
				if e.line == 2 {
					want = tc.second
				}
				got := result.Reading{Binding: result.Binding{Position: result.Position{Fixture: c.names.str(g.fixture), Lane: c.names.str(g.lane),
					LaneVersion: c.names.str(e.version), Configuration: c.names.str(g.configuration), Stage: c.names.str(g.stage)}, Task: c.names.str(e.task)},
					Repetition: int(e.number), Origin: c.names.str(g.origin), Outcome: want.Outcome, File: c.names.str(g.file), Line: int(e.line)}
				if g.err >= 0 {
					got.Error = c.names.str(g.err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("record %d reads back\n%+v\nwant\n%+v", i, got, want)
				}
			}
		})
	}
}

// addBenchReadings adds to c one captured pass of lane a's fixture F1 per version × stage × task,
// a record per version and stage (obs/bench.jsonl, numbered from 1), each first changed by vary
// (given the version's index) when vary is not nil.
func addBenchReadings(b *testing.B, c *Census, versions, stages, tasks []string, vary func(vi int, r *result.Reading)) {
	b.Helper()
	line := 0
	for vi, v := range versions {
		for _, st := range stages {
			line++
			for _, task := range tasks {
				r := result.Reading{
					Binding:    result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: v, Configuration: "default", Stage: st}, Task: task},
					Repetition: 1, Origin: "captured", Outcome: result.Pass, File: "obs/bench.jsonl", Line: line,
				}
				if vary != nil {
					vary(vi, &r)
				}
				if err := c.Add(r); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkCensusMemory adds a million bindings, two per record as a generated set has them, and
// reports the heap the census keeps per binding (after a collection) and the peak heap in use
// while it is filled: growing a table must not copy it (docs/design.md).
func BenchmarkCensusMemory(b *testing.B) {
	const bindings = 1_000_000
	versions := make([]string, bindings/8)
	for i := range versions {
		versions[i] = fmt.Sprintf("v%d", i)
	}
	stages := []string{"D1", "A2", "M3", "H4"}
	var kept, peak uint64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := watchPeak()
		c, err := testNew(model(), "p")
		if err != nil {
			b.Fatal(err)
		}
		addBenchReadings(b, c, versions, stages, []string{"P", "G"}, nil)
		peak = stop() - before.HeapInuse
		kept = uint64(testkit.LiveHeap()) - before.HeapAlloc
		runtime.KeepAlive(c)
	}
	b.ReportMetric(float64(kept)/bindings, "kept-B/binding")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// watchPeak samples the heap in use every few milliseconds until the returned function is
// called, which returns the peak.
func watchPeak() func() uint64 {
	done := make(chan uint64)
	go func() {
		var ms runtime.MemStats
		var peak uint64
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				done <- peak
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		done <- 0
		return <-done
	}
}

// BenchmarkCensusReport measures what a million-binding census holds from its first reading to
// the end of its report's writing (issue 45, "a census that lives on disk"): the peak heap in
// use while the readings are added, and while the report is made and every result and upgrade
// change is encoded as the JSON format writes them (AppendJSON). Unlike BenchmarkCensusMemory
// every part of the report has work: the unmet bindings' diagnostics name their version (a
// distinct reading each, as the generated sets' _meta entries make them), so every stage A2
// after a pass at D1 is a localization and every version's A2 differs from the version's before
// it (an upgrade change). report-live-MiB is what the census and its report still hold, live,
// once every part is made and written: the floor of the report's peak. It is the census alone, without OPA: a loop of seconds for what the
// command line's 1M run shows in minutes.
func BenchmarkCensusReport(b *testing.B) {
	const bindings = 1_000_000
	stages := []string{"D1", "A2", "M3", "H4"}
	tasks := []string{"P", "G"}
	versions := make([]string, bindings/(len(stages)*len(tasks)))
	for i := range versions {
		versions[i] = fmt.Sprintf("v%d", i)
	}
	m := model()
	lane := m.Lanes["a"]
	lane.Versions = versions
	lane.Stages = map[string]contract.StageDef{"D1": {Exposure: contract.Observed}, "A2": {Exposure: contract.Observed},
		"M3": {Exposure: contract.Observed}, "H4": {Exposure: contract.Observed}}
	m.Lanes["a"] = lane
	var streamPeak, reportPeak, reportLive uint64
	var localizations, changes int
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		stop := watchPeak()
		c, err := testNew(m, "p")
		if err != nil {
			b.Fatal(err)
		}
		addBenchReadings(b, c, versions, stages, tasks, func(vi int, r *result.Reading) {
			if r.Stage == "A2" && vi%2 == 1 {
				r.Outcome = result.Unmet
				r.Diagnostics = []result.Diagnostic{{"message": "differs at " + r.LaneVersion, "_meta": map[string]any{"version": r.LaneVersion}}}
			}
		})
		streamPeak = stop() - before.HeapInuse
		stop = watchPeak()
		rep := mustReport(b, c)
		var out []byte
		res := rep.Results.(result.Appender)
		for i := range rep.Results.Len() {
			if out, err = res.AppendJSON(out[:0], i); err != nil {
				b.Fatal(err)
			}
		}
		changes = 0
		for _, u := range rep.Upgrades {
			ch := u.Changes.(result.Appender)
			for i := range u.Changes.Len() {
				if out, err = ch.AppendJSON(out[:0], i); err != nil {
					b.Fatal(err)
				}
			}
			changes += u.Changes.Len()
		}
		localizations = rep.Localized()
		reportPeak = stop() - before.HeapInuse
		reportLive = uint64(testkit.LiveHeap()) - before.HeapAlloc
		runtime.KeepAlive(c)
		runtime.KeepAlive(rep)
	}
	if localizations == 0 || changes == 0 {
		b.Fatalf("%d localizations and %d upgrade changes: every part of the report must have work", localizations, changes)
	}
	b.ReportMetric(float64(streamPeak)/(1<<20), "stream-peak-heap-MiB")
	b.ReportMetric(float64(reportPeak)/(1<<20), "report-peak-heap-MiB")
	b.ReportMetric(float64(reportLive)/(1<<20), "report-live-MiB")
	b.ReportMetric(float64(localizations), "localizations")
	b.ReportMetric(float64(changes), "changes")
}
