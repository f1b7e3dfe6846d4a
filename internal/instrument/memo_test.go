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
