package report

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestReconstructedLanesAreNamed checks that the findings table and the divergence counts say
// which of their lanes are reconstructed, in every human-readable format, and say nothing when
// every lane was captured.
func TestReconstructedLanesAreNamed(t *testing.T) {
	res := func(lane, origin string) result.Result {
		return result.Result{Fixture: "C05", Suite: "paper", Family: "structured", Lane: lane, LaneVersion: "1", Configuration: "default",
			Stage: "A2", Task: "T2", Role: "primary", Compartment: "structured", Outcome: result.Pass, Origin: origin, Repetitions: 3}
	}
	mixed := &result.Report{Results: result.ResultList{res("b-lane", "reconstructed"), res("a-lane", "captured"), res("c-lane", "reconstructed")}}
	captured := &result.Report{Results: result.ResultList{res("a-lane", "captured")}}
	tests := []struct {
		name, format string
		report       *result.Report
		want         []string
		absent       string
	}{
		{name: "markdown marks the table and the counts", format: "markdown", report: mixed, want: []string{
			"Rows of origin `reconstructed` (`b-lane`, `c-lane`) are carriers derived from the framework's source",
			"Captured lanes only (no reconstructed carrier): unique divergences **0**",
			"All lanes, the reconstructed `b-lane`, `c-lane` included: unique divergences **0**",
		}},
		{name: "text marks the counts", format: "text", report: mixed, want: []string{
			"divergences, captured lanes only: 0 unique",
			"divergences, all lanes (the reconstructed b-lane, c-lane included): 0 unique",
		}},
		{name: "markdown without reconstructed lanes says nothing", format: "markdown", report: captured, absent: "reconstructed"},
		{name: "text without reconstructed lanes says nothing", format: "text", report: captured, absent: "reconstructed lanes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.format, Options{}, tc.report)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			if tc.absent != "" && strings.Contains(got, tc.absent) {
				t.Errorf("output mentions %q:\n%s", tc.absent, got)
			}
		})
	}
	if got := ReconstructedLanes(mixed); strings.Join(got, ",") != "b-lane,c-lane" {
		t.Errorf("ReconstructedLanes = %v", got)
	}
}
