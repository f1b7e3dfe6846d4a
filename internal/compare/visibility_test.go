package compare

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// recovered writes a row's counts as "decoder m/t" in decoder order.
func recovered(row VisibilityRow) string {
	var parts []string
	for _, c := range row.Recovered {
		parts = append(parts, fmt.Sprintf("%s %d/%d", c.Decoder, c.Match, c.Targets))
	}
	return strings.Join(parts, ", ")
}

// TestBuiltinVisibility reads the built-in compare's visibility rows: the category each group
// shows and what each built-in decoder recovers of V01–V03's seven declared targets there.
func TestBuiltinVisibility(t *testing.T) {
	r := builtin(t)
	rows := map[string]VisibilityRow{}
	for _, v := range r.Visibility {
		rows[v.Lane+" "+v.Version+" "+v.Configuration+" "+v.Stage] = v
	}
	tests := []struct {
		name, group, summary, recovered string
	}{
		{"structured-first as JSON text: only a JSON text reader recovers it", "openai-agents 0.22.0 use-structured-content H4",
			"structured-first, on error content", "native-slot 0/7, slot-or-json-text 7/7, slot-then-json-text 7/7"},
		{"content-only: V01's conflicting JSON text gives its two agreeing targets", "openai-agents 0.22.0 default H4",
			"content-only", "native-slot 0/7, slot-or-json-text 2/7, slot-then-json-text 2/7"},
		{"both in a slot: both decoders recover it", "adk-js 2.0.0 default H4",
			"both", "native-slot 7/7, slot-or-json-text 7/7, slot-then-json-text 7/7"},
		{"structured-first in a slot", "adk-go v1.7.0 default M3",
			"structured-first, on error rendered", "native-slot 7/7, slot-or-json-text 7/7, slot-then-json-text 7/7"},
		{"both as JSON text beside other text: V01 ambiguous, V03 unparseable", "agent-framework 1.13.0 default M3",
			"both, on error rewritten", "native-slot 0/7, slot-or-json-text 4/7, slot-then-json-text 4/7"},
		{"both as a JSON line of a joined text", "agent-framework 1.13.0 default H4",
			"both, on error rewritten", "native-slot 0/7, slot-or-json-text 2/7, slot-then-json-text 2/7"},
		{"append-structured-content: both as JSON text", "langchain-mcp-adapters 0.3.2 append-structured-content M3",
			"both", "native-slot 0/7, slot-or-json-text 4/7, slot-then-json-text 4/7"},
		{"mixed: V02's structured value is lost", "langchain-mcp-adapters-js 1.1.4 default H4",
			"mixed (nearest both; V02 differs), on error rendered", "native-slot 5/7, slot-or-json-text 5/7, slot-then-json-text 5/7"},
		{"neither: nothing to recover", "openai-agents-js 0.14.3 use-structured-content M3",
			"neither, on error content", "native-slot 0/7, slot-or-json-text 0/7, slot-then-json-text 0/7"},
		{"control lane", "direct v1 default H4", "both", "native-slot 7/7, slot-or-json-text 7/7, slot-then-json-text 7/7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row, ok := rows[tc.group]
			if !ok {
				t.Fatalf("no visibility row %s", tc.group)
			}
			if got := row.Summary(); got != tc.summary {
				t.Errorf("summary %q, want %q", got, tc.summary)
			}
			if got := recovered(row); got != tc.recovered {
				t.Errorf("recovered %s, want %s", got, tc.recovered)
			}
		})
	}

	// The counts are the readouts': at openai-agents use-structured-content H4 every target of
	// V01–V03 is a match for slot-or-json-text and none for native-slot; V04 (an error) and the
	// whole-value target are left out.
	t.Run("counts are the readouts", func(t *testing.T) {
		n := 0
		for _, rd := range r.Readouts {
			if rd.Lane != "openai-agents" || rd.Configuration != "use-structured-content" || rd.Stage != "H4" || !strings.HasPrefix(rd.Fixture, "V") || rd.Fixture == "V04" ||
				rd.Target == WholeTarget { // the visibility table counts the member targets
				continue
			}
			n++
			if rd.State != "captured" || rd.Kind("slot-or-json-text") != Match || rd.Kind("native-slot") == Match {
				t.Errorf("%s %s: %s %v", rd.Fixture, rd.Target, rd.State, rd.Readouts)
			}
		}
		if n != 7 {
			t.Errorf("%d target readings of V01–V03, want 7", n)
		}
	})
}

