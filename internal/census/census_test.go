package census

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// model is a small hand-made contract model: a control lane, lane a whose M3 shares A2's carrier,
// lane b whose D1 is not observable, and lane c.
func model() *contract.Model {
	observed := contract.StageDef{Exposure: contract.Observed}
	lane := func(control bool, stages map[string]contract.StageDef) contract.Lane {
		return contract.Lane{Control: control, Origin: "captured", Versions: []string{"1"},
			Configurations: map[string]contract.Configuration{"default": {}}, Stages: stages}
	}
	return &contract.Model{
		Tasks: map[string]contract.Task{
			"P": {Role: "primary", Compartment: "x"},
			"G": {Role: "guard", Compartment: "x"},
		},
		Families: map[string]contract.Family{"fam": {Census: "primary"}, "stress": {Census: "apart"}},
		Fixtures: map[string]contract.Fixture{
			"F1": {Family: "fam", Tasks: []string{"P", "G"}},
			"F2": {Family: "stress", Tasks: []string{"P"}},
			"F3": {Family: "fam", Tasks: []string{"P"}},
		},
		Lanes: map[string]contract.Lane{
			"ctl": lane(true, map[string]contract.StageDef{"D1": observed, "A2": observed, "M3": observed, "H4": observed}),
			"a":   lane(false, map[string]contract.StageDef{"D1": observed, "A2": observed, "M3": {Exposure: contract.Observed, SharedWith: "A2"}}),
			"b":   lane(false, map[string]contract.StageDef{"D1": {Exposure: contract.NotObservable}, "A2": observed, "M3": observed}),
			"c":   lane(false, map[string]contract.StageDef{"A2": observed, "M3": observed}),
		},
		Profiles: map[string]contract.Profile{
			"p": {NullPolicy: "strict", Require: []contract.Requirement{{
				Doc: "control passes", Scope: result.Scope{Lanes: []string{"ctl"}, Versions: []string{"*"}, Configurations: []string{"*"}, Tasks: []string{"*"}}, Outcomes: []string{"pass"},
			}}},
		},
	}
}

type row struct{ fixture, task, lane, stage, outcome string }

