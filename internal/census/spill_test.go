package census

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/spill"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// spillEveryTest is the run size of the second pass (TestMain runs the package's tests once with
// the census's own run size, where a test's few readings never fill a run, and once more with this
// one, so that every test goes through the run file and the merge of many runs too): a run file for every few readings, and a
// binding's repetitions across runs.
const spillEveryTest = 2

func TestMain(m *testing.M) {
	testkit.Pace() // parses the flags
	code := m.Run()
	if code == 0 && flag.Lookup("test.bench").Value.String() == "" {
		fmt.Printf("census: the tests again, a run written every %d readings\n", spillEveryTest)
		testRunSize = spillEveryTest
		code = m.Run()
	}
	os.Exit(code)
}

// testRunSize is the run size of the pass TestMain runs (0, the census's own, in the first; then
// spillEveryTest), which testNew gives every census the tests make.
var testRunSize int

// testNew is New for the tests: a census of the pass's run size (testRunSize).
func testNew(m *contract.Model, profileName string) (*Census, error) {
	return NewWith(m, profileName, Options{RunSize: testRunSize})
}

// mustReport is c's report; an error fails the test.
func mustReport(t testing.TB, c *Census) *result.Report {
	t.Helper()
	r, err := c.Report()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// variedReadings are readings of three versions of lane a (a model of model()'s with those
// versions), two fixtures and two stages, three repetitions each: passes, unmet bindings whose
// diagnostics name their version (upgrade changes), one unstable binding and hostile readouts.
func variedReadings() (*contract.Model, []result.Reading) {
	m := model()
	a := m.Lanes["a"]
	a.Versions = []string{"1", "2", "3"}
	m.Lanes["a"] = a
	var readings []result.Reading
	line := 0
	for _, v := range a.Versions {
		for _, f := range []string{"F1", "F3"} {
			for _, st := range []string{"D1", "A2"} {
				line++
				for rep := 1; rep <= 3; rep++ {
					for _, task := range []string{"P", "G"} {
						r := result.Reading{
							Binding:    result.Binding{Position: result.Position{Fixture: f, Lane: "a", LaneVersion: v, Configuration: "default", Stage: st}, Task: task},
							Repetition: rep, Origin: "captured", Outcome: result.Pass, File: "obs/a.jsonl", Line: line*3 + rep,
							Readout: map[string]any{"version": v, "hostile": "*/\u2028<script>"},
						}
						if v != "1" && st == "A2" {
							r.Outcome = result.Unmet
							r.Diagnostics = []result.Diagnostic{{"atom": "content.meta", "path": "/_meta/v" + v, "kind": "added", "expected": nil, "observed": v}}
						}
						if v == "3" && st == "A2" && rep == 2 && task == "P" {
							r.Diagnostics = nil // this binding's repetitions disagree
							r.Outcome = result.Pass
						}
						readings = append(readings, r)
					}
				}
			}
		}
	}
	return m, readings
}

// TestRunsMergeToTheSameReport: a census whose readings are written to the run file a few at a
// time (runs of 1, 2, 7 … readings, in the order they come or backwards) makes the report, in every
// format, that a census keeping them in one run in memory makes, byte for byte; the one in memory
// writes no run file, the others one run per runSize readings, and keep the distinct readings'
// index and data in files.
func TestRunsMergeToTheSameReport(t *testing.T) {
	m, readings := variedReadings()
	backwards := slices.Clone(readings)
	slices.Reverse(backwards)
	tests := []struct {
		name     string
		runSize  int
		readings []result.Reading
	}{
		{name: "one run in memory", runSize: runSize, readings: readings},
		{name: "a run a reading", runSize: 1, readings: readings},
		{name: "runs of two", runSize: 2, readings: readings},
		{name: "runs of seven", runSize: 7, readings: readings},
		{name: "runs of seven backwards", runSize: 7, readings: backwards},
		{name: "one run in memory backwards", runSize: runSize, readings: backwards},
	}
	written := func(t *testing.T, size int, rs []result.Reading) map[string][]byte {
		c, err := NewWith(m, "p", Options{RunSize: size})
		if err != nil {
			t.Fatal(err)
		}
		c.variants.blobs.Dir = t.TempDir()
		onFile := size < runSize // the distinct readings' index and their data in files too
		if onFile {
			c.variants.index.inMemory, c.variants.meta.Limit = 2, 0
		}
		for _, r := range rs {
			if err := c.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		if (c.variants.index.disk != nil) != onFile || c.variants.meta.Spilled() != onFile {
			t.Fatalf("the readings' index in a file: %v, their data: %v, want %v", c.variants.index.disk != nil, c.variants.meta.Spilled(), onFile)
		}
		if got, want := len(c.segments), len(rs)/size; got != want {
			t.Fatalf("%d runs written, want %d", got, want)
		}
		if c.runs.Spilled() != (len(rs) >= size) {
			t.Fatalf("a run file: %v, with %d readings in runs of %d", c.runs.Spilled(), len(rs), size)
		}
		rep := mustReport(t, c)
		onDisk := false
		for _, u := range rep.Upgrades {
			onDisk = onDisk || u.Changes.(*compactChanges).store.file != nil
		}
		if onDisk != (len(rs) >= size) {
			t.Fatalf("upgrade changes in a file: %v, with %d readings in runs of %d", onDisk, len(rs), size)
		}
		return reportkit.EveryFormat(t, rep)
	}
	want := written(t, runSize, readings)
	for _, w := range []string{`"outcome": "unstable"`, `"/_meta/v2"`, `"diagnosticsAfter": [`, `"hostile": "*/`, `"localizations": [`} {
		if !bytes.Contains(want["json details=false"], []byte(w)) {
			t.Fatalf("the report holds no %s: the test reads nothing it means to\n%s", w, want["json details=false"])
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := written(t, tc.runSize, tc.readings)
			for _, k := range slices.Sorted(maps.Keys(want)) {
				if !bytes.Equal(got[k], want[k]) {
					t.Errorf("%s differs:\n%s\nwant\n%s", k, got[k], want[k])
				}
			}
		})
	}
}

// TestRepeatedAcrossRuns: a repetition recorded twice is found wherever its two readings are, in
// one run or in two (the file's or the one in memory), and the error names both records.
func TestRepeatedAcrossRuns(t *testing.T) {
	at := func(line, rep int) result.Reading {
		return result.Reading{Binding: result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: "1", Configuration: "default", Stage: "A2"}, Task: "P"},
			Repetition: rep, Origin: "captured", Outcome: result.Pass, File: "obs/a.jsonl", Line: line}
	}
	readings := []result.Reading{at(1, 1), at(2, 2), at(3, 3), at(4, 4), at(5, 2)}
	const want = "obs/a.jsonl:5: F1 a 1 default A2: repetition 2 recorded twice (first at obs/a.jsonl:2)"
	for _, size := range []int{runSize, 1, 2, 3, 4} {
		t.Run(fmt.Sprintf("runs of %d", size), func(t *testing.T) {
			c, err := NewWith(model(), "p", Options{RunSize: size})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range readings {
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			_, err = c.Report()
			var re *RepeatedError
			if !errors.As(err, &re) || err.Error() != want {
				t.Fatalf("Report = %v, want %s", err, want)
			}
		})
	}
}

