package study

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// pos is a position of lane l at stage st of fixture f, version v1, configuration default.
func pos(f, l, st string) result.Position {
	return result.Position{Fixture: f, Lane: l, LaneVersion: "v1", Configuration: "default", Stage: st}
}

// binding is a check result of task at a position.
func binding(p result.Position, task, outcome string) result.Result {
	return result.Result{Fixture: p.Fixture, Lane: p.Lane, LaneVersion: p.LaneVersion, Configuration: p.Configuration,
		Stage: p.Stage, Task: task, Outcome: outcome, Origin: "captured", Family: "structured"}
}

// reading is a captured whole-value reading with each decoder's kind; expected says whether the
// source has a value.
func reading(p result.Position, expected bool, kinds map[string]string) compare.Reading {
	r := compare.Reading{Position: p, Target: compare.WholeTarget, State: "captured", Origin: "captured", Readouts: map[string]map[string]any{}}
	if expected {
		r.Expected = &compare.Value{V: map[string]any{}}
	}
	for d, k := range kinds {
		r.Readouts[d] = map[string]any{"kind": k}
	}
	return r
}

// synthetic is a compare run over lanes fw (a framework lane) and ctl (a control lane).
func synthetic(results []result.Result, readings []compare.Reading, guard []result.Divergence) (*compare.Report, Checks) {
	m := &contract.Model{Lanes: map[string]contract.Lane{"fw": {}, "ctl": {Control: true}}}
	div := result.Divergences{Unique: []result.Divergence{{Fixture: "C1", Task: "T2", Family: "structured", Stages: []string{"A2"}}},
		Manifestations: 1, UniqueByFamily: map[string]int{"structured": 1}, ManifestationsByFamily: map[string]int{"structured": 1},
		UniqueByOrigin: result.OriginCounts{Captured: 1}, ManifestationsByOrigin: result.OriginCounts{Captured: 1},
		Guard: guard, LeaveOneOut: map[string]int{"fw": 0}}
	base := &result.Report{Profile: "p", NullPolicy: "strict", Results: result.ResultList(results), Divergences: div}
	other := &result.Report{Profile: "q", NullPolicy: "optional-null", Results: result.ResultList(results), Divergences: div}
	cr := &compare.Report{Decoders: []compare.Decoder{{Name: NativeDecoder}, {Name: FallbackDecoder}}, Readouts: readings}
	return cr, Checks{Base: base, Other: other, Model: m}
}

