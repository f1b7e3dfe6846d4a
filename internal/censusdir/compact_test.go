package censusdir

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

var t0 = time.Date(2026, 12, 6, 7, 5, 45, 0, time.UTC)

// TestSourcesMerge: windows merge as the union of each collector's sequence numbers (so the same
// batch merged twice counts once), the received times widen, sources stay sorted by name.
func TestSourcesMerge(t *testing.T) {
	src := func(name string, first, last time.Time, seqs ...[2]uint64) Source {
		return Source{Name: name, Seqs: seqs, First: first, Last: last}
	}
	for _, tc := range []struct {
		name    string
		a, b    Sources
		want    Sources
		batches []uint64
		says    string
	}{
		{name: "two collectors, separate sequence spaces",
			a:       Sources{src("live2", t0, t0.Add(time.Hour), [2]uint64{1, 27})},
			b:       Sources{src("live1", t0.Add(time.Minute), t0.Add(2*time.Hour), [2]uint64{1, 30})},
			want:    Sources{src("live1", t0.Add(time.Minute), t0.Add(2*time.Hour), [2]uint64{1, 30}), src("live2", t0, t0.Add(time.Hour), [2]uint64{1, 27})},
			batches: []uint64{30, 27},
			says:    "live1: 30 batches collected, sequence 1 to 30, received 2026-12-06T07:06:45Z to 2026-12-06T09:05:45Z; live2: 27 batches collected, sequence 1 to 27"},
		{name: "the same batches twice count once",
			a: Sources{src("live1", t0, t0.Add(time.Hour), [2]uint64{1, 27})}, b: Sources{src("live1", t0, t0.Add(time.Hour), [2]uint64{1, 27})},
			want: Sources{src("live1", t0, t0.Add(time.Hour), [2]uint64{1, 27})}, batches: []uint64{27}},
		{name: "overlapping and touching ranges join",
			a:    Sources{src("live1", t0, t0.Add(time.Hour), [2]uint64{1, 10}, [2]uint64{20, 30})},
			b:    Sources{src("live1", t0.Add(-time.Hour), t0, [2]uint64{5, 12}, [2]uint64{13, 14}, [2]uint64{31, 31})},
			want: Sources{src("live1", t0.Add(-time.Hour), t0.Add(time.Hour), [2]uint64{1, 14}, [2]uint64{20, 31})}, batches: []uint64{26},
			says: "live1: 26 batches collected, sequence 1 to 14, 20 to 31, received"},
		{name: "none", a: Sources{}, b: nil, want: Sources{}, batches: []uint64{}, says: "no batch collect wrote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := append(Sources{}, tc.a...)
			got.Merge(tc.b)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("merge = %+v, want %+v", got, tc.want)
			}
			again := append(Sources{}, got...)
			again.Merge(tc.a) // idempotent: what it holds added again changes nothing
			again.Merge(tc.b)
			if !reflect.DeepEqual(again, tc.want) {
				t.Errorf("merged again = %+v, want %+v", again, tc.want)
			}
			for i, s := range got {
				if s.Batches() != tc.batches[i] {
					t.Errorf("%s: %d batches, want %d", s.Name, s.Batches(), tc.batches[i])
				}
			}
			if !strings.Contains(got.String(), tc.says) {
				t.Errorf("says %q, want %q", got, tc.says)
			}
		})
	}
}