// add records each row three times, as three agreeing repetitions.
func add(t *testing.T, c *Census, rows []row) {
	t.Helper()
	for _, r := range rows {
		for rep := 1; rep <= 3; rep++ {
			reading := result.Reading{
				Binding:    result.Binding{Position: result.Position{Fixture: r.fixture, Lane: r.lane, LaneVersion: "1", Configuration: "default", Stage: r.stage}, Task: r.task},
				Repetition: rep, Origin: "captured", Outcome: r.outcome, File: "obs/" + r.lane + ".jsonl", Line: rep,
			}
			if r.outcome == result.Unmet {
				reading.Diagnostics = []result.Diagnostic{{"atom": "a", "path": "", "kind": "missing"}}
			}
			if err := c.Add(reading); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// matrix is checked by hand in the comments of TestCensusMatrix.
var matrix = []row{
	{"F1", "P", "ctl", "D1", "pass"}, {"F1", "P", "ctl", "A2", "pass"}, {"F1", "P", "ctl", "M3", "pass"}, {"F1", "P", "ctl", "H4", "pass"},
	{"F1", "P", "a", "D1", "pass"}, {"F1", "P", "a", "A2", "pass"}, {"F1", "P", "a", "M3", "unmet"},
	{"F1", "P", "b", "D1", "not_observable"}, {"F1", "P", "b", "A2", "unmet"}, {"F1", "P", "b", "M3", "unmet"},
	{"F1", "P", "c", "A2", "pass"}, {"F1", "P", "c", "M3", "pass"},
	{"F1", "G", "a", "D1", "pass"}, {"F1", "G", "a", "A2", "unmet"},
	{"F1", "G", "b", "A2", "pass"},
	{"F2", "P", "a", "A2", "unmet"}, {"F2", "P", "c", "A2", "pass"},
	{"F3", "P", "a", "D1", "unmet"}, {"F3", "P", "a", "A2", "execution_failed"}, {"F3", "P", "a", "M3", "not_reached"},
	{"F3", "P", "b", "D1", "not_observable"}, {"F3", "P", "b", "A2", "pass"}, {"F3", "P", "b", "M3", "unmet"},
	{"F3", "P", "c", "A2", "pass"}, {"F3", "P", "c", "M3", "pass"},
}

func TestCensusMatrix(t *testing.T) {
	c, err := testNew(model(), "p")
	if err != nil {
		t.Fatal(err)
	}
	add(t, c, matrix)
	r := mustReport(t, c)

	// F1/P: at A2 a and c pass while b is unmet; at M3 c passes while a and b are unmet; D1 and H4
	// have one side only. F3/P: only M3 (b unmet, c pass); a's execution failure and not_reached
	// are not captured unmets. F2 is set apart, F1/G is a guard. The control lane never counts.
	want := result.Divergences{
		Unique: []result.Divergence{
			{Fixture: "F1", Task: "P", Family: "fam", Stages: []string{"A2", "M3"}},
			{Fixture: "F3", Task: "P", Family: "fam", Stages: []string{"M3"}},
		},
		Manifestations:         3,
		UniqueByFamily:         map[string]int{"fam": 2},
		ManifestationsByFamily: map[string]int{"fam": 3},
		UniqueByOrigin:         result.OriginCounts{Captured: 2},
		ManifestationsByOrigin: result.OriginCounts{Captured: 3},
		Guard:                  []result.Divergence{{Fixture: "F1", Task: "G", Family: "fam", Stages: []string{"A2"}}},
		Apart:                  []result.Divergence{{Fixture: "F2", Task: "P", Family: "stress", Stages: []string{"A2"}}},
		// Without a: F1/P at A2 (b unmet, c pass) and M3 (b, c), F3/P at M3: 2.
		// Without b: F1/P at M3 (a unmet, c pass) only: 1. Without c: F1/P at A2 (a pass, b unmet): 1.
		LeaveOneOut: map[string]int{"a": 2, "b": 1, "c": 1},
	}
	if !reflect.DeepEqual(r.Divergences, want) {
		t.Errorf("divergences\n got %+v\nwant %+v", r.Divergences, want)
	}

	wantLoc := []result.Localization{
		{Fixture: "F1", Lane: "a", LaneVersion: "1", Configuration: "default", Task: "G", From: "D1", To: "A2", Kind: "transformation"},
		{Fixture: "F1", Lane: "a", LaneVersion: "1", Configuration: "default", Task: "P", From: "A2", To: "M3", Kind: "compartment"},
		{Fixture: "F1", Lane: "b", LaneVersion: "1", Configuration: "default", Task: "P", From: "W0", To: "A2", Kind: "interval"},
		{Fixture: "F2", Lane: "a", LaneVersion: "1", Configuration: "default", Task: "P", From: "W0", To: "A2", Kind: "interval"},
		{Fixture: "F3", Lane: "a", LaneVersion: "1", Configuration: "default", Task: "P", From: "W0", To: "D1", Kind: "transformation"},
		{Fixture: "F3", Lane: "b", LaneVersion: "1", Configuration: "default", Task: "P", From: "A2", To: "M3", Kind: "transformation"},
	}
	if got := localizations(r); !reflect.DeepEqual(got, wantLoc) {
		t.Errorf("localizations\n got %+v\nwant %+v", got, wantLoc)
	}

	wantSummary := result.Summary{Pass: 14, Unmet: 7, ExecutionFailed: 1, NotReached: 1, NotObservable: 2}
	if r.Summary != wantSummary {
		t.Errorf("summary %+v, want %+v", r.Summary, wantSummary)
	}
	if !r.Gate.Satisfied || r.ExitCode() != result.ExitSatisfied {
		t.Errorf("gate %+v, exit %d: the control lane passes, so the profile is satisfied", r.Gate, r.ExitCode())
	}
	for _, res := range r.Each() {
		if res.Repetitions != 3 {
			t.Errorf("%+v: %d repetitions, want 3", res.Position(), res.Repetitions)
		}
		if res.Required != (res.Lane == "ctl") {
			t.Errorf("%+v: required = %v", res.Position(), res.Required)
		}
	}
}

func TestCensusRoles(t *testing.T) {
	c, _ := testNew(model(), "p")
	add(t, c, []row{{"F1", "P", "a", "A2", "pass"}, {"F1", "G", "a", "A2", "pass"}, {"F2", "P", "a", "A2", "pass"}})
	got := map[string]string{}
	for _, r := range mustReport(t, c).Each() {
		got[r.Fixture+"/"+r.Task] = r.Role
	}
	want := map[string]string{"F1/P": "primary", "F1/G": "guard", "F2/P": "apart"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roles %v, want %v", got, want)
	}
}

func TestCensusUnstable(t *testing.T) {
	tests := []struct {
		name     string
		outcomes []string // by repetition
		diag     []string // atom of a diagnostic by repetition ("" for none)
		want     string
		variants int
	}{
		{name: "agreeing repetitions collapse", outcomes: []string{"pass", "pass", "pass"}, diag: []string{"", "", ""}, want: "pass"},
		{name: "an outcome that differs is unstable", outcomes: []string{"pass", "unmet", "pass"}, diag: []string{"", "x", ""}, want: "unstable", variants: 2},
		{name: "same outcome, different diagnostics is unstable", outcomes: []string{"unmet", "unmet", "unmet"}, diag: []string{"x", "x", "y"}, want: "unstable", variants: 2},
		{name: "a failure in one repetition is unstable, not dropped", outcomes: []string{"pass", "pass", "execution_failed"}, diag: []string{"", "", ""}, want: "unstable", variants: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := testNew(model(), "p")
			for i, o := range tc.outcomes {
				r := result.Reading{Binding: result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: "1", Configuration: "default", Stage: "A2"}, Task: "P"},
					Repetition: i + 1, Outcome: o}
				if tc.diag[i] != "" {
					r.Diagnostics = []result.Diagnostic{{"atom": tc.diag[i]}}
				}
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			rep := mustReport(t, c)
			res := rep.Results.At(0)
			if res.Outcome != tc.want || len(res.Variants) != tc.variants {
				t.Fatalf("outcome %s with %d variants, want %s with %d", res.Outcome, len(res.Variants), tc.want, tc.variants)
			}
			if tc.want == "unstable" && rep.ExitCode() != result.ExitInstrument {
				t.Errorf("exit %d, want 3", rep.ExitCode())
			}
		})
	}
}

func TestCensusDuplicateRepetition(t *testing.T) {
	c, _ := testNew(model(), "p")
	r := result.Reading{Binding: result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: "1", Configuration: "default", Stage: "A2"}, Task: "P"}, Repetition: 1, Outcome: "pass"}
	r.File, r.Line = "obs/a.jsonl", 1
	if err := c.Add(r); err != nil {
		t.Fatal(err)
	}
	r.Line = 2
	if err := c.Add(r); err != nil {
		t.Fatal(err) // found by the report, where the runs are merged
	}
	_, err := c.Report()
	var re *RepeatedError
	if !errors.As(err, &re) || err.Error() != "obs/a.jsonl:2: F1 a 1 default A2: repetition 1 recorded twice (first at obs/a.jsonl:1)" {
		t.Fatalf("a repetition recorded twice: %v", err)
	}
}

