package census

import (
	"reflect"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestReportReleasesTheTable: Report lets the readings' index go (the report never looks a reading
// up); a reading added after a report finds its binding and its reading again (a repetition
// recorded twice is still refused, by the next report, a further repetition that reads what the
// first read still joins its binding as one variant, not an unstable second one), and the next
// report is the one a census that never reported would make.
func TestReportReleasesTheTable(t *testing.T) {
	at := func(version, task string, line, rep int, outcome string) result.Reading {
		r := result.Reading{
			Binding:    result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: version, Configuration: "default", Stage: "A2"}, Task: task},
			Repetition: rep, Origin: "captured", Outcome: outcome, File: "obs/a.jsonl", Line: line,
		}
		if outcome == result.Unmet {
			r.Readout = map[string]any{"kinds": []any{"text", "resource"}, "uri": "file:///a \u2028 \"b\""}
			r.Diagnostics = []result.Diagnostic{{"code": "block.count", "observed": 1.5, "source": []any{nil, true}}}
		}
		return r
	}
	first := []result.Reading{at("1", "P", 1, 1, result.Pass), at("1", "G", 1, 1, result.Pass), at("2", "P", 2, 1, result.Unmet)}
	later := []result.Reading{at("2", "P", 3, 2, result.Unmet), at("3", "P", 4, 1, result.Pass)}
	tests := []struct {
		name    string
		add     result.Reading
		wantErr string
	}{
		{name: "a repetition recorded twice", add: at("1", "P", 9, 1, result.Pass), wantErr: "repetition 1 recorded twice (first at obs/a.jsonl:1)"},
		{name: "a new binding", add: at("4", "G", 9, 1, result.Pass)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := testNew(model(), "p")
			if err != nil {
				t.Fatal(err)
			}
			whole, err := testNew(model(), "p")
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range first {
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
				if err := whole.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			mustReport(t, c)
			if c.variants.index != nil {
				t.Fatal("the readings' index is kept after the report")
			}
			for _, r := range append(later, tc.add) {
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
				if err := whole.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			got, err := c.Report()
			want, werr := whole.Report()
			if (err == nil) != (werr == nil) {
				t.Fatalf("after a report: %v, without one %v", err, werr)
			}
			if err != nil {
				if tc.wantErr == "" || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Report = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if tc.wantErr != "" {
				t.Fatalf("no error, want %q", tc.wantErr)
			}
			if !reflect.DeepEqual(results(got), results(want)) || got.Summary != want.Summary {
				t.Errorf("the report after a report differs:\n%+v\nwant\n%+v", results(got), results(want))
			}
		})
	}
}

// results lists a report's results as values.
func results(r *result.Report) []result.Result {
	var out []result.Result
	for _, res := range r.Each() {
		out = append(out, *res)
	}
	return out
}