// TestCompactedRoundTrip: a compacted census of decision logs keeps its readings, its decisions
// that are errors and its windows (in every part's header) exactly, across parts, and is marked
// complete; one holding no line still has a part that says what it is.
func TestCompactedRoundTrip(t *testing.T) {
	sources := Sources{{Name: "live1 <script>\u2028", Seqs: [][2]uint64{{1, 3}, {7, 9}}, First: t0, Last: t0.Add(time.Hour)},
		{Name: "live2", Seqs: [][2]uint64{{1, 1}}, First: t0.Add(time.Nanosecond), Last: t0.Add(time.Nanosecond)}}
	errs := []result.DecisionError{{At: "b/1.json.gz: event 2", Decision: "d-1", Error: "timeout ::error::"}}
	for _, tc := range []struct {
		name     string
		readings int
		errs     []result.DecisionError
		sources  Sources
		parts    int
	}{
		{name: "across parts", readings: 7, errs: errs, sources: sources, parts: 3},
		{name: "no collect batches (console logs)", readings: 2, sources: Sources{}, parts: 1},
		{name: "no line", sources: sources, parts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := Create(dir, strictSet)
			if err != nil {
				t.Fatal(err)
			}
			w.perPart = 3
			if err := w.SetSources(tc.sources); err != nil {
				t.Fatal(err)
			}
			var want []result.Reading
			for i := range tc.readings {
				r := reading(i + 1)
				if err := w.Add(r); err != nil {
					t.Fatal(err)
				}
				r.Fingerprint, _ = result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics)
				want = append(want, r)
			}
			for _, e := range tc.errs {
				if err := w.AddDecisionError(e); err != nil {
					t.Fatal(err)
				}
			}
			if tc.readings+len(tc.errs) > 0 {
				if err := w.SetSources(nil); err == nil {
					t.Error("the windows were set again after the first line")
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			var got []result.Reading
			var gotErrs []result.DecisionError
			var headers []Header
			info, err := ReadWith(dir, strictSet, Handlers{
				Part:          func(_ string, h Header) error { headers = append(headers, h); return nil },
				Reading:       func(r result.Reading) error { got = append(got, r); return nil },
				Visibility:    func(*visibility.Reading) error { return nil },
				DecisionError: func(e result.DecisionError) error { gotErrs = append(gotErrs, e); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErrs, tc.errs) {
				t.Errorf("read back %d readings and errors %+v, want %d and %+v", len(got), gotErrs, len(want), tc.errs)
			}
			if !info.Complete || !info.Compacted || !info.Decisions || info.Parts != tc.parts || info.DecisionErrors != len(tc.errs) {
				t.Errorf("info %+v, want a complete compacted census of %d parts", info, tc.parts)
			}
			if !reflect.DeepEqual(info.Sources, tc.sources) {
				t.Errorf("windows %+v, want %+v", info.Sources, tc.sources)
			}
			for i, h := range headers {
				if h.Batch != nil || !reflect.DeepEqual(h.Sources, tc.sources) {
					t.Errorf("part %d's header %+v does not name the windows", i+1, h)
				}
			}
			if err := CanOpen(dir); err == nil || !strings.Contains(err.Error(), dir) {
				t.Errorf("collect may add to the compacted census (%v)", err)
			}
		})
	}
}

// TestCompactedRefused: a compacted part's header that is not one (bad windows, a batch too), a
// directory mixing compacted parts with collect's, and collect opening a census check writes
// (compacted or of a check, complete or not yet) are errors naming the file or directory.
func TestCompactedRefused(t *testing.T) {
	good := `{"reading":{"fixture":"C01","lane":"direct","version":"v1","configuration":"default","stage":"D1","task":"T1","repetition":1,"origin":"captured","outcome":"pass","file":"a","line":1}}`
	compacted := `{"census":2,"profile":"strict","contractSet":"` + testDigest + `","decisions":{"windows":[{"source":"live1","seq":[[1,27]],"received":["2026-12-06T07:05:45Z","2026-12-06T08:05:45Z"]}]}}`
	batchHeader := `{"census":2,"profile":"strict","contractSet":"` + testDigest + `","batch":{"seq":1,"received":"2026-12-06T07:05:45Z"}}`
	with := func(old, new string) string { return strings.Replace(compacted, old, new, 1) }
	for _, tc := range []struct {
		name  string
		parts []string // headers of parts 1, 2, …
		open  bool     // the error is CanOpen's and Open's
		want  string
	}{
		{name: "windows not an array", parts: []string{`{"census":2,"profile":"strict","contractSet":"` + testDigest + `","decisions":{"windows":{}}}`},
			want: "00000001.census.gz:1: /decisions/windows: want an array"},
		{name: "a range backwards", parts: []string{with("[1,27]", "[27,1]")}, want: "00000001.census.gz:1: /decisions/windows/0/seq/0: ranges must be sorted"},
		{name: "ranges overlapping", parts: []string{with("[1,27]", "[1,27],[27,30]")}, want: "/decisions/windows/0/seq/1: ranges must be sorted"},
		{name: "sequence zero", parts: []string{with("[1,27]", "[0,27]")}, want: "/decisions/windows/0/seq/0/0: want a sequence number"},
		{name: "no range", parts: []string{with("[[1,27]]", "[]")}, want: "/decisions/windows/0/seq: want a non-empty array"},
		{name: "received not a time", parts: []string{with("2026-12-06T08:05:45Z", "later")}, want: "/decisions/windows/0/received/1: not a time"},
		{name: "an unknown window field", parts: []string{with(`"source":"live1"`, `"source":"live1","host":"x"`)}, want: "/decisions/windows/0/host: not a field"},
		{name: "a source twice", parts: []string{with(`]}]}}`, `]},{"source":"live1","seq":[[1,1]],"received":["2026-12-06T07:05:45Z","2026-12-06T07:05:45Z"]}]}}`)},
			want: "/decisions/windows/1/source: windows must be sorted by source, each source once"},
		{name: "a batch and windows", parts: []string{strings.Replace(batchHeader, `}}`, `},"decisions":{"windows":[]}}`, 1)}, want: "/decisions: a part holds one batch"},
		{name: "a collect part after compacted ones", parts: []string{compacted, batchHeader},
			want: "00000002.census.gz: a part of decision logs (collect --census), after parts of decision logs compacted (check --census-out)"},
		{name: "collect opens a compacted census being written", parts: []string{compacted}, open: true, want: "decision logs compacted by check --census-out"},
		{name: "collect opens a check's census being written", parts: []string{header}, open: true, want: "holds a census of a check (check --census-out)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, h := range tc.parts {
				part(t, dir, partFile(i+1), h, good)
			}
			if tc.open {
				for _, err := range []error{CanOpen(dir), func() error { _, err := Open(dir, strictSet); return err }()} {
					if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
						t.Errorf("error %v, want one naming %s and saying %q", err, dir, tc.want)
					}
				}
				return
			}
			_, err := ReadWith(dir, strictSet, Handlers{Reading: func(result.Reading) error { return nil },
				Visibility: func(*visibility.Reading) error { return nil }, DecisionError: func(result.DecisionError) error { return nil }})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func partFile(seq int) string {
	return strings.Replace("0000000N.census.gz", "N", string(rune('0'+seq)), 1)
}