func TestCensusGate(t *testing.T) {
	rows := []row{{"F1", "P", "ctl", "D1", "pass"}, {"F1", "P", "ctl", "A2", "unmet"}, {"F1", "P", "a", "A2", "unmet"},
		{"F1", "P", "b", "D1", "not_observable"}, {"F1", "P", "b", "A2", "pass"}}
	req := func(doc string, edit func(*contract.Requirement)) contract.Requirement {
		r := contract.Requirement{Doc: doc, Name: "profiles.p.require[0]", Outcomes: []string{"pass"}}
		edit(&r)
		return r
	}
	tests := []struct {
		name       string
		require    []contract.Requirement
		verdict    string
		exit       int
		violations []string // lane stage of each violation
		unmatched  string   // a substring of the first requirement's Unmatched
	}{
		{name: "a required unmet binding fails the gate",
			require: []contract.Requirement{req("control passes", func(r *contract.Requirement) { r.Lanes = []string{"ctl"} })},
			verdict: result.VerdictUnmet, exit: result.ExitUnmet, violations: []string{"ctl A2"}},
		{name: "a stage selector gates only that stage",
			require: []contract.Requirement{req("control passes at D1", func(r *contract.Requirement) { r.Lanes, r.Stages = []string{"ctl"}, []string{"D1"} })},
			verdict: result.VerdictSatisfied, exit: result.ExitSatisfied},
		{name: "globs select lanes",
			require: []contract.Requirement{req("every non-control lane", func(r *contract.Requirement) { r.Lanes = []string{"[ab]"} })},
			verdict: result.VerdictUnmet, exit: result.ExitUnmet, violations: []string{"a A2"}},
		{name: "not_observable is exempt by default",
			require: []contract.Requirement{req("b passes", func(r *contract.Requirement) { r.Lanes = []string{"b"} })},
			verdict: result.VerdictSatisfied, exit: result.ExitSatisfied},
		{name: "unobserved count holds not_observable to the outcomes",
			require: []contract.Requirement{req("b passes everywhere", func(r *contract.Requirement) { r.Lanes, r.Unobserved = []string{"b"}, "count" })},
			verdict: result.VerdictUnmet, exit: result.ExitUnmet, violations: []string{"b D1"}},
		{name: "a requirement selecting only exempt bindings gates nothing",
			require: []contract.Requirement{req("b at D1", func(r *contract.Requirement) { r.Lanes, r.Stages = []string{"b"}, []string{"D1"} })},
			verdict: result.VerdictSelectedNothing, exit: result.ExitInputError, unmatched: "all 1 selected bindings are not_applicable or not_observable"},
		{name: "a lane with no binding selects nothing",
			require: []contract.Requirement{req("c passes", func(r *contract.Requirement) { r.Lanes = []string{"c"} })},
			verdict: result.VerdictSelectedNothing, exit: result.ExitInputError, unmatched: `no binding of this run matches lanes ["c"] (seen: a, b, ctl)`},
		{name: "the selector that empties the selection is named",
			require: []contract.Requirement{req("ctl at v9", func(r *contract.Requirement) { r.Lanes, r.Versions = []string{"ctl"}, []string{"9"} })},
			verdict: result.VerdictSelectedNothing, exit: result.ExitInputError, unmatched: `no binding with lanes ["ctl"] matches versions ["9"] (seen: 1)`},
		{name: "a profile without requirements selects nothing",
			verdict: result.VerdictSelectedNothing, exit: result.ExitInputError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := model()
			m.Profiles["p"] = contract.Profile{NullPolicy: "strict", Require: tc.require}
			c, _ := testNew(m, "p")
			add(t, c, rows)
			r := mustReport(t, c)
			if r.Gate.Verdict != tc.verdict || r.ExitCode() != tc.exit || r.Gate.Satisfied != (tc.verdict == result.VerdictSatisfied) {
				t.Errorf("verdict %s exit %d satisfied %v, want %s exit %d", r.Gate.Verdict, r.ExitCode(), r.Gate.Satisfied, tc.verdict, tc.exit)
			}
			var got []string
			for _, v := range r.Gate.Violations {
				got = append(got, v.Lane+" "+v.Stage)
				if len(v.Records) != 3 || (v.Outcome == result.Unmet && v.Diagnostics == nil) {
					t.Errorf("violation %+v: want its three records and diagnostics", v)
				}
			}
			if !reflect.DeepEqual(got, tc.violations) {
				t.Errorf("violations %v, want %v", got, tc.violations)
			}
			if tc.unmatched != "" && !strings.Contains(r.Gate.Requirements[0].Unmatched, tc.unmatched) {
				t.Errorf("unmatched %q, want it to contain %q", r.Gate.Requirements[0].Unmatched, tc.unmatched)
			}
			if tc.exit == result.ExitInputError && r.GateError() == nil {
				t.Error("a gate that selected nothing must explain itself")
			}
		})
	}
}

