package compare

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestHTML writes a small comparison as a page and reads its decoder tables back: every reading
// is one cell per decoder, coloured by that decoder's readout kind, and every match cell is in
// its lane's row and stage's column.
func TestHTML(t *testing.T) {
	pos := func(lane, stage string) result.Position {
		return result.Position{Fixture: "C02", Lane: lane, LaneVersion: "v1", Configuration: "default", Stage: stage}
	}
	goSDK := pos("go-sdk", "D1").Cell()
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
			{Decoder: "native-slot", Cell: goSDK, Match: 0, Captured: 1},
			{Decoder: "slot-or-json-text", Cell: goSDK, Match: 1, Captured: 1},
		},
		Totals:       []Totals{{Decoder: "native-slot", Counts: Counts{Kinds: map[string]int{Wrong: 1, Missing: 1}, Total: 2}}},
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
		{"totals row", "<tr><td><code>native-slot</code></td><td>per field</td><td>0</td><td>1</td><td>1</td>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(page, tc.in) {
				t.Errorf("the page lacks %q", tc.in)
			}
		})
	}
}

// hostileReport is a comparison with s in every string the page writes: the profiles, decoder
// names and readout kinds, positions, targets and states, values read and expected, the
// reconstructed lane, the differences table (both readings differ), the whole-value totals, the
// configuration and profile changes (null and _meta policies) and the visibility groups.
func hostileReport(s string) *Report {
	pos := func(lane, stage string) result.Position {
		return result.Position{Fixture: "C" + s, Lane: lane, LaneVersion: "v" + s, Configuration: "cfg " + s, Stage: stage}
	}
	dec := "decoder " + s
	return &Report{CompareVersion: Version, Profile: "p" + s,
		Decoders: []Decoder{{Name: dec}, {Name: "native-slot"}},
		Readouts: []Reading{
			{Position: pos("lane "+s, "D1"), Target: "/t" + s, State: "captured", Origin: "reconstructed", Expected: &Value{s},
				Readouts: map[string]map[string]any{dec: {"kind": Wrong, "observed": s}, "native-slot": {"kind": "kind " + s, "observed": s}}},
			{Position: pos("lane "+s, "A2"), Target: "/t" + s, State: "captured", Origin: "captured",
				Readouts: map[string]map[string]any{dec: {"kind": Introduced}, "native-slot": {"kind": Ambiguous, "candidates": []any{s}}}},
			{Position: pos("lane "+s, "M3"), Target: "/u" + s, State: "state " + s, Origin: "captured"},
		},
		Matches:    []MatchCell{{Decoder: dec, Cell: result.Cell{Lane: "lane " + s, LaneVersion: "v" + s, Configuration: "cfg " + s, Stage: "D1"}, Match: 1, Captured: 3}},
		Totals:     []Totals{{Decoder: dec, Counts: Counts{Kinds: map[string]int{Wrong: 1}, Total: 1}}},
		WholeValue: []Totals{{Decoder: dec, Counts: Counts{Kinds: map[string]int{Introduced: 1}, Total: 1}}},
		Differences: []DifferenceCell{{Cell: result.Cell{Lane: "lane " + s, LaneVersion: "v" + s, Configuration: "cfg " + s, Stage: "D1"}, Differs: 1, Captured: 1},
			{Cell: result.Cell{Lane: "lane " + s, LaneVersion: "v" + s, Configuration: "cfg " + s, Stage: "A2"}, Differs: 1, Captured: 1}},
		Configurations: []ConfigurationDiff{{Lane: "lane " + s, LaneVersion: "v" + s, From: "a" + s, To: "b" + s,
			Tasks: []TaskChange{{Fixture: "F" + s, Stage: "D1", Task: "T" + s, Role: "role " + s, Before: "pass", After: "unmet " + s,
				DiagnosticsAfter: []result.Diagnostic{{"atom": "atom " + s, "kind": "kind " + s}}}},
			Decoders: []DecoderChange{{Fixture: "F" + s, Stage: "D1", Target: "/" + s, Decoder: dec, Before: "kind " + s, After: Match}}}},
		NullPolicies: NullSensitivity{Base: NullRun{Profile: "base " + s, NullPolicy: "strict " + s, LeaveOneOut: map[string]int{"lane " + s: 1}},
			Other: NullRun{Profile: "other " + s, NullPolicy: "strict", WithholdPrivateMeta: &contract.Withhold{Stages: []string{"M3" + s}}},
			Tasks: []string{"T" + s}, Changes: []NullChange{{Position: pos("lane "+s, "H4"), Task: "T" + s, BaseOutcome: "base " + s, OtherOutcome: "other " + s, Atoms: []string{"atom " + s}}}},
		Visibility: []VisibilityRow{{Visibility: result.Visibility{Lane: "lane " + s, Version: "v" + s, Configuration: "cfg " + s, Stage: "M3" + s,
			Category: "category " + s, OnError: "error " + s}, Recovered: []Recovery{{Decoder: dec, Match: 1, Targets: 2}, {Decoder: "native-slot"}}}},
	}
}

// TestHTMLHostileStrings writes hostileReport for each string of the corpus: the page parses as
// HTML with no element (no script at all: the page has none) and no event handler of the data,
// no line of it starts a CI runner's command, and it has one reading map per decoder.
func TestHTMLHostileStrings(t *testing.T) {
	for _, c := range hostile.Cases() {
		var buf bytes.Buffer
		if err := (HTML{}).Output(&buf, hostileReport(c.S)); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		page := buf.String()
		noActiveHTML(t, c.Name, page)
		for i, line := range strings.Split(page, "\n") {
			if escape.CommandStart(line) {
				t.Errorf("%s: line %d of the page starts a CI command", c.Name, i+1)
			}
		}
		if n := strings.Count(page, `<table class="hm"`); n != 2 {
			t.Errorf("%s: %d reading maps, want one per decoder", c.Name, n)
		}
	}
}

// noActiveHTML parses page as HTML (t fails at once when it does not parse) and fails t, saying
// name, for each element that runs or loads something (script, img, iframe, object, embed) and
// each event handler: the compare page has none of its own, so any is the data's.
func noActiveHTML(t *testing.T, name, page string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("%s: the page does not parse: %v", name, err)
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "img", "iframe", "object", "embed":
				t.Errorf("%s: an element <%s> of the data", name, n.Data)
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					t.Errorf("%s: an event handler %s of the data", name, a.Key)
				}
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(doc)
}
