package laneout

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestEncode: a record is one JSON line, fields in SPEC order, no HTML escaping, redacted only
// when set.
func TestEncode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    Record
		want string
	}{
		{name: "captured", r: Record{Position: result.Position{Fixture: "R1", Lane: "a", LaneVersion: "1", Configuration: "default", Stage: "H4"}, Repetition: 2, State: "captured", Carrier: []byte(`{"t":"<b>"}`), SourceSha256: "00", Origin: "captured"},
			want: `{"fixture":"R1","lane":"a","laneVersion":"1","configuration":"default","stage":"H4","repetition":2,"state":"captured","carrier":{"t":"<b>"},"sourceSha256":"00","origin":"captured"}` + "\n"},
		{name: "redacted", r: Record{Position: result.Position{Fixture: "R1", Lane: "a", LaneVersion: "1", Configuration: "default", Stage: "D1"}, Repetition: 1, State: "not_observable", SourceSha256: "00", Origin: "captured", Redacted: []string{"/x"}},
			want: `{"fixture":"R1","lane":"a","laneVersion":"1","configuration":"default","stage":"D1","repetition":1,"state":"not_observable","sourceSha256":"00","origin":"captured","redacted":["/x"]}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(tc.r)
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

// TestLaneFile: generated lanes for undeclared lanes only, with the generator's words, and a
// profile over every lane; hostile names stay CUE strings.
func TestLaneFile(t *testing.T) {
	t.Parallel()
	g := Generator{Tool: "record", Manifest: "record.json", File: "record.cue", Profile: "record", Done: "Recorded",
		LaneDoc: func(p string) string { return "lane via " + p }, StageDoc: "unseen", ProfileDoc: "pd", RequireDoc: "rd", Judge: "--x"}
	out, err := g.LaneFile(map[string]Lane{
		"b":       {Provider: "gemini", Versions: map[string][]string{"2": {"c\"*/"}, "1": {"default"}}},
		"a":       {Declared: true, Versions: map[string][]string{"1": {"default"}}},
		"z\u2028": {Provider: "anthropic", Versions: map[string][]string{"1": {"default"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, w := range []string{`lanes: "b": {`, `H4: _providerH4["gemini"]`, `versions: ["1", "2"]`, `"Recorded as configuration c\"*/."`, `lanes: ["a", "b", "z\u2028"]`, "contractcheck check --x", "profiles: record: {"} {
		if !strings.Contains(s, w) {
			t.Errorf("the lane file lacks %q:\n%s", w, s)
		}
	}
	if strings.Contains(s, `lanes: "a": {`) {
		t.Errorf("a declared lane was generated:\n%s", s)
	}
	if strings.Contains(s, "visibility:") {
		t.Errorf("a generator without Reached wrote a visibility clause:\n%s", s)
	}
}

// TestLaneFileReached: a generator's Reached stages become its profile's visibility.reached.
func TestLaneFileReached(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reached []string
		want    string
	}{
		{"H4", []string{"H4"}, `visibility: reached: ["H4"]`},
		{"two stages", []string{"M3", "H4"}, `visibility: reached: ["M3", "H4"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Generator{Tool: "probe", Manifest: "probe.json", File: "probe.cue", Profile: "probe", Done: "Probed",
				LaneDoc: func(p string) string { return p }, StageDoc: "unseen", ProfileDoc: "pd", RequireDoc: "rd", Judge: "--x", Reached: tt.reached}
			out, err := g.LaneFile(map[string]Lane{"b": {Provider: "gemini", Versions: map[string][]string{"1": {"default"}}}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("the lane file lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestLaneFileUnknownProvider: a generated lane whose provider API is unknown gets an H4 bound to
// nothing, never a guessed provider's binding: observed (its records are judged, and fail the
// profile), its carrier schema one that accepts nothing, every compartment a task reads unbound.
func TestLaneFileUnknownProvider(t *testing.T) {
	t.Parallel()
	g := Generator{Tool: "probe", Manifest: "probe.json", File: "probe.cue", Profile: "probe", Done: "Probed",
		LaneDoc: func(p string) string { return "lane via " + p }, StageDoc: "unseen", ProfileDoc: "pd", RequireDoc: "rd", Judge: "--x"}
	out, err := g.LaneFile(map[string]Lane{"u": {Versions: map[string][]string{"1": {"default"}}}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, w := range []string{`exposure: "observed"`, `"` + NothingCaptured + `"`, `compartments: {}`, `unbound: {for _, t in tasks {(t.compartment): "The provider API is unknown`} {
		if !strings.Contains(s, w) {
			t.Errorf("the lane file lacks %q:\n%s", w, s)
		}
	}
	if strings.Contains(s, "_providerH4") {
		t.Errorf("a provider binding was guessed:\n%s", s)
	}
}