// TestCensusAmbiguous: an ambiguous repetition (record could not prove which result the item
// carried) is set aside beside the others, so a binding never becomes unstable by it; a binding
// whose every repetition is ambiguous is ambiguous, counted, never exempt: a requirement that does
// not list it is violated.
func TestCensusAmbiguous(t *testing.T) {
	tests := []struct {
		name     string
		outcomes []string // the repetitions' outcomes
		want     string
		verdict  string
	}{
		{name: "beside a pass", outcomes: []string{"ambiguous", "pass", "ambiguous"}, want: result.Pass, verdict: result.VerdictSatisfied},
		{name: "beside an unmet", outcomes: []string{"unmet", "ambiguous"}, want: result.Unmet, verdict: result.VerdictUnmet},
		{name: "every repetition", outcomes: []string{"ambiguous", "ambiguous"}, want: result.Ambiguous, verdict: result.VerdictUnmet},
		{name: "the others disagree", outcomes: []string{"pass", "ambiguous", "unmet"}, want: result.Unstable, verdict: result.VerdictInstrumentFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := testNew(model(), "p")
			for i, o := range tc.outcomes {
				r := result.Reading{Binding: result.Binding{Position: result.Position{Fixture: "F1", Lane: "ctl", LaneVersion: "1", Configuration: "default", Stage: "H4"}, Task: "P"},
					Repetition: i + 1, Origin: "captured", Outcome: o}
				if o == result.Unmet {
					r.Diagnostics = []result.Diagnostic{{"atom": "block.text", "kind": "missing"}}
				}
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			r := mustReport(t, c)
			res := r.Results.At(0)
			if res.Outcome != tc.want || res.Repetitions != len(tc.outcomes) || r.Gate.Verdict != tc.verdict {
				t.Errorf("outcome %s (%d repetitions), verdict %s; want %s (%d), %s", res.Outcome, res.Repetitions, r.Gate.Verdict, tc.want, len(tc.outcomes), tc.verdict)
			}
			if want := map[bool]int{true: 1}[tc.want == result.Ambiguous]; r.Summary.Ambiguous != want {
				t.Errorf("summary counts %d ambiguous, want %d", r.Summary.Ambiguous, want)
			}
		})
	}
}

