package compare

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestDifference holds the differences table to its rule: a captured reading is in it when two
// decoders give different kinds, and not when every decoder's readout is wrong or missing (a lane
// loss), whether their kinds agree or not.
func TestDifference(t *testing.T) {
	decs := []string{"a", "b"}
	tests := []struct {
		name            string
		state           string
		kinds           []string
		differs, isLoss bool
	}{
		{name: "both match", state: "captured", kinds: []string{Match, Match}},
		{name: "match and missing differ", state: "captured", kinds: []string{Match, Missing}, differs: true},
		{name: "missing and unparseable differ", state: "captured", kinds: []string{Missing, Unparseable}, differs: true},
		{name: "match and introduced differ", state: "captured", kinds: []string{Match, Introduced}, differs: true},
		{name: "both wrong: a lane loss", state: "captured", kinds: []string{Wrong, Wrong}, isLoss: true},
		{name: "both missing: a lane loss", state: "captured", kinds: []string{Missing, Missing}, isLoss: true},
		{name: "wrong and missing: a lane loss, not a difference", state: "captured", kinds: []string{Wrong, Missing}, isLoss: true},
		{name: "both unparseable agree", state: "captured", kinds: []string{Unparseable, Unparseable}},
		{name: "not captured: neither", state: "execution_failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rd := Reading{Position: result.Position{Fixture: "C01", Lane: "l", LaneVersion: "v1", Configuration: "default", Stage: "D1"}, State: tc.state}
			if tc.kinds != nil {
				rd.Readouts = map[string]map[string]any{}
				for i, k := range tc.kinds {
					rd.Readouts[decs[i]] = map[string]any{"kind": k}
				}
			}
			differs, loss := rd.Difference(decs)
			if differs != tc.differs || loss != tc.isLoss {
				t.Errorf("differs %v, lane loss %v; want %v, %v", differs, loss, tc.differs, tc.isLoss)
			}
			cells := differences([]Reading{rd}, decs)
			r := &Report{Decoders: []Decoder{{Name: "a"}, {Name: "b"}}, Readouts: []Reading{rd}, Differences: cells}
			listed := len(differenceKinds(r)) == 1
			var buf bytes.Buffer
			if err := (Text{}).Output(&buf, r); err != nil {
				t.Fatal(err)
			}
			if listed != tc.differs {
				t.Errorf("listed %v, want %v", listed, tc.differs)
			}
			inText := strings.Contains(buf.String(), "C01 (whole value): a ")
			if inText != tc.differs {
				t.Errorf("in the text's differences: %v, want %v\n%s", inText, tc.differs, buf.String())
			}
			if tc.state == "captured" {
				if len(cells) != 1 || cells[0].Captured != 1 || (cells[0].Differs == 1) != tc.differs || (cells[0].LaneLoss == 1) != tc.isLoss {
					t.Errorf("cells %+v", cells)
				}
			} else if len(cells) != 0 {
				t.Errorf("cells %+v for an uncaptured reading", cells)
			}
		})
	}
}

