package spill

import (
	"cmp"
	"errors"
	"slices"
	"testing"
)

// item is a merged value: its key orders it, its tag says which run it came from.
type item struct {
	key int
	tag string
}

// runOf is a run reading its items in order, then a failure if fail is set.
func runOf(items []item, fail error) func() (item, bool, error) {
	return func() (item, bool, error) {
		if len(items) == 0 {
			return item{}, false, fail
		}
		it := items[0]
		items = items[1:]
		return it, true, nil
	}
}

// TestMerge: the merge of sorted runs is the stable sort of their concatenation, so an item of an
// earlier run comes before an equal item of a later one (what the census and the visibility
// collector rely on to keep the first of two readings).
func TestMerge(t *testing.T) {
	tests := []struct {
		name string
		runs [][]item
	}{
		{name: "no run"},
		{name: "empty runs", runs: [][]item{nil, {}, nil}},
		{name: "one run", runs: [][]item{{{1, "a"}, {2, "a"}, {2, "a2"}}}},
		{name: "equal keys keep the runs' order", runs: [][]item{
			{{1, "a"}, {3, "a"}},
			{{1, "b"}, {2, "b"}, {3, "b"}},
			{{0, "c"}, {1, "c"}, {3, "c"}},
		}},
		{name: "a later run all before", runs: [][]item{{{5, "a"}, {6, "a"}}, {{1, "b"}, {2, "b"}}, {}}},
		{name: "many runs of one key", runs: [][]item{{{7, "a"}}, {{7, "b"}}, {{7, "c"}}, {{7, "d"}}, {{7, "e"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var runs []func() (item, bool, error)
			var want []item
			for _, r := range tc.runs {
				runs = append(runs, runOf(r, nil))
				want = append(want, r...)
			}
			slices.SortStableFunc(want, func(a, b item) int { return cmp.Compare(a.key, b.key) })
			var got []item
			err := Merge(runs, func(a, b item) int { return cmp.Compare(a.key, b.key) }, func(it item) error {
				got = append(got, it)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("merged %v, want %v", got, want)
			}
		})
	}
}

// TestMergeStopsAtAnError: a run's error, at its first read or later, and yield's end the merge
// with that error, and nothing is yielded after it.
func TestMergeStopsAtAnError(t *testing.T) {
	errRun, errYield := errors.New("run failed"), errors.New("yield failed")
	tests := []struct {
		name      string
		runs      []func() (item, bool, error)
		stopAt    int // yield fails at this item (0: never)
		want      error
		wantItems int
	}{
		{name: "at a run's first read", runs: []func() (item, bool, error){runOf([]item{{1, "a"}}, nil), runOf(nil, errRun)}, want: errRun},
		{name: "at a run's end", runs: []func() (item, bool, error){runOf([]item{{1, "a"}, {4, "a"}}, nil), runOf([]item{{2, "b"}}, errRun)}, want: errRun, wantItems: 2},
		{name: "from yield", runs: []func() (item, bool, error){runOf([]item{{1, "a"}, {2, "a"}, {3, "a"}}, nil)}, stopAt: 2, want: errYield, wantItems: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			err := Merge(tc.runs, func(a, b item) int { return cmp.Compare(a.key, b.key) }, func(item) error {
				n++
				if n == tc.stopAt {
					return errYield
				}
				return nil
			})
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if n != tc.wantItems {
				t.Errorf("yielded %d items, want %d", n, tc.wantItems)
			}
		})
	}
}
