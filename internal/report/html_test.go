package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// fakeViews stands for the check's instrument: a source view per fixture, an observed view per
// binding with a record, and one binding rule.
type fakeViews struct{ err error }

func (f fakeViews) SourceView(fixture string) (any, error) {
	return map[string]any{"structured": map[string]any{"n": json.Number("12345678901234567891")}, "content": []any{
		map[string]any{"kind": "text", "text": "from " + fixture + " </script><script>alert(1)</script>"}}}, nil
}

func (f fakeViews) ObservedView(r *result.Result) (any, bool, error) {
	if f.err != nil {
		return nil, false, f.err
	}
	if len(r.Records) == 0 {
		return nil, false, nil
	}
	return map[string]any{"structured": map[string]any{"n": json.Number("12345678901234567000")}}, true, nil
}

func (f fakeViews) Binding(lane, stage, compartment string) (result.CompartmentBinding, bool) {
	return result.CompartmentBinding{Exposure: "observed", Doc: lane + " " + stage + " " + compartment,
		Rule:  map[string]any{"root": "", "structured": map[string]any{"path": "/structuredContent"}},
		Basis: []result.Basis{{Rule: "the SDK decodes numbers as float64", File: "mcp/content.go", Function: "UnmarshalJSON", Version: "v1.8.0"}}}, true
}

// pageData extracts the JSON the page's script reads.
func pageData(t *testing.T, page string) htmlData {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/json" id="cc-data">(.*)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no cc-data script in the page")
	}
	var d htmlData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("cc-data is not JSON: %v", err)
	}
	return d
}

func TestHTMLWithViews(t *testing.T) {
	r := sample()
	var buf bytes.Buffer
	if err := (HTML{Views: fakeViews{}}).Output(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	testkit.Golden(t, filepath.Join("testdata", "html-views.golden"), buf.Bytes(), *update)
	var again bytes.Buffer
	if err := (HTML{Views: fakeViews{}}).Output(&again, r); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Errorf("a second output differs (err %v)", err)
	}

	for _, l := range regexp.MustCompile(`href="#b-(\d+)"`).FindAllStringSubmatch(page, -1) {
		if i, _ := strconv.Atoi(l[1]); i >= r.Len() {
			t.Errorf("link to #b-%d: no such cell", i)
		}
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a view's text ended the data script: it must be escaped")
	}

	d := pageData(t, page)
	str := func(i int) string {
		if i < 0 || i >= len(d.S) {
			return ""
		}
		return d.S[i]
	}
	for i, res := range r.Each() {
		row := d.Results[i]
		g, sh := d.Groups[row[rGroup]], d.Shapes[row[rShape]]
		if str(row[rOutcome]) != res.Outcome || str(row[rStage]) != res.Stage || str(d.Fixtures[row[rFixture]][0]) != res.Fixture ||
			str(g[0]) != res.Lane || str(g[1]) != res.LaneVersion || (sh[sRequired] == 1) != res.Required || str(sh[sTask]) != res.Task {
			t.Errorf("result %d reads back as %v, want %s %s %s %s %s required %v", i, row, res.Fixture, res.Lane, res.LaneVersion, res.Stage, res.Outcome, res.Required)
		}
	}
	leaves := func(v int) string { return compactJSON(d.Views[v]) + fmt.Sprint(d.S) }
	diag := func(i int) [7]int { return d.Diags[d.Lists[d.Results[i][rDiags]][0]] }
	bind := d.Shapes[d.Results[0][rShape]][sBinding]
	basis := d.Lists[d.Bindings[bind][8]]
	tests := []struct {
		name string
		ok   bool
	}{
		{"one result per binding, in report order", len(d.Results) == r.Len() && str(d.Shapes[d.Results[0][rShape]][sTask]) == "T2"},
		{"groups sorted by lane and version", len(d.Groups) == 3 && str(d.Groups[0][0]) == "adk-go" && str(d.Groups[2][0]) == "go-sdk"},
		{"exact digits in the source view", d.Fixtures[0][3] >= 0 && strings.Contains(leaves(d.Fixtures[0][3]), "12345678901234567891")},
		{"observed view of a binding with records", d.Results[0][rObserved] >= 0 && d.Results[0][rObserved] != d.Fixtures[0][3]},
		{"no observed view without records", d.Results[3][rObserved] == -1},
		{"diagnostic pointer in the view", len(d.Lists[d.Results[0][rDiags]]) == 1 && str(diag(0)[3]) == "/structured/n"},
		{"diagnostic values keep their digits", str(diag(0)[5]) == "12345678901234567891"},
		{"records by file and line", len(d.Results[0]) == rRecords+9 && str(d.Results[0][rRecords+3]) == "obs/go-sdk/v1.8.0/default.jsonl" && d.Results[0][rRecords+4] == 8},
		{"binding rule and basis", d.Bindings[bind][6] >= 0 && str(d.Basis[basis[0]][1]) == "mcp/content.go"},
		{"boundary at its binding", len(d.Loc) == 1 && d.Loc[0][6] == 0 && str(d.Loc[0][3]) == "W0" && str(d.Loc[0][4]) == "D1"},
		{"unstable variants kept", len(d.Variants) == 2 && d.Variants[0][0] == 2 && d.Variants[1][0] == 2},
		{"an upgrade's change links both sides", len(d.Upgrades) == 1 && d.Upgrades[0][5] == 1 && str(d.Changes[0][7]) == "block.count missing"},
		{"the roll-up names the atom where it is first lost", strings.Contains(page, `<div class="lost"><span class="at">D1</span> <a href="#b-0" class="atom k-altered" title="structured.value altered, first lost at D1 by C02 T2 (transformation)">structured.value <small>altered</small></a>`)},
		{"views available", d.NoViews == ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Error("does not hold")
			}
		})
	}
}

