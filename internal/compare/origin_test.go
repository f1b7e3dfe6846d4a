package compare

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestReconstructedLanesAreNamed checks that the compare tables say which of their lanes are
// reconstructed, in both human-readable formats, and say nothing when every lane was captured.
func TestReconstructedLanesAreNamed(t *testing.T) {
	reading := func(lane, origin string) Reading {
		return Reading{Position: result.Position{Fixture: "C05", Lane: lane, LaneVersion: "1", Configuration: "default", Stage: "A2"},
			Family: "structured", Target: "/a", State: "captured", Origin: origin, Repetitions: 3}
	}
	mixed := &Report{Readouts: []Reading{reading("z-lane", "reconstructed"), reading("a-lane", "captured"), reading("m-lane", "reconstructed")}}
	captured := &Report{Readouts: []Reading{reading("a-lane", "captured")}}
	tests := []struct {
		name, format string
		report       *Report
		want         string
	}{
		{name: "markdown names them", format: "markdown", report: mixed, want: "includes the reconstructed lanes `m-lane`, `z-lane`"},
		{name: "text names them", format: "text", report: mixed, want: "includes the reconstructed lanes m-lane, z-lane"},
		{name: "markdown without reconstructed lanes", format: "markdown", report: captured},
		{name: "text without reconstructed lanes", format: "text", report: captured},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(render(t, tc.format, tc.report))
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, got)
			}
			if tc.want == "" && strings.Contains(got, "reconstructed") {
				t.Errorf("output mentions reconstructed lanes:\n%s", got)
			}
		})
	}
}
