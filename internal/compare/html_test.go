package compare

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestHTML writes a small comparison as a page and reads its decoder tables back: every reading
// is one cell per decoder, coloured by that decoder's readout kind, and every match cell is in
// its lane's row and stage's column.
func TestHTML(t *testing.T) {
	pos := func(lane, stage string) result.Position {
		return result.Position{Fixture: "C02", Lane: lane, LaneVersion: "v1", Configuration: "default", Stage: stage}
	}
	r := &Report{CompareVersion: Version, Profile: "strict",
		Decoders: []Decoder{{Name: "native-slot"}, {Name: "slot-or-json-text"}},
		Summary:  Summary{Readings: 3, Captured: 2},
		Readouts: []Reading{
			{Position: pos("go-sdk", "D1"), Target: "/sequence", State: "captured", Origin: "captured", Expected: &Value{json.Number("9007199254740993")},
				Readouts: map[string]map[string]any{"native-slot": {"kind": Wrong, "observed": json.Number("9007199254740992")}, "slot-or-json-text": {"kind": Match, "observed": json.Number("9007199254740993")}}},
			{Position: pos("adk-go", "A2"), Target: "/sequence", State: "captured", Origin: "captured", Expected: &Value{json.Number("9007199254740993")},
				Readouts: map[string]map[string]any{"native-slot": {"kind": Missing}, "slot-or-json-text": {"kind": Ambiguous, "candidates": []any{json.Number("1"), json.Number("2")}}}},
			{Position: pos("adk-go", "M3"), Target: "/sequence", State: "execution_failed", Origin: "captured"},
		},
		Matches: []MatchCell{
			{Decoder: "native-slot", Lane: "go-sdk", LaneVersion: "v1", Configuration: "default", Stage: "D1", Match: 0, Captured: 1},
			{Decoder: "slot-or-json-text", Lane: "go-sdk", LaneVersion: "v1", Configuration: "default", Stage: "D1", Match: 1, Captured: 1},
		},
		Totals:       []Totals{{Decoder: "native-slot", Kinds: map[string]int{Wrong: 1, Missing: 1}, Total: 2}},
		NullPolicies: NullSensitivity{Base: NullRun{Profile: "strict"}, Other: NullRun{Profile: "optional-null"}},
	}
	var buf bytes.Buffer
	if err := (HTML{}).Output(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	tables := regexp.MustCompile(`(?s)<table class="hm" data-decoder="([^"]+)">(.*?)</table>`).FindAllStringSubmatch(page, -1)
	if len(tables) != 2 {
		t.Fatalf("%d reading tables, want one per decoder", len(tables))
	}
	want := map[string][]string{"native-slot": {Missing, Wrong}, "slot-or-json-text": {Ambiguous, Match}}
	for _, tb := range tables {
		var kinds []string
		for _, m := range regexp.MustCompile(`data-kind="([^"]+)"`).FindAllStringSubmatch(tb[2], -1) {
			kinds = append(kinds, m[1])
		}
		// columns go adk-go (A2, M3) then go-sdk (D1)
		if strings.Join(kinds, " ") != strings.Join(want[tb[1]], " ") {
			t.Errorf("%s: kinds %v, want %v", tb[1], kinds, want[tb[1]])
		}
		if !strings.Contains(tb[2], "adk-go v1 default M3: execution_failed") {
			t.Errorf("%s: the uncaptured reading does not say its state", tb[1])
		}
	}
	tests := []struct {
		name, in string
	}{
		{"exact digits in a cell's title", "read wrong 9007199254740992"},
		{"candidates of an ambiguous reading", "read ambiguous [1,2]"},
		{"match share coloured", `<td class="m m3">1/1</td>`},
		{"no match coloured", `<td class="m m0">0/1</td>`},
		{"totals row", "<tr><td><code>native-slot</code></td><td>0</td><td>1</td><td>1</td>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(page, tc.in) {
				t.Errorf("the page lacks %q", tc.in)
			}
		})
	}
}
