package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// countsReport is the report of a census where unique divergences and manifestations differ, by
// family and by origin: lanes a and b are captured, r is reconstructed, ctl is the control.
//
//   - F1 (rich), T: a passes at A2, M3 and H4; b is unmet at A2 and M3 (captured), r at H4
//     (reconstructed): one unique divergence, three manifestations (two captured).
//   - F2 (structured), T: a passes and r is unmet at A2: one unique divergence and one
//     manifestation, both reconstructed.
//   - F3 (rich), T: b passes and a is unmet at M3: one unique, one manifestation, captured.
//
// Over every lane: 3 unique (rich 2, structured 1; captured 2, reconstructed 1) and 5
// manifestations (rich 4, structured 1; captured 3, reconstructed 2). Over captured carriers
// only: 2 unique (rich 2) and 3 manifestations (rich 3).
//
// The report is read from testdata/counts-report.json, which is what census.New and Add gave for
// those eleven readings under a profile "p" whose one requirement is that the control passes (the
// census's own TestCensusCounts holds how it counts). Reading it rather than making it keeps
// CUE and the contract loader out of this package's test binary: the formats read the report only.
func countsReport(t *testing.T) *result.Report {
	t.Helper()
	var r result.Report
	testkit.ReadJSON(t, filepath.Join("testdata", "counts-report.json"), &r)
	return &r
}

// TestCountsLabelled: every format that shows a census's counts labels each as what it counts,
// unique divergences apart from manifestations, by family and by origin, with the numbers of a
// census where the two differ; a format that shows none says nothing by family or by origin.
func TestCountsLabelled(t *testing.T) {
	r := countsReport(t)
	// The labels in the order the text, markdown and HTML formats give them: the census over
	// captured carriers, then the one over every lane, split by origin.
	labelled := []string{
		"unique divergences by family: rich 2",
		"manifestations by family: rich 3",
		"unique divergences by family: rich 2, structured 1",
		"manifestations by family: rich 4, structured 1",
		"unique divergences by origin: captured 2, reconstructed 1",
		"manifestations by origin: captured 3, reconstructed 2",
	}
	prefixed := func(prefix, suffix string) []string {
		out := make([]string, len(labelled))
		for i, l := range labelled {
			out[i] = prefix + l + suffix
		}
		return out
	}
	for _, tc := range []struct {
		name string
		// want are the texts the output holds, in this order; nil for a format that shows no
		// census counts.
		want []string
		// json checks a JSON report.
		json bool
	}{
		{name: "text", want: append([]string{"divergences, captured lanes only: 2 unique, 3 manifestations"}, prefixed("  ", "\n")...)},
		{name: "markdown", want: append([]string{"unique divergences **2**, manifestations **3**"}, prefixed("- ", "\n")...)},
		{name: "html", want: append([]string{"Captured lanes only (no reconstructed carrier): 2 unique, 3 manifestations"}, prefixed("<li>", "</li>")...)},
		{name: "json", json: true},
		{name: "github"}, {name: "junit"}, {name: "sarif"}, {name: "tap"}, {name: "table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.name, Options{}, r)
			switch {
			case tc.json:
				checkJSONCounts(t, []byte(got))
			case tc.want == nil:
				for _, s := range []string{"by family", "by origin"} {
					if strings.Contains(got, s) {
						t.Errorf("%s shows counts %q: give it labelled counts and expect them here\n%s", tc.name, s, got)
					}
				}
			default:
				rest := got
				for _, w := range tc.want {
					i := strings.Index(rest, w)
					if i < 0 {
						t.Fatalf("%s: no %q (after the texts before it) in\n%s", tc.name, w, got)
					}
					rest = rest[i+len(w):]
				}
			}
		})
	}
	t.Run("docs/report.md's example", func(t *testing.T) {
		doc, err := os.ReadFile("../../docs/report.md")
		if err != nil {
			t.Fatal(err)
		}
		const intro = "The text report gives:\n\n```\n"
		_, example, ok := strings.Cut(string(doc), intro)
		example, _, closed := strings.Cut(example, "```")
		if !ok || !closed {
			t.Fatalf("docs/report.md has no example after %q", intro)
		}
		var buf bytes.Buffer
		if err := (Text{}).Output(&buf, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), example) {
			t.Errorf("docs/report.md's example is not what the text report gives:\n%s", buf.String())
		}
	})
	t.Run("every format", func(t *testing.T) {
		for _, f := range outputters.Names() {
			switch f {
			case "text", "markdown", "html", "json", "github", "junit", "sarif", "tap", "table":
			default:
				t.Errorf("format %s: say in TestCountsLabelled whether it shows the census's counts", f)
			}
		}
	})
}

// checkJSONCounts reads the counts of a JSON report: each a member of its own, byFamily gone.
func checkJSONCounts(t *testing.T, data []byte) {
	t.Helper()
	var doc struct {
		ReportVersion       int                        `json:"reportVersion"`
		Divergences         map[string]json.RawMessage `json:"divergences"`
		CapturedDivergences map[string]json.RawMessage `json:"capturedDivergences"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ReportVersion != 3 {
		t.Errorf("reportVersion %d, want 3 (byFamily became uniqueByFamily)", doc.ReportVersion)
	}
	for _, c := range []struct {
		name    string
		members map[string]json.RawMessage
		want    map[string]any
	}{
		{name: "divergences", members: doc.Divergences, want: map[string]any{
			"manifestations":         5.0,
			"uniqueByFamily":         map[string]any{"rich": 2.0, "structured": 1.0},
			"manifestationsByFamily": map[string]any{"rich": 4.0, "structured": 1.0},
			"uniqueByOrigin":         map[string]any{"captured": 2.0, "reconstructed": 1.0},
			"manifestationsByOrigin": map[string]any{"captured": 3.0, "reconstructed": 2.0},
		}},
		{name: "capturedDivergences", members: doc.CapturedDivergences, want: map[string]any{
			"manifestations":         3.0,
			"uniqueByFamily":         map[string]any{"rich": 2.0},
			"manifestationsByFamily": map[string]any{"rich": 3.0},
			"uniqueByOrigin":         map[string]any{"captured": 2.0, "reconstructed": 0.0},
			"manifestationsByOrigin": map[string]any{"captured": 3.0, "reconstructed": 0.0},
		}},
	} {
		if _, ok := c.members["byFamily"]; ok {
			t.Errorf("%s has byFamily, which version 2 described as manifestations while it counted unique divergences", c.name)
		}
		for member, want := range c.want {
			var got any
			if err := json.Unmarshal(c.members[member], &got); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s.%s = %s, want %v", c.name, member, c.members[member], want)
			}
		}
	}
}