// TestVisibilityIsChecks: the compare's visibility groups are exactly the ones check reports on
// the same records, in the same order, and every row counts the decoders in the report's order.
func TestVisibilityIsChecks(t *testing.T) {
	r := builtin(t)
	ctx := context.Background()
	in, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := inputs.Options{}.RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := check.RunWith(ctx, in, files, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.VisibilityGroups() == 0 || rep.VisibilityGroups() != len(r.Visibility) {
		t.Fatalf("check has %d visibility groups, compare %d", rep.VisibilityGroups(), len(r.Visibility))
	}
	names := decoderNames(r)
	for i, v := range r.Visibility {
		if !reflect.DeepEqual(v.Visibility, rep.Visibility.At(i)) {
			t.Errorf("group %d: compare %+v, check %+v", i, v.Visibility, rep.Visibility.At(i))
		}
		var got []string
		for _, c := range v.Recovered {
			got = append(got, c.Decoder)
			if c.Match > c.Targets {
				t.Errorf("%s %s %s %s: %s matches %d of %d", v.Lane, v.Version, v.Configuration, v.Stage, c.Decoder, c.Match, c.Targets)
			}
		}
		if !reflect.DeepEqual(got, names) {
			t.Errorf("%s %s %s %s: decoders %v, want %v", v.Lane, v.Version, v.Configuration, v.Stage, got, names)
		}
	}
}

// TestRecoveries counts by hand-made readings: only captured, stable fixtures that are not errors
// count, and of their readings only the captured ones.
func TestRecoveries(t *testing.T) {
	g := result.Visibility{Lane: "l", Version: "1", Configuration: "default", Stage: "H4", Category: "both"}
	pos := func(fixture, stage string) result.Position {
		return result.Position{Fixture: fixture, Lane: "l", LaneVersion: "1", Configuration: "default", Stage: stage}
	}
	reading := func(fixture, stage, state, a, b string) Reading {
		rd := Reading{Position: pos(fixture, stage), Target: "/x", State: state}
		if state == "captured" {
			rd.Readouts = map[string]map[string]any{"a": {"kind": a}, "b": {"kind": b}}
		}
		return rd
	}
	readings := []Reading{
		reading("V01", "H4", "captured", Match, Missing),
		reading("V01", "H4", "captured", Wrong, Match),
		reading("V01", "M3", "captured", Match, Match),     // another stage
		reading("V02", "H4", "captured", Match, Match),     // its fixture is unstable
		reading("V03", "H4", "captured", Match, Match),     // an error
		reading("V05", "H4", result.Unstable, "", ""),      // not read
		reading("V05", "H4", "captured", Ambiguous, Match), // read
		reading("V06", "H4", "captured", Match, Match),     // its fixture was not reached
	}
	ch := map[string]string{"content": "blocks", "structured": "slot"}
	tests := []struct {
		name     string
		fixtures []result.VisibilityFixture
		decoders []string
		want     string
	}{
		{"one fixture", []result.VisibilityFixture{{Fixture: "V01", State: "captured", Channels: ch}}, []string{"a", "b"}, "a 1/2, b 1/2"},
		{"decoder order kept", []result.VisibilityFixture{{Fixture: "V01", State: "captured", Channels: ch}}, []string{"b", "a"}, "b 1/2, a 1/2"},
		{"unstable, error and unreached fixtures left out", []result.VisibilityFixture{
			{Fixture: "V01", State: "captured", Channels: ch},
			{Fixture: "V02", State: "unstable"},
			{Fixture: "V03", State: "captured", Channels: map[string]string{"content": "blocks", "structured": "slot", "isError": "flag"}},
			{Fixture: "V06", State: "not_reached"},
		}, []string{"a", "b"}, "a 1/2, b 1/2"},
		{"an unstable reading is not read", []result.VisibilityFixture{{Fixture: "V05", State: "captured", Channels: ch}}, []string{"a", "b"}, "a 0/1, b 1/1"},
		{"nothing counted", []result.VisibilityFixture{{Fixture: "V03", State: "captured", Channels: map[string]string{"isError": "lost"}}}, []string{"a"}, "a 0/0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := g
			v.Fixtures = tc.fixtures
			rows := recoveries(result.VisibilityList{v}, readings, tc.decoders)
			if len(rows) != 1 {
				t.Fatalf("%d rows", len(rows))
			}
			if got := recovered(rows[0]); got != tc.want {
				t.Errorf("%s, want %s", got, tc.want)
			}
			if !reflect.DeepEqual(rows[0].Visibility, v) {
				t.Errorf("the group changed: %+v", rows[0].Visibility)
			}
		})
	}
	if rows := recoveries(nil, readings, []string{"a"}); rows != nil {
		t.Errorf("no group gives %v, want none", rows)
	}
}

// visibilityReport is a small report whose one visibility row names a hostile lane.
func visibilityReport() *Report {
	lane := "<b>x</b> | `y`\n::error::z"
	return &Report{CompareVersion: Version, Profile: "strict",
		Decoders:     []Decoder{{Name: "native-slot"}, {Name: "slot-or-json-text"}},
		NullPolicies: NullSensitivity{Base: NullRun{Profile: "strict"}, Other: NullRun{Profile: "optional-null"}},
		Visibility: []VisibilityRow{{
			Visibility: result.Visibility{Lane: lane, Version: "1", Configuration: "default", Stage: "H4", Category: "structured-first", OnError: "content",
				Fixtures: []result.VisibilityFixture{{Fixture: "V01", State: "captured", Channels: map[string]string{"content": "none", "structured": "json-text"}, Record: "x.jsonl:1"}}},
			Recovered: []Recovery{{Decoder: "native-slot", Match: 0, Targets: 3}, {Decoder: "slot-or-json-text", Match: 3, Targets: 3}},
		}},
	}
}

