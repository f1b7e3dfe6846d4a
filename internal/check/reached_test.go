package check

import (
	"reflect"

	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// The visibility.reached clause lists each group at its stages whose records carry nothing of
// what was served and makes a satisfied gate unmet; it keeps any other verdict, judges only its
// stages, and does nothing for a profile without it.
func TestGateReached(t *testing.T) {
	blind := result.Visibility{Lane: "acme", Version: "1", Configuration: "default", Stage: "H4", Category: "neither", Fixtures: []result.VisibilityFixture{
		{Fixture: "V01", State: "captured", Shape: "nothing", Record: "out/acme/1/default.jsonl:4"},
		{Fixture: "V04", State: "captured", Shape: "rewritten", Record: "out/acme/1/default.jsonl:16"},
		{Fixture: "V02", State: "execution_failed", Record: "out/acme/1/default.jsonl:8"}}}
	seeing := result.Visibility{Lane: "other", Version: "2", Configuration: "default", Stage: "H4", Category: "content-only", Fixtures: []result.VisibilityFixture{
		{Fixture: "V01", State: "captured", Shape: "content", Record: "out/other/2/default.jsonl:4"}}}
	blindM3 := blind
	blindM3.Stage = "M3"
	model := func(v *contract.ProfileVisibility) *contract.Model {
		return &contract.Model{Profiles: map[string]contract.Profile{"p": {Visibility: v}}}
	}
	tests := []struct {
		name        string
		model       *contract.Model
		verdict     string
		vs          []result.Visibility
		wantVerdict string
		wantReached []result.ReachedResult
	}{
		{"nothing served makes the gate unmet", model(&contract.ProfileVisibility{Reached: []string{"H4"}}), result.VerdictSatisfied, []result.Visibility{blind, seeing},
			result.VerdictUnmet, []result.ReachedResult{{Name: "profiles.p.visibility.reached", Stage: "H4", Groups: 2, Unreached: []result.UnreachedGroup{
				{Lane: "acme", Version: "1", Configuration: "default", Records: []string{"out/acme/1/default.jsonl:4", "out/acme/1/default.jsonl:16"}}}}}},
		{"something served everywhere", model(&contract.ProfileVisibility{Reached: []string{"H4"}}), result.VerdictSatisfied, []result.Visibility{seeing},
			result.VerdictSatisfied, []result.ReachedResult{{Name: "profiles.p.visibility.reached", Stage: "H4", Groups: 1, Unreached: []result.UnreachedGroup{}}}},
		{"only the listed stages", model(&contract.ProfileVisibility{Reached: []string{"H4"}}), result.VerdictSatisfied, []result.Visibility{blindM3, seeing},
			result.VerdictSatisfied, []result.ReachedResult{{Name: "profiles.p.visibility.reached", Stage: "H4", Groups: 1, Unreached: []result.UnreachedGroup{}}}},
		{"no group at the stage", model(&contract.ProfileVisibility{Reached: []string{"H4"}}), result.VerdictSatisfied, nil,
			result.VerdictSatisfied, []result.ReachedResult{{Name: "profiles.p.visibility.reached", Stage: "H4", Unreached: []result.UnreachedGroup{}}}},
		{"another verdict is kept", model(&contract.ProfileVisibility{Reached: []string{"H4"}}), result.VerdictSelectedNothing, []result.Visibility{blind},
			result.VerdictSelectedNothing, []result.ReachedResult{{Name: "profiles.p.visibility.reached", Stage: "H4", Groups: 1, Unreached: []result.UnreachedGroup{
				{Lane: "acme", Version: "1", Configuration: "default", Records: []string{"out/acme/1/default.jsonl:4", "out/acme/1/default.jsonl:16"}}}}}},
		{"a profile without the clause", model(&contract.ProfileVisibility{Stages: []string{"A2"}}), result.VerdictSatisfied, []result.Visibility{blind},
			result.VerdictSatisfied, nil},
		{"a profile without visibility", model(nil), result.VerdictSatisfied, []result.Visibility{blind}, result.VerdictSatisfied, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &result.Report{Visibility: result.VisibilityList(tt.vs), Gate: result.Gate{Verdict: tt.verdict, Satisfied: tt.verdict == result.VerdictSatisfied}}
			gateReached(tt.model, "p", r)
			if r.Gate.Verdict != tt.wantVerdict || r.Gate.Satisfied != (tt.wantVerdict == result.VerdictSatisfied) {
				t.Errorf("verdict %s (satisfied %v), want %s", r.Gate.Verdict, r.Gate.Satisfied, tt.wantVerdict)
			}
			if !reflect.DeepEqual(r.Gate.Reached, tt.wantReached) {
				t.Errorf("reached %+v, want %+v", r.Gate.Reached, tt.wantReached)
			}
		})
	}
}