// TestRanksAsNamesArrive: ranks sorts only the names added since it last ran and merges them in;
// the ranks are those of sorting every name at once, in string and in version order, however the
// names arrive.
func TestRanksAsNamesArrive(t *testing.T) {
	tests := []struct {
		name    string
		batches [][]string
	}{
		{name: "one batch", batches: [][]string{{"v1.10.0", "v1.2.0", "b", "a", "v1.9"}}},
		{name: "later names before earlier ones", batches: [][]string{{"v2", "z"}, {"v1", "a"}, {"v10", "m", "v1.5.0"}}},
		{name: "a name at a time", batches: [][]string{{"r10"}, {"r9"}, {"2026-11-25"}, {"2026-07-28"}, {"v0.14.3"}, {"0.5.4"}, {"1.0.0-rc.1"}, {"1.0.0"}}},
		{name: "nothing new", batches: [][]string{{"b", "a"}, {}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newInterner()
			byName, byVersion := order{compare: strings.Compare}, order{compare: result.CompareVersions}
			for _, batch := range tc.batches {
				for _, s := range batch {
					n.id(s)
				}
				for _, o := range []*order{&byName, &byVersion} {
					got := n.ranks(o)
					want := slices.Clone(n.strs)
					slices.SortFunc(want, o.compare)
					for id, r := range got {
						if want[r] != n.strs[id] {
							t.Fatalf("%q ranks %d, where a sort of every name has %q", n.strs[id], r, want[r])
						}
					}
				}
			}
		})
	}
}

// TestRunSizeOption: a census's run size is its Options' (the census's own for 0), and a negative
// one is refused.
func TestRunSizeOption(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		want    int
		wantErr string
	}{
		{name: "the census's own", size: 0, want: runSize},
		{name: "a run a reading", size: 1, want: 1},
		{name: "runs of 97", size: 97, want: 97},
		{name: "negative", size: -1, wantErr: "a census run of -1 readings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewWith(model(), "p", Options{RunSize: tc.size})
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("NewWith = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.runSize != tc.want {
				t.Fatalf("run size %d, want %d", c.runSize, tc.want)
			}
		})
	}
}

// TestEntryReaderChunks: a run reads back the same entries whatever it reads at once, a chunk of
// one entry, of a few, of more than the run holds or of readChunk, from memory or the file, and a
// merge of many runs reads less of each: its buffers hold at most mergeBuffers in all, unless
// that leaves a run less than minChunk.
func TestEntryReaderChunks(t *testing.T) {
	var es []entry
	for i := range 1000 {
		es = append(es, entry{group: int32(i % 7), version: int32(i), task: int32(i % 3), number: int32(i), line: int32(2 * i), variant: int32(i % 5)})
	}
	tests := []struct {
		name  string
		limit int64 // the stream's bytes in memory
		chunk int64
	}{
		{name: "an entry at a time", limit: 0, chunk: entrySize},
		{name: "less than an entry", limit: 0, chunk: entrySize - 1},
		{name: "seven at a time", limit: 0, chunk: 7 * entrySize},
		{name: "seven and a bit", limit: 5000, chunk: 7*entrySize + 5},
		{name: "more than the run", limit: 1 << 20, chunk: 1 << 20},
		{name: "readChunk", limit: 3000, chunk: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs := spill.Stream{Limit: tc.limit, Dir: t.TempDir()}
			bs.Append([]byte("offset"))
			writeEntries(&bs, es)
			bs.Seal()
			r := entryReader{bs: &bs, off: 6, n: int64(len(es)), chunk: tc.chunk}
			var got []entry
			for {
				e, ok, err := r.next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got = append(got, e)
			}
			if !slices.Equal(got, es) {
				t.Errorf("read back %d entries, not the %d written", len(got), len(es))
			}
		})
	}
	for _, n := range []int{0, 1, 32, 153, 256, 10000} {
		c := mergeChunk(n)
		if c < minChunk || c > readChunk || n*int(c) > max(mergeBuffers, n*minChunk) {
			t.Errorf("mergeChunk(%d) = %d: %d bytes of buffers", n, c, n*int(c))
		}
	}
}