func TestHTMLWithoutViewsSaysSo(t *testing.T) {
	var buf bytes.Buffer
	if err := (HTML{}).Output(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, buf.String())
	if d.NoViews == "" || len(d.Views) != 0 || d.Results[0][rObserved] != -1 || d.Shapes[0][sBinding] != -1 {
		t.Errorf("without views: noViews %q, %d views, result %v", d.NoViews, len(d.Views), d.Results[0])
	}
}

func TestHTMLViewError(t *testing.T) {
	err := (HTML{Views: fakeViews{err: errors.New("record file changed")}}).Output(&bytes.Buffer{}, sample())
	if err == nil || !strings.Contains(err.Error(), "record file changed") || !strings.Contains(err.Error(), "T2 C02 go-sdk") {
		t.Errorf("error %v, want the provider's error naming the binding", err)
	}
}

func TestViewPointer(t *testing.T) {
	tests := []struct {
		name string
		d    result.Diagnostic
		want string
	}{
		{"block atom under the content list", result.Diagnostic{"atom": "block.annotations", "path": "/2/annotations/priority"}, "/content/2/annotations/priority"},
		{"structured value under the slot", result.Diagnostic{"atom": "structured.value", "path": "/sequence"}, "/structured/sequence"},
		{"structured state is the slot", result.Diagnostic{"atom": "structured.state", "path": ""}, "/structured"},
		{"result meta under meta", result.Diagnostic{"atom": "result._meta", "path": "/com.example~1private"}, "/meta/com.example~1private"},
		{"other atoms are the view's own", result.Diagnostic{"atom": "error.decision", "path": "/isError"}, "/isError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ViewPointer(tc.d); got != tc.want {
				t.Errorf("ViewPointer = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestJSONLines(t *testing.T) {
	v := map[string]any{"b": []any{json.Number("1.50"), nil}, "a/x": map[string]any{}, "c": "t~"}
	got := jsonLines(v)
	want := []jsonLine{
		{0, "", "{"}, {1, "/a~1x", `"a/x": {},`}, {1, "/b", `"b": [`}, {2, "/b/0", "1.50,"}, {2, "/b/1", "null"},
		{1, "/b", "],"}, {1, "/c", `"c": "t~"`}, {0, "", "}"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// BenchmarkHTML writes the page of the sample with its views, and of 5,000 synthetic bindings
// (a list, as a report read back holds them) with a gate violation: the cost of the page's
// markup and of its data script.
func BenchmarkHTML(b *testing.B) {
	big := &result.Report{ReportVersion: result.Version, Profile: "bench", NullPolicy: "strict", Gate: syntheticGate()}
	list := make(result.ResultList, 0, 5000)
	for i := range 5000 {
		list = append(list, synthetic(5000).At(i))
	}
	big.Results = list
	for _, res := range big.Each() {
		big.Summary.Add(res.Outcome)
	}
	for _, bc := range []struct {
		name string
		h    HTML
		r    *result.Report
	}{{"sample", HTML{Views: fakeViews{}}, sample()}, {"5000 bindings", HTML{}, big}} {
		b.Run(bc.name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := bc.h.Output(&buf, bc.r); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}
