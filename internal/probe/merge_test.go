package probe

import (
	"context"
	"slices"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
)

// TestMergeJudged: a second probe of another selection into the same directory merges by
// fixture (the first probe's records stay), and the check that reads the visibility readout after
// it judges what the directory then holds, as check does: the category the first probe's
// visibility fixtures show is still said, not "no fixture of the visibility readout was probed".
func TestMergeJudged(t *testing.T) {
	t.Parallel()
	env := []string{"TESTAGENT_API=openai-chat"}
	first := probeOpts(t, "agent", env, "V0*")
	if _, err := Run(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	second := probeOpts(t, "agent", env, "C09")
	second.Output = first.Output
	res, err := Run(context.Background(), second)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"C09", "V01", "V02", "V03", "V04"}; !slices.Equal(res.Fixtures, want) {
		t.Errorf("the directory holds %v, want %v", res.Fixtures, want)
	}
	recs := readRecords(t, second)
	for _, id := range []string{"C09", "V01", "V04"} {
		if h4 := h4Of(t, recs, id, 1); h4.State != "captured" {
			t.Errorf("%s H4 %+v", id, h4)
		}
	}
	tests := []struct {
		name string
		res  *Result
		want int // visibility groups
	}{
		{"the directory's fixtures", res, 1},
		{"the probe's own selection", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			judged, err := check.Run(context.Background(), JudgeOptions(second, tt.res))
			if err != nil {
				t.Fatal(err)
			}
			if len(judged.VisibilityReadout()) != tt.want {
				t.Errorf("visibility %+v, want %d groups", judged.VisibilityReadout(), tt.want)
			}
		})
	}
}