// TestHeading names what the second profile changes, for each pair of profiles.
func TestHeading(t *testing.T) {
	id := func(s string) string { return s }
	tests := []struct {
		name        string
		base, other NullRun
		want        string
	}{
		{name: "null policy only", base: NullRun{Profile: "strict", NullPolicy: "strict"}, other: NullRun{Profile: "optional-null", NullPolicy: "optional-null"},
			want: "Null-policy sensitivity: strict vs optional-null (null policy strict → optional-null)"},
		{name: "_meta policy only", base: NullRun{Profile: "strict", NullPolicy: "strict"},
			other: NullRun{Profile: "withhold-private-meta", NullPolicy: "strict", WithholdPrivateMeta: &contract.Withhold{Stages: []string{"M3", "H4"}}},
			want:  "_meta-policy sensitivity: strict vs withhold-private-meta (the result _meta policy: preserve → withhold private keys at M3 H4)"},
		{name: "both", base: NullRun{Profile: "a", NullPolicy: "strict", WithholdPrivateMeta: &contract.Withhold{}},
			other: NullRun{Profile: "b", NullPolicy: "optional-null"},
			want:  "Profile sensitivity: a vs b (null policy strict → optional-null; the result _meta policy: withhold private keys → preserve)"},
		{name: "_meta stages differ", base: NullRun{Profile: "a", NullPolicy: "strict", WithholdPrivateMeta: &contract.Withhold{Stages: []string{"M3"}}},
			other: NullRun{Profile: "b", NullPolicy: "strict", WithholdPrivateMeta: &contract.Withhold{Stages: []string{"H4"}}},
			want:  "_meta-policy sensitivity: a vs b (the result _meta policy: withhold private keys at M3 → withhold private keys at H4)"},
		{name: "neither", base: NullRun{Profile: "a", NullPolicy: "strict"}, other: NullRun{Profile: "b", NullPolicy: "strict"},
			want: "Profile sensitivity: a vs b (null and _meta policies the same)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := (NullSensitivity{Base: tc.base, Other: tc.other}).Heading(id); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestBuiltinWholeValue reads the built-in records: C01 and C03 declare the whole-value target
// "", every structured fixture does, and the whole-value totals count one readout per captured
// position of target "" in the framework lanes.
func TestBuiltinWholeValue(t *testing.T) {
	r := builtin(t)
	seen := map[string]bool{}
	for _, rd := range r.Readouts {
		if rd.Target == WholeTarget {
			seen[rd.Fixture] = true
		}
	}
	for _, f := range []string{"C01", "C02", "C03", "C04", "C05", "C06", "V01"} {
		if !seen[f] {
			t.Errorf("no whole-value reading of %s", f)
		}
	}
	if len(r.WholeValue) != len(r.Decoders) {
		t.Fatalf("whole-value totals %+v", r.WholeValue)
	}
	for _, tot := range r.WholeValue {
		if tot.Total == 0 {
			t.Errorf("%s: no whole-value readout", tot.Decoder)
		}
	}
}

// TestBuiltinIntroducedWholeValue holds the docs' claim about introduced values (README,
// docs/design.md): at the whole-value target only a fixture whose source has no structuredContent
// can give introduced (C03's source holds {}, present), and on the built-in records that is C01 at
// the four openai-agents positions whose carrier holds structuredContent null, under every
// built-in decoder.
func TestBuiltinIntroducedWholeValue(t *testing.T) {
	r := builtin(t)
	hasSlot := func(id string) bool {
		paths, err := fs.Glob(contractcheck.Builtin, "fixtures/sources/*/"+id+".json")
		if err != nil || len(paths) != 1 {
			t.Fatalf("the source of %s: %v %v", id, paths, err)
		}
		b, err := fs.ReadFile(contractcheck.Builtin, paths[0])
		if err != nil {
			t.Fatal(err)
		}
		var src map[string]json.RawMessage
		if err := json.Unmarshal(b, &src); err != nil {
			t.Fatal(err)
		}
		_, ok := src["structuredContent"]
		return ok
	}
	if !hasSlot("C03") || hasSlot("C01") {
		t.Fatal("C03's source no longer holds structuredContent, or C01's now does")
	}
	var got []string
	for _, rd := range r.Readouts {
		if rd.Target != WholeTarget || rd.State != "captured" {
			continue
		}
		for _, d := range r.Decoders {
			if rd.Kind(d.Name) != Introduced {
				continue
			}
			if hasSlot(rd.Fixture) {
				t.Errorf("%s %s %s %s: %s introduced where the source has structuredContent", rd.Fixture, rd.Lane, rd.Configuration, rd.Stage, d.Name)
			}
			if d.Name == "native-slot" {
				got = append(got, strings.Join([]string{rd.Fixture, rd.Lane, rd.LaneVersion, rd.Configuration, rd.Stage}, " "))
			}
		}
		if k := rd.Kind("native-slot"); k == Introduced {
			for _, d := range r.Decoders {
				if rd.Kind(d.Name) != Introduced {
					t.Errorf("%s %s %s %s: native-slot introduced, %s %s", rd.Fixture, rd.Lane, rd.Configuration, rd.Stage, d.Name, rd.Kind(d.Name))
				}
			}
		}
	}
	sort.Strings(got)
	want := []string{
		"C01 openai-agents 0.22.0 application-context A2",
		"C01 openai-agents 0.22.0 application-context D1",
		"C01 openai-agents 0.22.0 default D1",
		"C01 openai-agents 0.22.0 use-structured-content D1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("introduced whole values %q, want %q (README and docs/design.md name them)", got, want)
	}
}

// TestDifferencesHostileText writes hostileReport for each string of the corpus as text (with and
// without Details) and markdown: the differences table, the whole-value totals and the profile
// heading hold no control or bidi character and no line starting a CI command, markdown no raw
// '<' outside code.
func TestDifferencesHostileText(t *testing.T) {
	for _, c := range hostile.Cases() {
		r := hostileReport(c.S)
		for _, f := range []struct {
			name string
			out  Outputter
		}{{"text", Text{}}, {"text details", Text{Details: true}}, {"markdown", Markdown{}}} {
			var buf bytes.Buffer
			if err := f.out.Output(&buf, r); err != nil {
				t.Fatalf("%s %s: %v", c.Name, f.name, err)
			}
			got := buf.String()
			if !strings.Contains(got, differencesTitle+": 2 of 2") || !strings.Contains(got, "whole value") || !strings.Contains(got, "Profile sensitivity") {
				t.Errorf("%s %s: the differences, the whole-value totals or the profile heading are missing:\n%s", c.Name, f.name, got)
			}
			testkit.TerminalSafe(t, c.Name+" "+f.name, got, false)
			for n, line := range strings.Split(got, "\n") {
				if f.name == "markdown" && strings.Contains(hostile.OutsideCode(line), "<") {
					t.Errorf("%s: line %d: raw '<' outside code: %q", c.Name, n+1, line)
				}
			}
		}
	}
}
