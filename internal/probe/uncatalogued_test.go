package probe

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestProbeUncatalogued probes a fixtures layer of results no catalogue entry names
// (internal/instrument/testdata/uncatalogued) through an agent, with no CUE of the user's: every
// source is served and captured at H4, and the check the probe's records call for judges them
// against the derived entries.
func TestProbeUncatalogued(t *testing.T) {
	t.Parallel()
	layer := filepath.Join("..", "instrument", "testdata", "uncatalogued")
	o := probeOpts(t, "agent", []string{"TESTAGENT_API=openai-responses", "TESTAGENT_STREAM=0", "TESTAGENT_TRANSPORT=http"}, "U*")
	o.Inputs.Fixtures = []string{layer}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Captured != 6 || res.Failed != 0 {
		t.Fatalf("%d captured, %d failed; want the layer's 6 sources captured", res.Captured, res.Failed)
	}
	seen := map[string]bool{}
	for _, r := range readRecords(t, o) {
		seen[r.Fixture] = true
	}
	for _, id := range []string{"U1", "U2", "U3", "U4", "U5", "U6"} {
		if !seen[id] {
			t.Errorf("no record of %s", id)
		}
	}
	r, err := check.Run(context.Background(), JudgeOptions(o, nil))
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]bool{}
	for i := range r.Results.Len() {
		x := r.Results.At(i)
		if x.Lane == "acme-agent" && x.Stage == "H4" {
			tasks[x.Fixture+" "+x.Task] = true
			if x.Outcome != result.Pass && x.Outcome != result.Unmet {
				t.Errorf("%s %s: %s, want a judged outcome", x.Fixture, x.Task, x.Outcome)
			}
		}
	}
	for _, want := range []string{"U1 T2", "U2 T3", "U3 T4", "U4 T5", "U5 T1", "U6 T3"} {
		if !tasks[want] {
			t.Errorf("%s: not judged at H4 (judged: %v)", want, tasks)
		}
	}
}
