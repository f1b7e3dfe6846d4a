package censusdir

import (
	encjson "encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// A compacted census of decision logs is the one check --census-out writes from a census of
// decision logs (collect's, or compacted before) or from decision-log files: the readings and
// decisions that are errors of all its inputs in parts of up to partReadings lines, each part's
// header naming the batches the whole census covers,
//
//	{"census":2,"profile":"strict","contractSet":"…","decisions":{"windows":[{"source":"live1","seq":[[1,27]],"received":["…","…"]}]}}
//
// a window per source: the collector whose batches they are, named by the directory they were
// read from (collect's census directory, or the directory of collect's batch files), since the
// sequence numbers of two collectors are separate spaces; its batches' sequence numbers as
// ranges; the times the first and last were received. Windows merge as the readings do: the union
// of the sequence numbers per source, so that the same batch compacted twice (a census of
// yesterday merged with a collector's live one that still holds its batches) counts once. An
// empty list is a census of decision logs that holds none of collect's batches (console logs).
// Unlike collect's census it is marked complete (complete.json), as a check's census is: it is
// written once, by one run, and a reader finding no marker knows it is still being written and
// gives no verdict; collect refuses to add to it (CanOpen).

// Source is the batches of one collector a census of decision logs covers.
type Source struct {
	// Name is the directory the batches were read from, as given: collect's --census directory
	// for its census, the directory of collect's batch files for check --decision-logs.
	Name string
	// Seqs are the batches' sequence numbers, as sorted ranges [first, last] that neither overlap
	// nor touch.
	Seqs [][2]uint64
	// First and Last are the times the first and last batches were received.
	First, Last time.Time
}

// Batches is how many batches the source's window holds.
func (s Source) Batches() uint64 {
	n := uint64(0)
	for _, r := range s.Seqs {
		n += r[1] - r[0] + 1
	}
	return n
}

// String says the window for a note beside a report: as decisionlog.Window says one collector's,
// with every range of sequence numbers when some were not compacted (rotated away, say).
func (s Source) String() string {
	if len(s.Seqs) == 1 {
		w := decisionlog.Window{Batches: int(s.Batches()), FirstSeq: s.Seqs[0][0], LastSeq: s.Seqs[0][1], First: s.First, Last: s.Last}
		return s.Name + ": " + w.String()
	}
	ranges := make([]string, len(s.Seqs))
	for i, r := range s.Seqs {
		ranges[i] = fmt.Sprintf("%d to %d", r[0], r[1])
	}
	return fmt.Sprintf("%s: %d batches collected, sequence %s, received %s to %s", s.Name, s.Batches(), strings.Join(ranges, ", "),
		s.First.UTC().Format(time.RFC3339), s.Last.UTC().Format(time.RFC3339))
}

// Sources are the windows of a census of decision logs, one per source, sorted by name.
type Sources []Source

// AddBatch widens the window of source name by one batch.
func (ss *Sources) AddBatch(name string, seq uint64, received time.Time) {
	ss.Merge(Sources{{Name: name, Seqs: [][2]uint64{{seq, seq}}, First: received, Last: received}})
}

// Merge widens the windows by o's: the union of each source's sequence numbers.
func (ss *Sources) Merge(o Sources) {
	for _, s := range o {
		i, found := slices.BinarySearchFunc(*ss, s.Name, func(a Source, name string) int { return strings.Compare(a.Name, name) })
		if !found {
			*ss = slices.Insert(*ss, i, Source{Name: s.Name, Seqs: slices.Clone(s.Seqs), First: s.First, Last: s.Last})
			continue
		}
		t := &(*ss)[i]
		t.Seqs = unionRanges(t.Seqs, s.Seqs)
		if s.First.Before(t.First) {
			t.First = s.First
		}
		if s.Last.After(t.Last) {
			t.Last = s.Last
		}
	}
}

// unionRanges is the union of two sets of ranges, sorted, merged where they overlap or touch.
func unionRanges(a, b [][2]uint64) [][2]uint64 {
	all := append(slices.Clone(a), b...)
	slices.SortFunc(all, func(x, y [2]uint64) int {
		if x[0] != y[0] {
			return cmpUint(x[0], y[0])
		}
		return cmpUint(x[1], y[1])
	})
	out := make([][2]uint64, 0, len(all))
	for _, r := range all {
		if n := len(out); n > 0 && (r[0] <= out[n-1][1] || r[0]-1 == out[n-1][1]) {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String says every source's window, for a note beside a report.
func (ss Sources) String() string {
	if len(ss) == 0 {
		return "no batch collect wrote"
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return strings.Join(out, "; ")
}

// sourcesJSON is the header's "windows".
func sourcesJSON(ss Sources) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		seqs := make([]any, len(s.Seqs))
		for j, r := range s.Seqs {
			seqs[j] = []any{encjson.Number(strconv.FormatUint(r[0], 10)), encjson.Number(strconv.FormatUint(r[1], 10))}
		}
		out[i] = map[string]any{"source": s.Name, "seq": seqs,
			"received": []any{s.First.UTC().Format(time.RFC3339Nano), s.Last.UTC().Format(time.RFC3339Nano)}}
	}
	return out
}

// sources reads the header's "decisions" member: the windows of a compacted census.
func (o object) sources() (Sources, error) {
	dm, err := o.fields("/decisions", "windows")
	if err != nil {
		return nil, err
	}
	list, ok := dm["windows"].([]any)
	if !ok {
		return nil, o.errorf("/decisions/windows", "want an array, got %s", strictjson.TypeName(dm["windows"]))
	}
	ss := Sources{}
	for i := range list {
		ptr := fmt.Sprintf("/decisions/windows/%d", i)
		m, err := o.fields(ptr, "source", "seq", "received")
		if err != nil {
			return nil, err
		}
		name, err := o.str(m, ptr, "source", false)
		if err != nil {
			return nil, err
		}
		s := Source{Name: name}
		seqs, ok := m["seq"].([]any)
		if !ok || len(seqs) == 0 {
			return nil, o.errorf(ptr+"/seq", "want a non-empty array of [first, last] ranges")
		}
		for j, x := range seqs {
			r, ok := x.([]any)
			if !ok || len(r) != 2 {
				return nil, o.errorf(fmt.Sprintf("%s/seq/%d", ptr, j), "want [first, last]")
			}
			var pair [2]uint64
			for k := range r {
				n, ok := r[k].(jsonNumber)
				u, err := strconv.ParseUint(string(n), 10, 64)
				if !ok || err != nil || u == 0 {
					return nil, o.errorf(fmt.Sprintf("%s/seq/%d/%d", ptr, j, k), "want a sequence number (a whole number from 1)")
				}
				pair[k] = u
			}
			if pair[1] < pair[0] || (j > 0 && pair[0] <= s.Seqs[j-1][1]+1) {
				return nil, o.errorf(fmt.Sprintf("%s/seq/%d", ptr, j), "ranges must be sorted, first ≤ last, neither overlapping nor touching")
			}
			s.Seqs = append(s.Seqs, pair)
		}
		rec, ok := m["received"].([]any)
		if !ok || len(rec) != 2 {
			return nil, o.errorf(ptr+"/received", "want [first, last] times")
		}
		for k, to := range []*time.Time{&s.First, &s.Last} {
			str, _ := rec[k].(string)
			t, err := time.Parse(time.RFC3339Nano, str)
			if err != nil {
				return nil, o.errorf(fmt.Sprintf("%s/received/%d", ptr, k), "not a time (RFC 3339): %v", rec[k])
			}
			*to = t
		}
		if i > 0 && ss[i-1].Name >= name {
			return nil, o.errorf(ptr+"/source", "windows must be sorted by source, each source once")
		}
		ss = append(ss, s)
	}
	return ss, nil
}

// SetSources makes w write a compacted census of decision logs covering the batches of ss
// (every part's header names them): call it before anything is added.
func (w *Writer) SetSources(ss Sources) error {
	if w.seq > 0 || w.part != nil {
		return errors.New("census: the windows of a compacted census are set before its first line")
	}
	if ss == nil {
		ss = Sources{}
	}
	w.sources = ss
	return nil
}

// AddDecisionError writes a decision that is an error, not a verdict, to a compacted census of
// decision logs (SetSources).
func (w *Writer) AddDecisionError(d result.DecisionError) error {
	if w.sources == nil {
		return fmt.Errorf("census %s: a decision that is an error belongs to a census of decision logs", w.dir)
	}
	return w.line(map[string]any{"decisionError": map[string]any{"at": d.At, "decision": d.Decision, "error": d.Error}})
}
