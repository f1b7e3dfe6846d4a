package result

import (
	"encoding/json"
	"testing"
)

// TestPositionLess: positions order by fixture, then by their cells: lane, version (semantic),
// configuration, stage (by the given index, not by name); a cell is its position without the
// fixture, and encodes as the position's fields but the fixture.
func TestPositionLess(t *testing.T) {
	stages := map[string]int{"D1": 0, "A2": 1, "M3": 2, "H4": 3}
	index := func(s string) int { return stages[s] }
	at := func(fixture, lane, version, configuration, stage string) Position {
		return Position{Fixture: fixture, Lane: lane, LaneVersion: version, Configuration: configuration, Stage: stage}
	}
	tests := []struct {
		name string
		a, b Position
		less bool // a before b; b before a unless equal
		same bool // a and b are one cell
	}{
		{name: "fixture first", a: at("C01", "z", "9", "z", "H4"), b: at("C02", "a", "1", "a", "D1"), less: true},
		{name: "then lane", a: at("C01", "a", "9", "z", "H4"), b: at("C01", "b", "1", "a", "D1"), less: true},
		{name: "then version, semantic", a: at("C01", "a", "v2", "z", "H4"), b: at("C01", "a", "v10", "a", "D1"), less: true},
		{name: "then configuration", a: at("C01", "a", "1", "a", "H4"), b: at("C01", "a", "1", "b", "D1"), less: true},
		{name: "then stage, pipeline order", a: at("C01", "a", "1", "a", "A2"), b: at("C01", "a", "1", "a", "M3"), less: true},
		{name: "stage not by name", a: at("C01", "a", "1", "a", "D1"), b: at("C01", "a", "1", "a", "A2"), less: true},
		{name: "other fixtures, one cell", a: at("C02", "a", "1", "a", "D1"), b: at("C01", "a", "1", "a", "D1"), same: true},
		{name: "equal", a: at("C01", "a", "1", "a", "D1"), b: at("C01", "a", "1", "a", "D1"), same: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Less(tc.b, index); got != tc.less {
				t.Errorf("%v.Less(%v) = %v, want %v", tc.a, tc.b, got, tc.less)
			}
			if tc.less && tc.b.Less(tc.a, index) {
				t.Errorf("%v.Less(%v) too", tc.b, tc.a)
			}
			ca, cb := tc.a.Cell(), tc.b.Cell()
			if (ca == cb) != tc.same {
				t.Errorf("cells %v and %v: equal %v, want %v", ca, cb, ca == cb, tc.same)
			}
			if !tc.same && tc.a.Fixture == tc.b.Fixture && ca.Less(cb, index) != tc.less {
				t.Errorf("cells order other than their positions: %v.Less(%v) = %v", ca, cb, !tc.less)
			}
		})
	}
	got, err := json.Marshal(at("C01", "a", "1", "b", "D1").Cell())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"lane":"a","laneVersion":"1","configuration":"b","stage":"D1"}`; string(got) != want {
		t.Errorf("a cell encodes as %s, want %s", got, want)
	}
}
