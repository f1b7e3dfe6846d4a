package instrument

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/result"
)

// A verdict is shared between inputs a task's policy cannot tell apart, and only between those:
// the built-in tasks read no stage, so a fixture's bases at two stages are one class, unless the
// profile gives the stages different contracts (withholding private _meta at M3 and H4 changes
// what T5 reads there).
func TestBaseClasses(t *testing.T) {
	tests := []struct {
		name, profile, task string
		fixtureA, stageA    string
		fixtureB, stageB    string
		same                bool
	}{
		{name: "T1 at two stages", profile: strict, task: "T1", fixtureA: "C01", stageA: "D1", fixtureB: "C01", stageB: "H4", same: true},
		{name: "T5 at two stages, nothing withheld", profile: strict, task: "T5", fixtureA: "C18", stageA: "D1", fixtureB: "C18", stageB: "M3", same: true},
		{name: "T5 where the profile withholds and where it does not", profile: withholdMeta, task: "T5", fixtureA: "C18", stageA: "D1", fixtureB: "C18", stageB: "M3", same: false},
		{name: "T5 at two stages that both withhold", profile: withholdMeta, task: "T5", fixtureA: "C18", stageA: "M3", fixtureB: "C18", stageB: "H4", same: true},
		{name: "two fixtures with different sources", profile: strict, task: "T1", fixtureA: "C01", stageA: "D1", fixtureB: "C02", stageB: "D1", same: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := loadInstrument(t, tc.profile)
			a, okA := in.inputs[inputKey{tc.fixtureA, tc.task, tc.stageA}]
			b, okB := in.inputs[inputKey{tc.fixtureB, tc.task, tc.stageB}]
			if !okA || !okB {
				t.Fatalf("no base for %s %s at %s or at %s %s", tc.task, tc.fixtureA, tc.stageA, tc.fixtureB, tc.stageB)
			}
			if (a.class == b.class) != tc.same {
				t.Errorf("same class = %v, want %v", a.class == b.class, tc.same)
			}
			if a.term.Equal(b.term) {
				t.Error("the two bases are the same input: the case tests nothing")
			}
		})
	}
}

// TestMemoEvaluatesAnInputOnce: goroutines that ask for the same input at once share one
// evaluation, an error included, and a failed evaluation is not kept (the next asker evaluates).
func TestMemoEvaluatesAnInputOnce(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		wantPut int
	}{
		{name: "a verdict", wantPut: 1},
		{name: "an error", err: errors.New("time limit"), wantPut: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m memo
			k := verdictKey{task: "T1"}
			var calls atomic.Int32
			release := make(chan struct{})
			eval := func() (judged, error) {
				calls.Add(1)
				<-release // every asker arrives while the first evaluates
				return judged{outcome: result.Pass}, tc.err
			}
			var wg sync.WaitGroup
			got := make([]error, 6)
			for i := range got {
				wg.Go(func() {
					v, err := m.do(k, eval)
					if err == nil && v.outcome != result.Pass {
						err = fmt.Errorf("outcome %q", v.outcome)
					}
					got[i] = err
				})
			}
			for calls.Load() == 0 {
				runtime.Gosched()
			}
			time.Sleep(10 * time.Millisecond) // let the others reach the flight
			close(release)
			wg.Wait()
			for i, err := range got {
				if !errors.Is(err, tc.err) {
					t.Errorf("asker %d: %v, want %v", i, err, tc.err)
				}
			}
			if calls.Load() > int32(len(got)) || m.evaluations() != tc.wantPut {
				t.Errorf("%d evaluations kept, want %d", m.evaluations(), tc.wantPut)
			}
			if tc.err == nil && calls.Load() != 1 {
				t.Errorf("%d evaluations for one input asked for at once, want 1", calls.Load())
			}
		})
	}
}

// TestMemoKeepsTheRecentVerdicts: the memo keeps the memoSize most recently used verdicts, so its
// memory is bounded however many inputs a run evaluates: a verdict asked for again is served
// (and kept), the least recently used one is evaluated again, and Clear forgets them all.
func TestMemoKeepsTheRecentVerdicts(t *testing.T) {
	key := func(i int) verdictKey { return verdictKey{task: "T1", version: fmt.Sprint(i)} }
	tests := []struct {
		name string
		// asks are the inputs asked for, in order, after inputs 0 to memoSize-1.
		asks      []int
		clear     bool
		ask       int
		evaluates bool
	}{
		{name: "the oldest is still kept", ask: 0},
		{name: "the least recently used goes", asks: []int{memoSize}, ask: 0, evaluates: true},
		{name: "one asked for again is kept", asks: []int{0, memoSize}, ask: 0},
		{name: "the one that went instead", asks: []int{0, memoSize}, ask: 1, evaluates: true},
		{name: "nothing is kept after Clear", clear: true, ask: memoSize - 1, evaluates: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m memo
			evaluated := false
			eval := func() (judged, error) { evaluated = true; return judged{outcome: result.Pass}, nil }
			for i := range memoSize {
				if _, err := m.do(key(i), eval); err != nil {
					t.Fatal(err)
				}
			}
			for _, i := range tc.asks {
				if _, err := m.do(key(i), eval); err != nil {
					t.Fatal(err)
				}
			}
			if tc.clear {
				m.Clear()
			}
			evaluated = false
			if _, err := m.do(key(tc.ask), eval); err != nil {
				t.Fatal(err)
			}
			if evaluated != tc.evaluates {
				t.Errorf("input %d evaluated: %t, want %t", tc.ask, evaluated, tc.evaluates)
			}
			if n := m.cache().Len(); n > memoSize {
				t.Errorf("the memo holds %d verdicts, more than %d", n, memoSize)
			}
		})
	}
}
