package result

import (
	"slices"
	"testing"
)

// TestReconstructedLanes: a lane is listed once, sorted, when any of its carriers is
// reconstructed; captured carriers, and an origin spelled otherwise, list nothing.
func TestReconstructedLanes(t *testing.T) {
	tests := []struct {
		name     string
		carriers [][2]string // lane, origin
		want     []string
	}{
		{name: "none"},
		{name: "captured only", carriers: [][2]string{{"a", "captured"}, {"b", "captured"}}},
		{name: "one reconstructed carrier makes the lane", carriers: [][2]string{{"b", "captured"}, {"b", "reconstructed"}, {"a", "captured"}}, want: []string{"b"}},
		{name: "sorted, each once", carriers: [][2]string{{"z", "reconstructed"}, {"a", "reconstructed"}, {"z", "reconstructed"}}, want: []string{"a", "z"}},
		{name: "origin is matched exactly", carriers: [][2]string{{"a", "Reconstructed"}, {"b", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lanes := ReconstructedLanes{}
			for _, c := range tc.carriers {
				lanes.Add(c[0], c[1])
			}
			if got := lanes.Lanes(); !slices.Equal(got, tc.want) {
				t.Errorf("Lanes() = %q, want %q", got, tc.want)
			}
		})
	}
}
