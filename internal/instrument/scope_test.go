package instrument

import (
	"context"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestCohortScope: a record must be within the run's scope and the profile's cohort; a position
// known in part (a decision log's) is outside when a member it names is one either leaves out.
func TestCohortScope(t *testing.T) {
	study := loadInstrument(t, "study")
	narrowed, err := Load(context.Background(), inputs.Options{Profile: "study", Scope: result.Scope{Lanes: []string{"openai-agents", "direct"}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      *Instrument
		pos     result.Position
		inScope bool // InScope of a whole position; OutsideScope is its negation
	}{
		{name: "the cohort's configuration of a lane", in: study, pos: result.Position{Fixture: "C05", Lane: "openai-agents", LaneVersion: "0.22.0", Configuration: "application-context", Stage: "A2"}, inScope: true},
		{name: "another configuration of that lane", in: study, pos: result.Position{Fixture: "C05", Lane: "openai-agents", LaneVersion: "0.22.0", Configuration: "default", Stage: "A2"}},
		{name: "a lane at the cohort's configurations", in: study, pos: result.Position{Fixture: "C05", Lane: "google-adk", LaneVersion: "snapshot-079f3d7", Configuration: "default", Stage: "M3"}, inScope: true},
		{name: "a lane outside the cohort", in: study, pos: result.Position{Fixture: "C05", Lane: "mcp-go", LaneVersion: "v1.2.1", Configuration: "default", Stage: "D1"}},
		{name: "a fixture outside the cohort's suite", in: study, pos: result.Position{Fixture: "X01", Lane: "direct", LaneVersion: "v1", Configuration: "default", Stage: "D1"}},
		{name: "the flags narrow the cohort", in: narrowed, pos: result.Position{Fixture: "C05", Lane: "google-adk", LaneVersion: "snapshot-079f3d7", Configuration: "default", Stage: "M3"}},
		{name: "within both", in: narrowed, pos: result.Position{Fixture: "C05", Lane: "openai-agents", LaneVersion: "0.22.0", Configuration: "application-context", Stage: "H4"}, inScope: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.InScope(tc.pos); got != tc.inScope {
				t.Errorf("InScope = %v, want %v", got, tc.inScope)
			}
			if got := tc.in.OutsideScope(tc.pos); got == tc.inScope {
				t.Errorf("OutsideScope = %v, want %v", got, !tc.inScope)
			}
		})
	}
	partial := []struct {
		name    string
		pos     result.Position
		outside bool
	}{
		{name: "a cohort lane, configuration unknown", pos: result.Position{Lane: "openai-agents"}},
		{name: "a lane outside, configuration unknown", pos: result.Position{Lane: "mcp-go"}, outside: true},
		{name: "a configuration only a lane@configuration entry names", pos: result.Position{Configuration: "application-context"}},
		{name: "a configuration nothing in the cohort names", pos: result.Position{Configuration: "use-structured-content"}, outside: true},
		{name: "nothing known", pos: result.Position{}},
	}
	for _, tc := range partial {
		t.Run(tc.name, func(t *testing.T) {
			if got := study.OutsideScope(tc.pos); got != tc.outside {
				t.Errorf("OutsideScope(%+v) = %v, want %v", tc.pos, got, tc.outside)
			}
		})
	}
}
