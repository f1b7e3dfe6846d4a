package policy

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/layer"
)

// testLayer is a policy layer with a rule, its tests (one failing on a value, one on a custom
// builtin's result) and a file the loader must ignore beside them.
var testLayer = fstest.MapFS{
	"p/m.rego": {Data: []byte("package m\n\ndouble(n) := n * 2\n\nparsed(s) := contractcheck.json_text(s)\n\nunused := 1\n")},
	"p/m_test.rego": {Data: []byte(`package m_test

import data.m

test_double if {
	m.double(2) == 4
}

test_double_wrong if {
	got := m.double(3)
	got == 7
}

test_parsed if {
	m.parsed("{\"a\": 1}") == {"a": 2}
}
`)},
	"p/capabilities.json": {Data: []byte("{not rego at all")},
}

// TestRunTests runs a layer's tests: every result with its location; a failure names the
// expression that failed and the value its variables held; --run selects by full name; coverage
// counts the policy lines (the test file left out) the selected tests evaluated.
func TestRunTests(t *testing.T) {
	e, err := Load([]layer.Dir{layer.FS(testLayer, "p", "mine")}, LoadOptions{Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		opts     TestOptions
		want     map[string]string // test name → "pass", or text its FailedAt holds
		coverage string            // "<covered>/<total> <not covered>"
	}{
		{name: "all", opts: TestOptions{}, want: map[string]string{
			"test_double":       "pass",
			"test_double_wrong": "mine/m_test.rego:11:\n\tgot == 7\n\t|\n\t6",
			"test_parsed":       `{"a": 1}`,
		}},
		{name: "run one", opts: TestOptions{Run: `^data\.m_test\.test_double$`, Coverage: true},
			want: map[string]string{"test_double": "pass"}, coverage: "1/3 [5 7]"},
		{name: "run two, with coverage", opts: TestOptions{Run: `test_(double|parsed)$`, Coverage: true},
			want: map[string]string{"test_double": "pass", "test_parsed": `{"a": 1}`}, coverage: "2/3 [7]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, err := e.RunTests(context.Background(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Results) != len(tc.want) {
				t.Fatalf("%d results, want %d: %+v", len(run.Results), len(tc.want), run.Results)
			}
			for _, r := range run.Results {
				want, ok := tc.want[r.Name]
				switch {
				case !ok:
					t.Errorf("%s ran", r.Name)
				case want == "pass" && !r.Pass:
					t.Errorf("%s failed: %s %s", r.Name, r.Fail, r.FailedAt)
				case want != "pass" && (r.Pass || !strings.Contains(r.FailedAt, want)):
					t.Errorf("%s: pass %v, FailedAt %q, want it to hold %q", r.Name, r.Pass, r.FailedAt, want)
				case !strings.HasPrefix(r.Location, "mine/m_test.rego:"):
					t.Errorf("%s at %q", r.Name, r.Location)
				}
			}
			if tc.coverage == "" {
				if run.Coverage != nil {
					t.Errorf("coverage reported without asking")
				}
				return
			}
			c := run.Coverage
			var rows []int
			for _, f := range c.Files {
				for _, r := range f.NotCovered {
					rows = append(rows, r.Start)
				}
			}
			got := fmt.Sprintf("%d/%d %v", c.CoveredLines, c.CoveredLines+c.NotCoveredLines, rows)
			if got != tc.coverage || len(c.Files) != 1 || c.Files[0].File != "mine/m.rego" {
				t.Errorf("coverage %s in %+v, want %s in mine/m.rego only", got, c.Files, tc.coverage)
			}
		})
	}
}
