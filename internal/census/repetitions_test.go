package census

import (
	"fmt"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

func repReading(rep int) result.Reading {
	return result.Reading{
		Binding:    result.Binding{Position: result.Position{Fixture: "F1", Lane: "ctl", LaneVersion: "1", Configuration: "default", Stage: "A2"}, Task: "P"},
		Repetition: rep, Origin: "captured", Outcome: result.Pass,
	}
}

// TestManyRepetitions: a repetition recorded twice is an error however many there are, and the
// collapsed result counts every one.
func TestManyRepetitions(t *testing.T) {
	tests := []struct {
		name    string
		reps    []int
		wantErr string
	}{
		{name: "three", reps: []int{1, 2, 3}},
		{name: "a thousand", reps: seq(1, 1000)},
		{name: "duplicate among few", reps: []int{1, 2, 1}, wantErr: "repetition 1 recorded twice"},
		{name: "duplicate after the index is built", reps: append(seq(1, 100), 5), wantErr: "repetition 5 recorded twice"},
		{name: "duplicate right at the switch", reps: append(seq(1, smallReps+1), smallReps+1), wantErr: fmt.Sprintf("repetition %d recorded twice", smallReps+1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(model(), "p")
			if err != nil {
				t.Fatal(err)
			}
			var addErr error
			for _, r := range tc.reps {
				if addErr = c.Add(repReading(r)); addErr != nil {
					break
				}
			}
			if testkit.ErrCase(t, addErr, tc.wantErr) {
				return
			}
			res := c.Report().Results
			if res.Len() != 1 || res.At(0).Repetitions != len(tc.reps) || res.At(0).Outcome != result.Pass {
				t.Errorf("results %+v, want one pass of %d repetitions", res, len(tc.reps))
			}
		})
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// BenchmarkRepetitions collapses N repetitions of one position; ns/rep stays flat as N grows
// (it grew with N when each repetition was searched for in a list of the earlier ones).
func BenchmarkRepetitions(b *testing.B) {
	for _, n := range []int{25000, 50000, 100000, 200000} {
		readings := make([]result.Reading, n)
		for i := range readings {
			readings[i] = repReading(i + 1)
		}
		b.Run(fmt.Sprintf("reps=%d", n), func(b *testing.B) {
			for b.Loop() {
				c, err := New(model(), "p")
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range readings {
					if err := c.Add(r); err != nil {
						b.Fatal(err)
					}
				}
				c.Report()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rep")
		})
	}
}