// TestVisibilityFormats writes the visibility section in every format: its title, the sentence
// that says what the numbers mean, the row's summary and counts, and the hostile lane escaped as
// the format escapes every string of the data.
func TestVisibilityFormats(t *testing.T) {
	tests := []struct {
		name, format string
		in, out      []string
	}{
		{"text", "text",
			[]string{visibilityTitle, visibilityNote, "structured-first, on error content", "0/3", "3/3", `\n::error::z`},
			[]string{"\n::error::"}},
		{"markdown", "markdown",
			// the lane a code span: its pipe escaped, its newline written as \n
			[]string{visibilityTitle, visibilityNote, "| ``<b>x</b> \\| `y`\\n::error::z`` | 1 | default | H4 | structured-first, on error content | 0/3 | 3/3 |",
				"| `native-slot` | `slot-or-json-text` |"},
			[]string{"\n::error::"}},
		{"html", "html",
			[]string{`<section id="visibility">`, `<a href="#visibility">`, "<h2>" + visibilityTitle + "</h2>", "&lt;b&gt;x&lt;/b&gt;",
				`<td data-category="structured-first">structured-first, on error content</td>`,
				`<td class="m m0" data-decoder="native-slot">0/3</td>`, `<td class="m m3" data-decoder="slot-or-json-text">3/3</td>`},
			[]string{"<b>x"}},
		{"json", "json",
			[]string{`"visibility": [`, `"recovered": [`, `"decoder": "slot-or-json-text",`, `"targets": 3`, `"category": "structured-first"`},
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := string(render(t, tc.format, visibilityReport()))
			for _, w := range tc.in {
				if !strings.Contains(s, w) {
					t.Errorf("lacks %q:\n%s", w, s)
				}
			}
			for _, w := range tc.out {
				if strings.Contains(s, w) {
					t.Errorf("holds %q:\n%s", w, s)
				}
			}
		})
	}
	// Without a readout there is no section.
	r := visibilityReport()
	r.Visibility = nil
	for _, f := range outputters.Names() {
		if s := string(render(t, f, r)); strings.Contains(s, visibilityTitle) || strings.Contains(s, `"visibility"`) {
			t.Errorf("%s writes the section with no readout", f)
		}
	}
}

// TestVisibilitySchema validates the hand-made report's JSON and refuses what the schema forbids.
func TestVisibilitySchema(t *testing.T) {
	v := reportkit.Schemas(t)
	tests := []struct {
		name   string
		change func(row map[string]any)
		want   string // "" when valid, else a fragment of the error
	}{
		{"valid", func(map[string]any) {}, ""},
		{"an unknown member", func(row map[string]any) { row["extra"] = 1 }, "/visibility/0"},
		{"a recovery without targets", func(row map[string]any) {
			delete(row["recovered"].([]any)[0].(map[string]any), "targets")
		}, "/visibility/0/recovered/0"},
		{"no recovered", func(row map[string]any) { delete(row, "recovered") }, "/visibility/0"},
		{"a category that is no word", func(row map[string]any) { row["category"] = "Both!" }, "/visibility/0/category"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := visibilityReport()
			r.Visibility[0].Lane = "lane"
			r.Readouts, r.Matches, r.Totals, r.Configurations = []Reading{}, []MatchCell{}, []Totals{}, []ConfigurationDiff{}
			r.WholeValue, r.Differences = []Totals{}, []DifferenceCell{}
			r.NullPolicies = NullSensitivity{Base: NullRun{Profile: "strict", NullPolicy: "strict", UniqueByFamily: map[string]int{}, ManifestationsByFamily: map[string]int{}, LeaveOneOut: map[string]int{}},
				Other: NullRun{Profile: "optional-null", NullPolicy: "optional-null", UniqueByFamily: map[string]int{}, ManifestationsByFamily: map[string]int{}, LeaveOneOut: map[string]int{}},
				Tasks: []string{}, Changes: []NullChange{}, OnlyBase: []result.Divergence{}, OnlyOther: []result.Divergence{}}
			r.Decoders = []Decoder{{Name: "native-slot", Package: "p"}, {Name: "slot-or-json-text", Package: "q"}}
			var buf bytes.Buffer
			if err := (report.JSONFormat[*Report]{}).Output(&buf, r); err != nil {
				t.Fatal(err)
			}
			doc := reportkit.JSONDoc(t, "compare.json", buf.Bytes())
			tc.change(doc.(map[string]any)["visibility"].([]any)[0].(map[string]any))
			err := v.ValidateCompareReport(doc)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("does not validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}
