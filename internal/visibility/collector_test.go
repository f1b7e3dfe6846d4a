package visibility

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// uncaptured is a reading of a record that was not captured (so the collector's report evaluates
// no category), its names made afresh as a decoded record's are.
func uncaptured(version, fixture string, repetition int, state, record string) *Reading {
	c := strings.Clone
	return &Reading{Group: Group{c("lane"), c(version), c("default"), c("M3")}, Fixture: c(fixture), Repetition: repetition,
		State: c(state), Record: c(record)}
}

// TestCollectorKeepsTheFirstRepetition: whatever order the readings come in, a fixture's entry is
// its lowest repetition's state and record (as Read wrote it, a file name with a colon included),
// and unstable when a repetition read another state.
func TestCollectorKeepsTheFirstRepetition(t *testing.T) {
	// A group of more fixtures than it finds by a scan (scanEntries), each read twice, its
	// second repetition first.
	var many []*Reading
	var manyWant []result.VisibilityFixture
	for f := range 3 * scanEntries {
		id := fmt.Sprintf("V%02d", f)
		many = append(many, uncaptured("1", id, 2, "not_reached", fmt.Sprintf("obs/a.jsonl:%d", 100+f)))
		manyWant = append(manyWant, result.VisibilityFixture{Fixture: id, State: "not_reached", Record: fmt.Sprintf("obs/a.jsonl:%d", f+1)})
	}
	for f := range 3 * scanEntries {
		many = append(many, uncaptured("1", fmt.Sprintf("V%02d", f), 1, "not_reached", fmt.Sprintf("obs/a.jsonl:%d", f+1)))
	}
	tests := []struct {
		name     string
		readings []*Reading
		want     []result.VisibilityFixture
	}{
		{
			name: "lowest repetition last",
			readings: []*Reading{uncaptured("1", "V01", 3, "not_reached", "obs/a.jsonl:30"), uncaptured("1", "V01", 2, "not_reached", "obs/a.jsonl:20"),
				uncaptured("1", "V01", 1, "not_reached", "obs/a.jsonl:10")},
			want: []result.VisibilityFixture{{Fixture: "V01", State: "not_reached", Record: "obs/a.jsonl:10"}},
		},
		{
			name:     "a file name with colons",
			readings: []*Reading{uncaptured("1", "V01", 2, "execution_failed", "obs/c:d.jsonl:7"), uncaptured("1", "V01", 1, "execution_failed", "obs/a:b.jsonl:12")},
			want:     []result.VisibilityFixture{{Fixture: "V01", State: "execution_failed", Record: "obs/a:b.jsonl:12"}},
		},
		{
			name: "records not as Read writes them are kept whole",
			readings: []*Reading{uncaptured("1", "V01", 1, "not_reached", "obs/a.jsonl:007"), uncaptured("1", "V02", 1, "not_reached", "obs/a.jsonl:+5"),
				uncaptured("1", "V03", 1, "not_reached", "no line"), uncaptured("1", "V04", 1, "not_reached", "obs/a.jsonl:-1")},
			want: []result.VisibilityFixture{{Fixture: "V01", State: "not_reached", Record: "obs/a.jsonl:007"}, {Fixture: "V02", State: "not_reached", Record: "obs/a.jsonl:+5"},
				{Fixture: "V03", State: "not_reached", Record: "no line"}, {Fixture: "V04", State: "not_reached", Record: "obs/a.jsonl:-1"}},
		},
		{name: "a group of many fixtures", readings: many, want: manyWant},
		{
			name:     "repetitions that disagree",
			readings: []*Reading{uncaptured("1", "V01", 2, "execution_failed", "obs/a.jsonl:2"), uncaptured("1", "V01", 1, "not_reached", "obs/a.jsonl:1")},
			want:     []result.VisibilityFixture{{Fixture: "V01", State: "unstable", Record: "obs/a.jsonl:1"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range []string{"as given", "reversed"} {
				rs := slices.Clone(tc.readings)
				if order == "reversed" {
					slices.Reverse(rs)
				}
				c := NewCollector(&Reader{})
				for _, r := range rs {
					c.Add(r)
				}
				vs, err := c.Report(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if vs.Len() != 1 || vs.At(0).Category != "unread" || !slices.EqualFunc(vs.At(0).Fixtures, tc.want, func(a, b result.VisibilityFixture) bool {
					return a.Fixture == b.Fixture && a.State == b.State && a.Record == b.Record && a.Channels == nil
				}) {
					t.Errorf("%s: %+v, want one unread group of %+v", order, vs, tc.want)
				}
			}
		})
	}
}

// TestCollectorHoldsLittleAFixture: the collector keeps what a group's fixture read in a small
// entry, not the reading it came from, whose names are its record's own: a run of a million
// bindings has tens of thousands of entries, live to the end of its report (ten million, some
// 200,000). Here every record names a file of its own: 102 bytes a fixture with a map of every
// group's entries, 77 with a group's entries found by a scan.
func TestCollectorHoldsLittleAFixture(t *testing.T) {
	const versions, fixtures = 2_000, 8
	before := testkit.LiveHeap()
	c := NewCollector(&Reader{})
	for v := range versions {
		for f := range fixtures {
			for rep := 1; rep <= 2; rep++ {
				c.Add(uncaptured(fmt.Sprintf("v%d.%d.0", v/100, v%100), fmt.Sprintf("V%02d", f), rep, "not_reached",
					fmt.Sprintf("observations/lane/v%d/default.jsonl:%d", v, 2*f+rep)))
			}
		}
	}
	held := testkit.LiveHeap() - before
	runtime.KeepAlive(c)
	t.Logf("%d bytes a group's fixture", held/(versions*fixtures))
	if per := held / (versions * fixtures); per > 90 {
		t.Errorf("the collector holds %d bytes a group's fixture (%d KiB for %d)", per, held>>10, versions*fixtures)
	}
}

// TestCollectorReportHoldsLittleAFixture: the report's list is the collector's entries, each
// group made when it is read, and the collector lets go of its maps once the list is made: the
// bench set's ten million bindings have some 200,000 groups' fixtures (a group per lane version
// and stage), and the collector's maps and a list of Visibility values (a record's file:line
// string each) were 340 bytes a fixture, 68 MB at the end of the run, then 194 with the maps let
// go; the entries and their groups' names are some 60. Reading every group, as a format does,
// holds nothing more, and gives each fixture's record as it was read.
func TestCollectorReportHoldsLittleAFixture(t *testing.T) {
	tests := []struct {
		name    string
		entries int   // entriesInMemory
		most    int64 // bytes a group's fixture
	}{
		{name: "entries held", entries: entriesInMemory, most: 100},
		{name: "entries written out as runs", entries: 4096, most: 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer SetEntriesInMemory(tc.entries)()
			const versions, fixtures = 5_000, 4
			stages := []string{"M3", "H4"}
			live := func() uint64 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return ms.HeapAlloc
			}
			record := func(v, f int) string {
				return fmt.Sprintf("/tmp/goals-bench/set-10000000/observations/bench.jsonl:%d", 1000*v+2*f)
			}
			before := live()
			c := NewCollector(&Reader{})
			for v := range versions {
				for _, st := range stages {
					for f := range fixtures {
						rd := uncaptured(fmt.Sprintf("v%d", v), fmt.Sprintf("V%02d", f), 1, "not_reached", record(v, f))
						rd.Group.Stage = strings.Clone(st)
						c.Add(rd)
					}
				}
			}
			vs, err := c.Report(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			held := int64(live()) - int64(before)
			if vs.Len() != versions*len(stages) {
				t.Fatalf("%d groups, want %d", vs.Len(), versions*len(stages))
			}
			for i := range vs.Len() {
				g := vs.At(i)
				v := i / len(stages)
				if want := fmt.Sprintf("v%d", v); g.Version != want || g.Stage != stages[i%len(stages)] || len(g.Fixtures) != fixtures {
					t.Fatalf("group %d is %s %s of %d fixtures, want %s %s of %d", i, g.Version, g.Stage, len(g.Fixtures), want, stages[i%len(stages)], fixtures)
				}
				for f, x := range g.Fixtures {
					if x.Record != record(v, f) || x.State != "not_reached" {
						t.Fatalf("group %d fixture %d: %+v, want not_reached at %s", i, f, x, record(v, f))
					}
				}
			}
			read := int64(live()) - int64(before)
			runtime.KeepAlive(c)
			runtime.KeepAlive(vs)
			n := int64(versions * len(stages) * fixtures)
			t.Logf("%d bytes a group's fixture held with the report's list, %d once every group is read", held/n, read/n)
			if per := held / n; per > tc.most {
				t.Errorf("the collector and its report hold %d bytes a group's fixture (%d KiB for %d)", per, held>>10, n)
			}
			if per := read / n; per > tc.most {
				t.Errorf("once every group is read, the collector and its report hold %d bytes a group's fixture (%d KiB for %d)", per, read>>10, n)
			}
		})
	}
}

// TestCollectorRunsAreTheSameList: a collector that writes its entries out as runs (every few
// entries) and merges them at the report gives the list one that holds them all gives, group for
// group: a fixture read in several runs is one entry (its lowest repetition's record, the first
// read on a tie, unstable when any two repetitions read otherwise), groups read in any order
// come in the report's order.
func TestCollectorRunsAreTheSameList(t *testing.T) {
	var readings []*Reading
	for i := range 600 {
		v, f, rep := fmt.Sprintf("%d.%d", i%7, i%3), fmt.Sprintf("V%02d", i%11), 1+(i*7)%4
		state := "not_reached"
		if i%97 == 0 {
			state = "execution_failed" // a repetition that reads otherwise: unstable
		}
		rd := uncaptured(v, f, rep, state, fmt.Sprintf("obs/%s.jsonl:%d", v, i+1))
		if i%5 == 0 {
			rd.Group.Stage = "H4"
		}
		readings = append(readings, rd)
	}
	list := func(entries int) []result.Visibility {
		t.Helper()
		defer SetEntriesInMemory(entries)()
		c := NewCollector(&Reader{})
		for _, rd := range readings {
			c.Add(rd)
		}
		if wrote := len(c.runs.segs) > 0; wrote != (entries < 1<<15) {
			t.Fatalf("%d entries in memory: wrote runs %v", entries, wrote)
		}
		vs, err := c.Report(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return result.Collect(vs)
	}
	want := list(1 << 15)
	unstable := 0
	for _, v := range want {
		for _, f := range v.Fixtures {
			if f.State == "unstable" {
				unstable++
			}
		}
	}
	if len(want) != 2*21 || unstable == 0 {
		t.Fatalf("%d groups, %d unstable fixtures: the readings do not exercise the merge", len(want), unstable)
	}
	tests := []struct {
		name    string
		entries int
	}{
		{name: "a run every entry", entries: 1},
		{name: "a run every two entries", entries: 2},
		{name: "a run every 13 entries", entries: 13},
		{name: "a run every 100 entries", entries: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := list(tc.entries); !reflect.DeepEqual(got, want) {
				t.Errorf("the merged runs' list differs:\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}
