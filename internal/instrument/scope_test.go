package instrument

import (
	"context"
	"fmt"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
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

// TestVersionIndexDeclares: a lane declares exactly the versions of its list, found by binary
// search over their text order whatever the list's own order (a generated lane's, a declared
// upgrade order), and nothing of another lane or of none.
func TestVersionIndexDeclares(t *testing.T) {
	var many []string
	for i := 9_999; i >= 0; i -= 3 {
		many = append(many, fmt.Sprintf("v%d.%d", i/100, i%100))
	}
	m := &contract.Model{Lanes: map[string]contract.Lane{
		"gen":   {Versions: many},
		"small": {Versions: []string{"2.0", "1.10", "1.9", ""}},
		"none":  {},
	}}
	var x versionIndex
	tests := []struct {
		name, lane, version string
		want                bool
	}{
		{name: "first of the list", lane: "gen", version: many[0], want: true},
		{name: "last of the list", lane: "gen", version: many[len(many)-1], want: true},
		{name: "between two declared", lane: "gen", version: "v99.98", want: false},
		{name: "declared by another lane", lane: "gen", version: "1.9", want: false},
		{name: "declared, out of text order", lane: "small", version: "1.10", want: true},
		{name: "the empty version declared", lane: "small", version: "", want: true},
		{name: "a prefix of a declared one", lane: "small", version: "1.1", want: false},
		{name: "a lane with no versions", lane: "none", version: "1.9", want: false},
		{name: "no such lane", lane: "other", version: "2.0", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := x.declares(m, tc.lane, tc.version); got != tc.want {
				t.Errorf("declares(%q, %q) = %v, want %v", tc.lane, tc.version, got, tc.want)
			}
		})
	}
	for _, v := range many {
		if !x.declares(m, "gen", v) {
			t.Fatalf("%s not found among the lane's %d versions", v, len(many))
		}
	}
}