// TestTables: each table counts what its doc says, on a run built by hand.
func TestTables(t *testing.T) {
	n, f := NativeDecoder, FallbackDecoder
	results := []result.Result{
		binding(pos("C1", "fw", "A2"), "T2", result.Pass),
		binding(pos("C2", "fw", "A2"), "T2", result.Unmet),
		binding(pos("C3", "fw", "A2"), "T2", result.ExecutionFailed),
		binding(pos("C1", "fw", "D1"), "T2", result.NotObservable),
		binding(pos("C1", "ctl", "A2"), "T2", result.Pass),
		binding(pos("C1", "fw", "A2"), "T1", result.NotApplicable),
	}
	readings := []compare.Reading{
		reading(pos("C1", "fw", "A2"), false, map[string]string{n: compare.Match, f: compare.Match}),        // a correct absence
		reading(pos("C2", "fw", "A2"), true, map[string]string{n: compare.Missing, f: compare.Match}),       // from JSON text
		reading(pos("C3", "fw", "A2"), true, map[string]string{n: compare.Match, f: compare.Match}),         // from the slot
		reading(pos("C3", "fw", "D1"), true, map[string]string{n: compare.Match, f: compare.Match}),         // not a decoder stage
		reading(pos("C1", "ctl", "A2"), false, map[string]string{n: compare.Match, f: compare.Unparseable}), // control apart
	}
	guard := []result.Divergence{{Fixture: "C2", Task: "T1", Family: "structured", Stages: []string{"A2"}},
		{Fixture: "C2", Task: "T5", Family: "structured", Stages: []string{"M3"}}}
	r, err := Tables(synthetic(results, readings, guard))
	if err != nil {
		t.Fatal(err)
	}
	cell := func(lane, stage, task string) PassCell {
		for _, p := range r.PassCounts {
			if p.Lane == lane && p.Stage == stage {
				for _, c := range p.Cells {
					if c.Task == task {
						return c
					}
				}
			}
		}
		t.Fatalf("no table IV cell %s %s %s", lane, stage, task)
		return PassCell{}
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"lanes: framework lanes first", []string{r.Lanes[0].Lane, r.Lanes[1].Lane}, []string{"fw", "ctl"}},
		{"tasks with a binding", r.Tasks, []string{"T1", "T2"}},
		{"stages with a binding", r.Stages, []string{"D1", "A2"}},
		{"IV: passes", cell("fw", "A2", "T2").Pass, 1},
		{"IV: judged counts execution_failed, not not_applicable", cell("fw", "A2", "T2").Judged, 3},
		{"IV: not_applicable is not judged", cell("fw", "A2", "T1").Judged, 0},
		{"IV: not_observable is not judged", cell("fw", "D1", "T2").Judged, 0},
		{"V: T1 divergences only", len(r.Divergences[0].T1), 1},
		{"V: every guard divergence", r.Divergences[0].Guard, 2},
		{"V: both profiles", []string{r.Divergences[0].Profile, r.Divergences[1].Profile}, []string{"p", "q"}},
		{"VII: positions at the decoder stages only", len(r.Positions), 4},
		{"VII: a match without a source value is source-absent", r.Positions[0].Readouts[n], SourceAbsent},
		{"VII: framework native-slot", r.DecoderTotals[0].Framework.Kinds, kinds(map[string]int{compare.Match: 1, SourceAbsent: 1, compare.Missing: 1})},
		{"VII: framework fallback", r.DecoderTotals[1].Framework.Kinds, kinds(map[string]int{compare.Match: 2, SourceAbsent: 1})},
		{"VII: control apart", r.DecoderTotals[1].Control.Kinds, kinds(map[string]int{compare.Unparseable: 1})},
		{"VI: positions", r.JSONText[0].Positions, 3},
		{"VI: matches", r.JSONText[0].Matches, map[string]int{n: 2, f: 3}},
		{"VI: from text: fallback matches native-slot does not make", r.JSONText[0].TextMatches, map[string]int{f: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !equal(tt.got, tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

// kinds is a Kinds count with the given entries, every other kind 0.
func kinds(m map[string]int) map[string]int {
	out := map[string]int{}
	for _, k := range Kinds {
		out[k] = m[k]
	}
	return out
}

func equal(a, b any) bool {
	ab, _ := strictjson.Marshal(a)
	bb, _ := strictjson.Marshal(b)
	return bytes.Equal(ab, bb)
}

// TestTablesOfNothing: a run whose selection holds no binding is an error, not empty tables.
func TestTablesOfNothing(t *testing.T) {
	if _, err := Tables(synthetic(nil, nil, nil)); err == nil || !strings.Contains(err.Error(), "no binding") {
		t.Fatalf("got %v, want an error saying the selection holds no binding", err)
	}
}

// TestBuiltinTables computes the tables from the built-in records: the same bytes in every
// format with 1 and 8 workers, the JSON valid against study-report.schema.json, the counts
// consistent across tables, the control lane matching everywhere under both decoders, and each
// format as testdata/study.* holds it (-update rewrites them).
func TestBuiltinTables(t *testing.T) {
	outputs := map[string][][]byte{}
	var r *Report
	for _, workers := range []int{1, 8} {
		o := Options{}
		o.Workers = workers
		var err error
		if r, err = Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		for _, f := range Outputters().Names() {
			var buf bytes.Buffer
			if err := Outputters().Write(&buf, f, report.Options{}, r); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			outputs[f] = append(outputs[f], buf.Bytes())
		}
	}
	for f, outs := range outputs {
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s output differs between 1 and 8 workers", f)
		}
		testkit.Golden(t, filepath.Join("testdata", "study."+map[string]string{"text": "txt", "markdown": "md", "json": "json"}[f]), outs[0], *update)
	}
	validateJSON(t, outputs["json"][0])

	if r.ExitCode() != result.ExitSatisfied {
		t.Errorf("exit %d, want 0", r.ExitCode())
	}
	for _, tot := range r.DecoderTotals {
		if bad := tot.Control.Total - tot.Control.Kinds[compare.Match] - tot.Control.Kinds[SourceAbsent]; bad != 0 || tot.Control.Total == 0 {
			t.Errorf("%s: %d of %d control readouts are not a match", tot.Decoder, bad, tot.Control.Total)
		}
		var positions int
		for _, j := range r.JSONText {
			if !r.isControl(j.Lane) {
				positions += j.Positions
			}
		}
		if tot.Framework.Total != positions {
			t.Errorf("%s: table VII counts %d framework readouts, table VI %d positions", tot.Decoder, tot.Framework.Total, positions)
		}
	}
	var passes int
	for _, p := range r.PassCounts {
		for _, c := range p.Cells {
			passes += c.Pass
		}
	}
	if cr, _, err := compare.RunWithChecks(context.Background(), defaults(Options{}).Options); err != nil {
		t.Fatal(err)
	} else if passes != cr.NullPolicies.Base.Pass {
		t.Errorf("table IV counts %d passes, the check %d", passes, cr.NullPolicies.Base.Pass)
	}
	if !slices.Contains(r.Cohort.Lanes, "openai-agents@application-context") {
		t.Errorf("cohort %v: not the study profile's", r.Cohort.Lanes)
	}
}

func validateJSON(t *testing.T, b []byte) {
	t.Helper()
	doc, v := reportkit.JSONDoc(t, "study.json", b), reportkit.Schemas(t)
	if err := v.ValidateStudyReport(doc); err != nil {
		t.Fatalf("the study report does not validate: %v", err)
	}
	doc.(map[string]any)["studyVersion"] = Version + 1
	if err := v.ValidateStudyReport(doc); err == nil || !strings.Contains(err.Error(), "/studyVersion") {
		t.Errorf("studyVersion %d validates: %v", Version+1, err)
	}
}

// TestHostileStrings writes text and markdown tables whose lane, version, configuration, fixture,
// task and profile names are strings of the hostile corpus: no line starts a CI command, no
// control or bidi character reaches the text, and no markdown row gains or loses a cell or
// holds raw HTML.
func TestHostileStrings(t *testing.T) {
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			s := c.S
			p := result.Position{Fixture: "F" + s, Lane: "fw", LaneVersion: "v" + s, Configuration: "c" + s, Stage: "A2"}
			results := []result.Result{binding(p, "T"+s, result.Pass), binding(p, "T1", result.ExecutionFailed)}
			readings := []compare.Reading{reading(p, true, map[string]string{NativeDecoder: compare.Match, FallbackDecoder: compare.Wrong})}
			cr, checks := synthetic(results, readings, []result.Divergence{{Fixture: "F" + s, Task: "T1", Family: "fam" + s, Stages: []string{"A2"}}})
			checks.Base.Profile, checks.Base.Cohort = "p"+s, &result.Scope{Lanes: []string{"l" + s}}
			r, err := Tables(cr, checks)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"text", "markdown"} {
				var b bytes.Buffer
				if err := Outputters().Write(&b, f, report.Options{}, r); err != nil {
					t.Fatal(err)
				}
				testkit.TerminalSafe(t, f, b.String(), false)
				header := 0 // the cell separators of the current markdown table's header
				for n, line := range strings.Split(b.String(), "\n") {
					if f != "markdown" {
						continue
					}
					switch {
					case !strings.HasPrefix(line, "|"):
						header = 0
					case header == 0:
						header = hostile.MarkdownCells(line)
					case hostile.MarkdownCells(line) != header:
						t.Errorf("markdown line %d has %d cell separators, its table's header %d: %q", n+1, hostile.MarkdownCells(line), header, line)
					}
					if strings.Contains(hostile.OutsideCode(line), "<script") {
						t.Errorf("markdown line %d holds raw HTML: %q", n+1, line)
					}
				}
			}
		})
	}
}
