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

// TestManyRepetitions: a repetition recorded twice is an error however many there are (found by
// the report, where the runs merge), and the collapsed result counts every one.
func TestManyRepetitions(t *testing.T) {
	tests := []struct {
		name    string
		reps    []int
		wantErr string
	}{
		{name: "three", reps: []int{1, 2, 3}},
		{name: "a thousand", reps: seq(1, 1000)},
		{name: "duplicate among few", reps: []int{1, 2, 1}, wantErr: "repetition 1 recorded twice"},
		{name: "duplicate of an early one after many", reps: append(seq(1, 100), 5), wantErr: "repetition 5 recorded twice"},
		{name: "duplicate of the last one", reps: append(seq(1, 9), 9), wantErr: "repetition 9 recorded twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := testNew(model(), "p")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.reps {
				if err := c.Add(repReading(r)); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := c.Report()
			if testkit.ErrCase(t, err, tc.wantErr) {
				return
			}
			res := rep.Results
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
				c, err := testNew(model(), "p")
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range readings {
					if err := c.Add(r); err != nil {
						b.Fatal(err)
					}
				}
				mustReport(b, c)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rep")
		})
	}
}