func TestCensusUnstableFailsTheInstrument(t *testing.T) {
	c, _ := testNew(model(), "p")
	add(t, c, []row{{"F1", "P", "ctl", "D1", "pass"}})
	if err := c.Add(result.Reading{Binding: result.Binding{Position: result.Position{Fixture: "F1", Lane: "ctl", LaneVersion: "1", Configuration: "default", Stage: "D1"}, Task: "P"},
		Repetition: 4, Origin: "captured", Outcome: "unmet"}); err != nil {
		t.Fatal(err)
	}
	r := mustReport(t, c)
	if r.Gate.Verdict != result.VerdictInstrumentFailed || r.Gate.Satisfied || r.ExitCode() != result.ExitInstrument {
		t.Errorf("verdict %s satisfied %v exit %d, want instrument_failed, false, 3", r.Gate.Verdict, r.Gate.Satisfied, r.ExitCode())
	}
	if err := r.GateError(); err == nil || !strings.Contains(err.Error(), "instrument failed") {
		t.Errorf("gate error %v", err)
	}
}

func TestCensusUpgrades(t *testing.T) {
	m := model()
	a := m.Lanes["a"]
	a.Versions = []string{"1", "2", "10"} // declared order is the upgrade path, not string order
	m.Lanes["a"] = a
	c, _ := testNew(m, "p")
	at := func(version, fixture, task, stage, outcome string, rep int) result.Reading {
		r := result.Reading{Binding: result.Binding{Position: result.Position{Fixture: fixture, Lane: "a", LaneVersion: version, Configuration: "default", Stage: stage}, Task: task},
			Repetition: rep, Outcome: outcome}
		if outcome == result.Unmet {
			r.Diagnostics = []result.Diagnostic{{"atom": "block.uri", "kind": "missing"}}
		}
		return r
	}
	differently := at("10", "F2", "P", "A2", "unmet", 1)
	differently.Diagnostics = []result.Diagnostic{{"atom": "block.kind", "kind": "altered"}}
	for _, r := range []result.Reading{
		at("1", "F1", "P", "A2", "unmet", 1), at("2", "F1", "P", "A2", "pass", 1), at("10", "F1", "P", "A2", "pass", 1),
		at("1", "F1", "G", "A2", "pass", 1), at("2", "F1", "G", "A2", "pass", 1), at("10", "F1", "G", "A2", "unmet", 1),
		at("1", "F3", "P", "D1", "pass", 1),                                        // absent at version 2: not a change
		at("1", "F2", "P", "A2", "unmet", 1), at("2", "F2", "P", "A2", "unmet", 1), // same failure: not a change
		differently, // unmet at 10 as at 2, but for another reason: a change
	} {
		if err := c.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	var got []result.Upgrade
	for _, u := range mustReport(t, c).Upgrades {
		var changes result.ChangeList
		for _, ch := range u.Each() {
			changes = append(changes, ch)
		}
		u.Changes = changes
		got = append(got, u)
	}
	diag := []result.Diagnostic{{"atom": "block.uri", "kind": "missing"}}
	want := []result.Upgrade{
		{Lane: "a", Configuration: "default", From: "1", To: "2", Changes: result.ChangeList{
			{Fixture: "F1", Stage: "A2", Task: "P", Before: "unmet", After: "pass", DiagnosticsBefore: diag},
		}},
		{Lane: "a", Configuration: "default", From: "2", To: "10", Changes: result.ChangeList{
			{Fixture: "F1", Stage: "A2", Task: "G", Before: "pass", After: "unmet", DiagnosticsAfter: diag},
			{Fixture: "F2", Stage: "A2", Task: "P", Before: "unmet", After: "unmet", DiagnosticsBefore: diag,
				DiagnosticsAfter: []result.Diagnostic{{"atom": "block.kind", "kind": "altered"}}},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("upgrades\n got %+v\nwant %+v", got, want)
	}
}

// TestReadingsComeBackAsRead holds the census's compact form of a reading (its canonical encoding)
// to what a report reads back: the same readout and diagnostics, numbers spelled as the policy
// gave them, and none kept apart from empty ones, for a binding that agrees and for the variants
// of an unstable one.
func TestReadingsComeBackAsRead(t *testing.T) {
	tests := []struct {
		name        string
		outcome     string
		readout     map[string]any
		diagnostics []result.Diagnostic
	}{
		{name: "pass with an empty readout", outcome: result.Pass, readout: map[string]any{}, diagnostics: []result.Diagnostic{}},
		{name: "execution failure reads nothing", outcome: result.ExecutionFailed},
		{name: "numbers as written", outcome: result.Unmet,
			readout: map[string]any{"count": json.Number("1.0"), "big": json.Number("1E400"), "keys": []any{"a/b", "é", nil, true}},
			diagnostics: []result.Diagnostic{
				{"atom": "result._meta", "kind": "added", "path": "/bench~1version", "observed": json.Number("20")},
				{"atom": "x", "kind": "altered", "path": "", "expected": map[string]any{"deep": []any{[]any{}, map[string]any{}}}, "observed": nil},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := testNew(model(), "p")
			if err != nil {
				t.Fatal(err)
			}
			pos := result.Position{Fixture: "F1", Lane: "ctl", LaneVersion: "1", Configuration: "default", Stage: "D1"}
			other := result.Position{Fixture: "F1", Lane: "ctl", LaneVersion: "1", Configuration: "default", Stage: "A2"}
			readings := []result.Reading{
				{Binding: result.Binding{Position: pos, Task: "P"}, Repetition: 1, Outcome: tc.outcome, Readout: tc.readout, Diagnostics: tc.diagnostics},
				{Binding: result.Binding{Position: other, Task: "P"}, Repetition: 1, Outcome: tc.outcome, Readout: tc.readout, Diagnostics: tc.diagnostics},
				{Binding: result.Binding{Position: other, Task: "P"}, Repetition: 2, Outcome: result.NotReached},
			}
			for i, r := range readings {
				r.Origin, r.File, r.Line = "captured", "obs.jsonl", i+1
				if err := c.Add(r); err != nil {
					t.Fatal(err)
				}
			}
			r := mustReport(t, c)
			var agreed, unstable *result.Result
			for _, res := range r.Each() {
				switch res.Stage {
				case "D1":
					agreed = res
				case "A2":
					unstable = res
				}
			}
			if agreed == nil || unstable == nil || unstable.Outcome != result.Unstable || len(unstable.Variants) != 2 {
				t.Fatalf("want an agreed D1 and an unstable A2 with two variants, got %+v and %+v", agreed, unstable)
			}
			for _, got := range []struct {
				readout     map[string]any
				diagnostics []result.Diagnostic
			}{{agreed.Readout, agreed.Diagnostics}, {unstable.Variants[0].Readout, unstable.Variants[0].Diagnostics}} {
				if !reflect.DeepEqual(got.readout, tc.readout) || (got.readout == nil) != (tc.readout == nil) {
					t.Errorf("readout %#v, want %#v", got.readout, tc.readout)
				}
				if !reflect.DeepEqual(got.diagnostics, tc.diagnostics) || (got.diagnostics == nil) != (tc.diagnostics == nil) {
					t.Errorf("diagnostics %#v, want %#v", got.diagnostics, tc.diagnostics)
				}
			}
		})
	}
}

// TestAppendJSONIsAt: the census writes each result and upgrade change from its compact form (the
// readouts and diagnostics in their canonical encoding, not decoded) as encoding/json writes the
// value At makes: for agreeing and unstable bindings, failures, readouts and diagnostics with
// characters encoding/json escapes, and changes.
func TestAppendJSONIsAt(t *testing.T) {
	r := oddReport(t)
	same := func(what string, a result.Appender, i int, v any) {
		t.Helper()
		got, err := a.AppendJSON(nil, i)
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if string(got)+"\n" != want.String() {
			t.Errorf("%s %d:\nAppendJSON %s\nAt         %s", what, i, got, want.String())
		}
	}
	if r.Len() != 6 {
		t.Fatalf("%d results, want 6", r.Len())
	}
	for i := range r.Len() {
		same("result", r.Results.(result.Appender), i, r.Results.At(i))
	}
	changes := 0
	for _, u := range r.Upgrades {
		for i := range u.Count() {
			same("change", u.Changes.(result.Appender), i, u.Changes.At(i))
			changes++
		}
	}
	if changes != 3 {
		t.Errorf("%d changes, want 3", changes)
	}
}

// oddReport is the report of a census whose readings hold hostile strings, odd numbers, an
// unstable binding, an execution failure and upgrade changes.
func oddReport(t *testing.T) *result.Report {
	t.Helper()
	m := model()
	a := m.Lanes["a"]
	a.Versions = []string{"1", "2"}
	m.Lanes["a"] = a
	c, _ := testNew(m, "p")
	reading := func(version, fixture, task, outcome string, rep int, readout map[string]any, diags []result.Diagnostic) result.Reading {
		return result.Reading{Binding: result.Binding{Position: result.Position{Fixture: fixture, Lane: "a", LaneVersion: version, Configuration: "default", Stage: "A2"}, Task: task},
			Repetition: rep, Origin: "captured", Outcome: outcome, File: "obs/\u2028a.jsonl", Line: rep, Readout: readout, Diagnostics: diags}
	}
	odd := []result.Diagnostic{{"atom": "x\u2028", "observed": json.Number("1.50"), "expected": map[string]any{"<&>": []any{nil, "\u2029"}}}}
	failed := reading("2", "F3", "P", result.ExecutionFailed, 1, nil, nil)
	failed.Error = "exit 2: \"\x01\""
	for _, r := range []result.Reading{
		reading("1", "F1", "P", result.Pass, 1, map[string]any{"uri": "file:///\u2028"}, nil),
		reading("1", "F1", "P", result.Pass, 2, map[string]any{"uri": "file:///\u2028"}, nil),
		reading("2", "F1", "P", result.Unmet, 1, map[string]any{}, odd),
		reading("1", "F1", "G", result.Pass, 1, nil, []result.Diagnostic{}),
		reading("1", "F1", "G", result.Unmet, 2, nil, odd), // unstable
		reading("2", "F1", "G", result.Unmet, 1, nil, odd),
		reading("1", "F3", "P", result.Unmet, 1, nil, []result.Diagnostic{{}}),
		failed,
	} {
		if err := c.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return mustReport(t, c)
}

// TestHeadsAreEach: Heads walks the results Each walks, with every readout and diagnostic (the
// variants' too) left out, whether the census makes them (HeadAt) or a plain list holds them.
func TestHeadsAreEach(t *testing.T) {
	census := oddReport(t)
	var list result.ResultList
	for _, res := range census.Each() {
		list = append(list, *res)
	}
	tests := []struct {
		name string
		r    *result.Report
	}{
		{name: "census", r: census},
		{name: "list", r: &result.Report{Results: list}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []result.Result
			values, variants := 0, 0
			for _, res := range tc.r.Each() {
				if res.Readout != nil || res.Diagnostics != nil {
					values++
				}
				res.Readout, res.Diagnostics = nil, nil
				if res.Variants != nil {
					res.Variants = slices.Clone(res.Variants) // a list's results share theirs
				}
				for i := range res.Variants {
					variants++
					res.Variants[i].Readout, res.Variants[i].Diagnostics = nil, nil
				}
				want = append(want, *res)
			}
			if values == 0 || variants == 0 {
				t.Fatalf("the report has %d results with readings and %d variants: nothing to leave out", values, variants)
			}
			var got []result.Result
			for _, res := range tc.r.Heads() {
				got = append(got, *res)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Heads:\n%+v\nwant Each without readings:\n%+v", got, want)
			}
			kept := 0
			for _, res := range list {
				for _, v := range res.Variants {
					if v.Diagnostics != nil {
						kept++
					}
				}
				if res.Readout != nil || res.Diagnostics != nil {
					kept++
				}
			}
			if kept != values+variants {
				t.Errorf("the list holds %d readings after Heads, want %d: Heads changed what it walked", kept, values+variants)
			}
		})
	}
}

// localizations are a report's localizations as values.
func localizations(r *result.Report) []result.Localization {
	var out []result.Localization
	for _, l := range r.EachLocalization() {
		out = append(out, l)
	}
	return out
}

// TestLocalizationsAreCompact: a census keeps a localization as the two bindings it bounds and its
// kind, not as eight strings (128 bytes a localization; at a million bindings they were a tenth of
// the census's live heap, held until the report was written), and makes the same localizations
// from them, in JSON too.
func TestLocalizationsAreCompact(t *testing.T) {
	tests := []struct {
		name     string
		versions int
	}{
		{name: "one version", versions: 1},
		{name: "a few versions", versions: 7},
		{name: "thousands of versions", versions: 8192},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := model()
			lane := m.Lanes["a"]
			lane.Versions = nil
			for v := range tc.versions {
				lane.Versions = append(lane.Versions, fmt.Sprintf("v%d", v))
			}
			m.Lanes["a"] = lane
			size := testRunSize
			if size != 0 && size < 4096 && tc.versions > 1000 {
				size = 4096 // a dozen runs of its 49,152 readings, not 24,576 (TestMain's pass)
			}
			c, err := NewWith(m, "p", Options{RunSize: size})
			if err != nil {
				t.Fatal(err)
			}
			var want []result.Localization
			line := 0
			for _, v := range lane.Versions {
				for _, st := range []string{"D1", "A2", "M3"} {
					line++
					for _, task := range []string{"P", "G"} {
						outcome := result.Pass
						if st == "M3" || st == "A2" && task == "G" {
							outcome = result.Unmet // G: D1 → A2 a transformation; P: A2 → M3 (shared with A2) a compartment
						}
						r := result.Reading{
							Binding:    result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: v, Configuration: "default", Stage: st}, Task: task},
							Repetition: 1, Origin: "captured", Outcome: outcome, File: "obs/a.jsonl", Line: line,
						}
						if err := c.Add(r); err != nil {
							t.Fatal(err)
						}
					}
				}
				want = append(want,
					result.Localization{Fixture: "F1", Lane: "a", LaneVersion: v, Configuration: "default", Task: "G", From: "D1", To: "A2", Kind: result.Transformation},
					result.Localization{Fixture: "F1", Lane: "a", LaneVersion: v, Configuration: "default", Task: "P", From: "A2", To: "M3", Kind: result.CompartmentBound})
			}
			slices.SortFunc(want, func(a, b result.Localization) int {
				return cmp.Or(result.CompareVersions(a.LaneVersion, b.LaneVersion), strings.Compare(a.Task, b.Task))
			})
			tb, err := c.makeTable()
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			locs, err := c.localize(tb)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			// Beside the list, the two walks of the table each read it through a buffer of their
			// own, and the list is written through one (chunkWriter).
			if per := float64(after.TotalAlloc-before.TotalAlloc-3*readChunk) / float64(locs.Len()); tc.versions >= 1024 && per > 16 {
				t.Errorf("%.2f bytes allocated a localization beside the walks' and the writer's buffers, want at most 16", per)
			}
			got := localizations(&result.Report{Localizations: locs})
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("localizations\n got %+v\nwant %+v", got, want)
			}
			gotJSON, err := json.Marshal(locs)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("JSON\n got %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

// TestLocalizationsStayOffTheHeap: a census that wrote runs keeps its localizations as its
// report's table is kept, the first tableMemory bytes in memory and the rest in a temporary file,
// not as a list in the heap: they grow with the bindings (about a million at the bench set's ten
// million), and a list of them was 12 bytes each, live to the end of the report.
func TestLocalizationsStayOffTheHeap(t *testing.T) {
	const versions = 200_000
	m := model()
	lane := m.Lanes["a"]
	lane.Versions = nil
	m.Lanes["a"] = lane
	c, err := NewWith(m, "p", Options{RunSize: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	c.variants.blobs.Dir = t.TempDir()
	for v := range versions {
		for i, st := range []string{"D1", "A2"} {
			outcome := result.Pass
			if st == "A2" {
				outcome = result.Unmet // D1 → A2: a transformation
			}
			r := result.Reading{
				Binding:    result.Binding{Position: result.Position{Fixture: "F1", Lane: "a", LaneVersion: fmt.Sprintf("v%d", v), Configuration: "default", Stage: st}, Task: "G"},
				Repetition: 1, Origin: "captured", Outcome: outcome, File: "obs/a.jsonl", Line: 2*v + i + 1,
			}
			if err := c.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	tb, err := c.makeTable()
	if err != nil {
		t.Fatal(err)
	}
	before := testkit.LiveHeap()
	locs, err := c.localize(tb)
	if err != nil {
		t.Fatal(err)
	}
	held := testkit.LiveHeap() - before
	if locs.Len() != versions {
		t.Fatalf("%d localizations, want %d", locs.Len(), versions)
	}
	if per := float64(held-tableMemory) / versions; per > 2 {
		t.Errorf("%d localizations hold %d KiB of the heap, %.1f bytes each beyond the %d KiB kept in memory; want at most 2", versions, held>>10, per, tableMemory>>10)
	}
	for _, i := range []int{0, versions / 2, versions - 1} {
		if l := locs.At(i); l.From != "D1" || l.To != "A2" || l.Kind != result.Transformation || l.Task != "G" {
			t.Errorf("localization %d: %+v", i, l)
		}
	}
	runtime.KeepAlive(c)
}
