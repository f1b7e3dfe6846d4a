package census

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// counts is what a census counts: unique divergences and manifestations, each in total, by family
// and by origin.
type counts struct {
	Unique, Manifestations                 int
	UniqueByFamily, ManifestationsByFamily map[string]int
	UniqueByOrigin, ManifestationsByOrigin result.OriginCounts
}

func countsOf(d result.Divergences) counts {
	return counts{len(d.Unique), d.Manifestations, d.UniqueByFamily, d.ManifestationsByFamily, d.UniqueByOrigin, d.ManifestationsByOrigin}
}

// TestCensusCounts: unique divergences and manifestations are counted apart, each by family and
// by origin, in the census over every lane and in the one over captured carriers; the captured
// counts of the first are the second's totals.
func TestCensusCounts(t *testing.T) {
	m := model()
	m.Families["other"] = contract.Family{Census: "primary"}
	m.Fixtures["F4"] = contract.Fixture{Family: "other", Tasks: []string{"P"}}
	m.Fixtures["F5"] = contract.Fixture{Family: "other", Tasks: []string{"P"}}
	r := m.Lanes["c"]
	r.Origin = "reconstructed"
	m.Lanes["r"], m.Lanes["s"] = r, r
	type originRow struct {
		row
		origin string
	}
	captured := func(rows ...row) []originRow {
		out := make([]originRow, len(rows))
		for i, r := range rows {
			out[i] = originRow{r, "captured"}
		}
		return out
	}
	reconstructed := func(rows ...row) []originRow {
		out := captured(rows...)
		for i := range out {
			out[i].origin = "reconstructed"
		}
		return out
	}
	concat := func(parts ...[]originRow) []originRow {
		var out []originRow
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name               string
		rows               []originRow
		all, capturedLanes counts
	}{
		{
			// TestCensusMatrix's census, and F4/P unmet on a where c passes at A2 and M3: three
			// unique divergences, five manifestations (F1/P at A2 and M3, F3/P at M3, F4/P at A2
			// and M3).
			name: "every carrier captured",
			rows: concat(captured(matrix...), captured(row{"F4", "P", "a", "A2", "unmet"}, row{"F4", "P", "c", "A2", "pass"},
				row{"F4", "P", "a", "M3", "unmet"}, row{"F4", "P", "c", "M3", "pass"})),
			all: counts{Unique: 3, Manifestations: 5, UniqueByFamily: map[string]int{"fam": 2, "other": 1},
				ManifestationsByFamily: map[string]int{"fam": 3, "other": 2},
				UniqueByOrigin:         result.OriginCounts{Captured: 3}, ManifestationsByOrigin: result.OriginCounts{Captured: 5}},
			capturedLanes: counts{Unique: 3, Manifestations: 5, UniqueByFamily: map[string]int{"fam": 2, "other": 1},
				ManifestationsByFamily: map[string]int{"fam": 3, "other": 2},
				UniqueByOrigin:         result.OriginCounts{Captured: 3}, ManifestationsByOrigin: result.OriginCounts{Captured: 5}},
		},
		{
			// F4/P shows at A2 between captured lanes, at M3 only with the reconstructed r's pass:
			// a captured unique divergence with a captured and a reconstructed manifestation.
			// F5/P shows only with the reconstructed r's unmet: a reconstructed one.
			name: "a reconstructed lane",
			rows: concat(captured(matrix...),
				captured(row{"F4", "P", "a", "A2", "unmet"}, row{"F4", "P", "c", "A2", "pass"}, row{"F4", "P", "a", "M3", "unmet"}),
				reconstructed(row{"F4", "P", "r", "M3", "pass"}),
				captured(row{"F5", "P", "c", "A2", "pass"}), reconstructed(row{"F5", "P", "r", "A2", "unmet"})),
			all: counts{Unique: 4, Manifestations: 6, UniqueByFamily: map[string]int{"fam": 2, "other": 2},
				ManifestationsByFamily: map[string]int{"fam": 3, "other": 3},
				UniqueByOrigin:         result.OriginCounts{Captured: 3, Reconstructed: 1},
				ManifestationsByOrigin: result.OriginCounts{Captured: 4, Reconstructed: 2}},
			capturedLanes: counts{Unique: 3, Manifestations: 4, UniqueByFamily: map[string]int{"fam": 2, "other": 1},
				ManifestationsByFamily: map[string]int{"fam": 3, "other": 1},
				UniqueByOrigin:         result.OriginCounts{Captured: 3}, ManifestationsByOrigin: result.OriginCounts{Captured: 4}},
		},
		{
			// At F4/P's A2 a captured and a reconstructed lane pass and a captured and a
			// reconstructed lane are unmet: the captured ones alone show it, so it is captured. At
			// M3 a captured lane passes and only the reconstructed r is unmet; at H4 only the
			// reconstructed s passes: neither shows without a reconstructed carrier.
			name: "captured and reconstructed on both sides",
			rows: concat(
				captured(row{"F4", "P", "a", "A2", "unmet"}, row{"F4", "P", "c", "A2", "pass"}),
				reconstructed(row{"F4", "P", "r", "A2", "unmet"}, row{"F4", "P", "s", "A2", "pass"}),
				captured(row{"F4", "P", "c", "M3", "pass"}), reconstructed(row{"F4", "P", "r", "M3", "unmet"}),
				captured(row{"F4", "P", "a", "H4", "unmet"}), reconstructed(row{"F4", "P", "s", "H4", "pass"})),
			all: counts{Unique: 1, Manifestations: 3, UniqueByFamily: map[string]int{"other": 1},
				ManifestationsByFamily: map[string]int{"other": 3},
				UniqueByOrigin:         result.OriginCounts{Captured: 1},
				ManifestationsByOrigin: result.OriginCounts{Captured: 1, Reconstructed: 2}},
			capturedLanes: counts{Unique: 1, Manifestations: 1, UniqueByFamily: map[string]int{"other": 1},
				ManifestationsByFamily: map[string]int{"other": 1},
				UniqueByOrigin:         result.OriginCounts{Captured: 1}, ManifestationsByOrigin: result.OriginCounts{Captured: 1}},
		},
		{
			name:          "no divergence",
			rows:          captured(row{"F4", "P", "a", "A2", "pass"}, row{"F4", "P", "c", "A2", "pass"}),
			all:           counts{UniqueByFamily: map[string]int{}, ManifestationsByFamily: map[string]int{}},
			capturedLanes: counts{UniqueByFamily: map[string]int{}, ManifestationsByFamily: map[string]int{}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := testNew(m, "p")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.rows {
				for rep := 1; rep <= 3; rep++ {
					reading := result.Reading{
						Binding:    result.Binding{Position: result.Position{Fixture: r.fixture, Lane: r.lane, LaneVersion: "1", Configuration: "default", Stage: r.stage}, Task: r.task},
						Repetition: rep, Origin: r.origin, Outcome: r.outcome, File: "obs/" + r.lane + ".jsonl", Line: rep,
					}
					if r.outcome == result.Unmet {
						reading.Diagnostics = []result.Diagnostic{{"atom": "a", "path": "", "kind": "missing"}}
					}
					if err := c.Add(reading); err != nil {
						t.Fatal(err)
					}
				}
			}
			rep := mustReport(t, c)
			all, capt := countsOf(rep.Divergences), countsOf(rep.CapturedDivergences)
			if !reflect.DeepEqual(all, tc.all) {
				t.Errorf("all lanes\n got %+v\nwant %+v", all, tc.all)
			}
			if !reflect.DeepEqual(capt, tc.capturedLanes) {
				t.Errorf("captured lanes\n got %+v\nwant %+v", capt, tc.capturedLanes)
			}
			if all.UniqueByOrigin.Captured != capt.Unique || all.ManifestationsByOrigin.Captured != capt.Manifestations {
				t.Errorf("all lanes' captured counts %+v, %+v; the captured census has %d unique, %d manifestations",
					all.UniqueByOrigin, all.ManifestationsByOrigin, capt.Unique, capt.Manifestations)
			}
			for name, d := range map[string]result.Divergences{"all lanes": rep.Divergences, "captured lanes": rep.CapturedDivergences} {
				o, mo := d.UniqueByOrigin, d.ManifestationsByOrigin
				if o.Captured+o.Reconstructed != len(d.Unique) || mo.Captured+mo.Reconstructed != d.Manifestations {
					t.Errorf("%s: by origin %+v, %+v do not add up to %d unique, %d manifestations", name, o, mo, len(d.Unique), d.Manifestations)
				}
			}
		})
	}
}

// BenchmarkDivergences counts the divergences of the census over every lane of 600,000
// bindings (lanes a and b captured, c reconstructed, 50,000 versions each, two fixtures, two
// stages, half of them unmet): the pass that reads each binding's outcome and origin.
func BenchmarkDivergences(b *testing.B) {
	const versions = 50_000
	c, err := testNew(model(), "p")
	if err != nil {
		b.Fatal(err)
	}
	line := 0
	for v := range versions {
		for _, lane := range []string{"a", "b", "c"} {
			origin := "captured"
			if lane == "c" {
				origin = "reconstructed"
			}
			for _, fixture := range []string{"F1", "F3"} {
				for i, stage := range []string{"A2", "M3"} {
					line++
					outcome := result.Pass
					if (v+i)%2 == 0 {
						outcome = result.Unmet
					}
					r := result.Reading{Binding: result.Binding{Position: result.Position{Fixture: fixture, Lane: lane, LaneVersion: fmt.Sprint("v", v), Configuration: "default", Stage: stage}, Task: "P"},
						Repetition: 1, Origin: origin, Outcome: outcome, File: "obs/bench.jsonl", Line: line}
					if err := c.Add(r); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	tb, err := c.makeTable()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.divergences(tb, func(*binding) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}
