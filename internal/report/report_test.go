package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// sample is a small report with one of everything a reader looks for: a pass, an unmet binding
// with diagnostics, an unstable one, a failure, a boundary, a divergence, an upgrade and a gate
// violation.
func sample() *result.Report {
	diag := result.Diagnostic{"atom": "structured.value", "path": "/n", "kind": "altered",
		"expected": json.Number("12345678901234567891"), "observed": json.Number("12345678901234567000")}
	recs := []result.RecordRef{{File: "obs/go-sdk/v1.8.0/default.jsonl", Line: 7, Repetition: 1},
		{File: "obs/go-sdk/v1.8.0/default.jsonl", Line: 8, Repetition: 2}, {File: "obs/go-sdk/v1.8.0/default.jsonl", Line: 9, Repetition: 3}}
	r := &result.Report{
		ReportVersion: result.Version, Profile: "strict", NullPolicy: "strict",
		Results: result.ResultList{
			{Fixture: "C02", Suite: "paper", Family: "structured-stress", Lane: "go-sdk", LaneVersion: "v1.8.0", Configuration: "default", Stage: "D1",
				Task: "T2", Role: "apart", Compartment: "structured", Outcome: result.Unmet, Origin: "captured", Repetitions: 3,
				Readout: map[string]any{"state": "populated"}, Diagnostics: []result.Diagnostic{diag}, Records: recs},
			{Fixture: "C05", Suite: "paper", Family: "structured", Lane: "adk-go", LaneVersion: "v1.0.0", Configuration: "default", Stage: "A2",
				Task: "T2", Role: "primary", Compartment: "structured", Outcome: result.Pass, Origin: "captured", Repetitions: 3},
			{Fixture: "C05", Suite: "paper", Family: "structured", Lane: "adk-go", LaneVersion: "v1.0.0", Configuration: "default", Stage: "M3",
				Task: "T2", Role: "primary", Compartment: "structured", Outcome: result.Unstable, Origin: "captured", Repetitions: 3,
				Variants: []result.Variant{{Repetitions: []int{1, 3}, Outcome: result.Pass}, {Repetitions: []int{2}, Outcome: result.Unmet, Diagnostics: []result.Diagnostic{diag}}}},
			{Fixture: "C05", Suite: "paper", Family: "structured", Lane: "adk-go", LaneVersion: "v1.0.0", Configuration: "default", Stage: "H4",
				Task: "T2", Role: "primary", Compartment: "structured", Outcome: result.ExecutionFailed, Origin: "captured", Repetitions: 3, Error: "connection refused"},
			{Fixture: "C05", Suite: "paper", Family: "structured", Lane: "direct", LaneVersion: "v1", Configuration: "default", Stage: "A2",
				Task: "T2", Role: "primary", Compartment: "structured", Outcome: result.Pass, Origin: "captured", Repetitions: 3, Required: true},
		},
		Localizations: result.LocalizationList{{Fixture: "C02", Lane: "go-sdk", LaneVersion: "v1.8.0", Configuration: "default", Task: "T2", From: "W0", To: "D1", Kind: result.Transformation}},
		Divergences: result.Divergences{
			Unique:         []result.Divergence{{Fixture: "C05", Task: "T2", Family: "structured", Stages: []string{"A2"}}},
			UniqueByFamily: map[string]int{"structured": 1}, ManifestationsByFamily: map[string]int{"structured": 1}, Manifestations: 1,
			UniqueByOrigin: result.OriginCounts{Captured: 1}, ManifestationsByOrigin: result.OriginCounts{Captured: 1}, Guard: []result.Divergence{},
			Apart: []result.Divergence{{Fixture: "C02", Task: "T2", Family: "structured-stress", Stages: []string{"D1"}}}, LeaveOneOut: map[string]int{"adk-go": 0, "go-sdk": 1},
		},
		CapturedDivergences: result.Divergences{Unique: []result.Divergence{}, UniqueByFamily: map[string]int{}, ManifestationsByFamily: map[string]int{}, Guard: []result.Divergence{},
			Apart: []result.Divergence{{Fixture: "C02", Task: "T2", Family: "structured-stress", Stages: []string{"D1"}}}, LeaveOneOut: map[string]int{"go-sdk": 0}},
		Upgrades: []result.Upgrade{{Lane: "adk-go", Configuration: "default", From: "v1.0.0", To: "v1.7.0", Changes: result.ChangeList{
			{Fixture: "C11", Stage: "A2", Task: "T4", Before: result.Unmet, After: result.Pass, DiagnosticsBefore: []result.Diagnostic{{"atom": "block.count", "path": "/0", "kind": "missing", "block": json.Number("0")}}},
		}}},
		Gate: result.Gate{Verdict: result.VerdictInstrumentFailed, Satisfied: false,
			Requirements: []result.RequirementResult{{Clause: result.Clause{Name: "profiles.strict.require[0]", Doc: "go-sdk keeps exact numbers", Position: "contracts/profiles.cue:12:3"}, Selected: 1, Violations: 1}},
			Violations: []result.Violation{{Position: result.Position{Fixture: "C02", Lane: "go-sdk", LaneVersion: "v1.8.0", Configuration: "default", Stage: "D1"}, Task: "T2", Outcome: result.Unmet,
				Requirement: "go-sdk keeps exact numbers", RequirementName: "profiles.strict.require[0]", Diagnostics: []result.Diagnostic{diag}, Records: recs}}},
	}
	for _, res := range r.Each() {
		r.Summary.Add(res.Outcome)
	}
	return r
}

func TestOutputGolden(t *testing.T) {
	for _, format := range outputters.Names() {
		t.Run(format, func(t *testing.T) {
			got := render(t, format, Options{}, sample())
			if !testkit.Golden(t, filepath.Join("testdata", format+".golden"), []byte(got), *update) {
				t.Logf("%s output:\n%s", format, got)
			}
		})
	}
}

// TestGetUnknown: a name no format has is an *UnknownFormatError naming it and every format, in
// every registry (the one cmd/contractcheck turns into a --format usage error).
func TestGetUnknown(t *testing.T) {
	two := Registry[int]{"b": Fixed[int](nil), "a": Fixed[int](nil)}
	for _, tc := range []struct {
		name   string
		get    func(string) error
		format string
		want   string
	}{
		{name: "check report", get: func(f string) error { _, err := outputters.Get(f, Options{}); return err }, format: "yaml",
			want: `unknown format "yaml" (want one of ` + strings.Join(outputters.Names(), ", ") + ")"},
		{name: "a registry of its own, names sorted", get: func(f string) error { _, err := two.Get(f, Options{}); return err }, format: "c",
			want: `unknown format "c" (want one of a, b)`},
		{name: "the empty name", get: func(f string) error { _, err := two.Get(f, Options{}); return err }, format: "",
			want: `unknown format "" (want one of a, b)`},
		{name: "Write", get: func(f string) error { return two.Write(io.Discard, f, Options{}, 1) }, format: "c",
			want: `unknown format "c" (want one of a, b)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.get(tc.format)
			var uf *UnknownFormatError
			if !errors.As(err, &uf) || uf.Format != tc.format || err.Error() != tc.want {
				t.Errorf("Get(%q): %v, want an *UnknownFormatError %q", tc.format, err, tc.want)
			}
		})
	}
}

// TestJSONStreamsWhatWriteJSONWrites: the JSON format writes results, changes and visibility
// groups one at a time, and its bytes are those of encoding the whole report at once.
func TestJSONStreamsWhatWriteJSONWrites(t *testing.T) {
	// Enough results for the results to be encoded by several goroutines, in batches that do not
	// divide them evenly, each one different.
	many := sample()
	base := many.Results.(result.ResultList)[0]
	list := result.ResultList{}
	for i := range 5*parallelBatch + 7 {
		r := base
		r.Fixture = fmt.Sprintf("F%04d", i)
		r.Readout = map[string]any{"n": json.Number(fmt.Sprint(i)), "text": "<&>\u2028"}
		list = append(list, r)
	}
	many.Results = list
	changes := result.ChangeList{}
	for i := range 3*parallelBatch + 1 {
		changes = append(changes, result.Change{Fixture: fmt.Sprintf("F%04d", i), Stage: "D1", Task: "T1", Before: result.Pass, After: result.Unmet,
			DiagnosticsAfter: []result.Diagnostic{{"atom": "a", "observed": json.Number(fmt.Sprint(i))}}})
	}
	many.Upgrades = []result.Upgrade{{Lane: "l", From: "v1", To: "v2", Changes: changes}}
	visible := sample()
	visible.VisibilityPolicy = "contractcheck.visibility"
	visible.Visibility = append(hostileVisibility("<&>\u2028*/"), hostileVisibility("x")...)
	for _, r := range []*result.Report{sample(), many, visible, {ReportVersion: result.Version, Profile: "p", Results: result.ResultList{}, Upgrades: []result.Upgrade{{Lane: "l", Changes: result.ChangeList{}}}}} {
		var streamed, whole bytes.Buffer
		if err := (JSON{}).Output(&streamed, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&whole, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
			t.Errorf("streamed:\n%s\nwhole:\n%s", streamed.String(), whole.String())
		}
	}
}

// TestJSONStopsAtTheFirstError: a result that cannot be encoded, or a write that fails, while the
// results are encoded on several goroutines ends the output with that error (and does not hang).
func TestJSONStopsAtTheFirstError(t *testing.T) {
	list := result.ResultList{}
	for i := range 9 * parallelBatch {
		list = append(list, result.Result{Fixture: fmt.Sprintf("F%04d", i), Outcome: result.Pass})
	}
	bad := slices.Clone(list)
	bad[4*parallelBatch+3].Readout = map[string]any{"x": math.NaN()}
	tests := []struct {
		name    string
		results result.ResultList
		w       io.Writer
		want    string
	}{
		{name: "unencodable result", results: bad, w: io.Discard, want: "NaN"},
		{name: "failing write", results: list, w: &failAfter{n: 300 << 10}, want: "disk full"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &result.Report{ReportVersion: result.Version, Profile: "p", Results: tc.results}
			if err := (JSON{}).Output(tc.w, r); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Output: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// failAfter is a writer that fails once n bytes were written.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestReportReadsBack: a JSON report decodes into a Report whose JSON is the same bytes.
func TestReportReadsBack(t *testing.T) {
	var first bytes.Buffer
	if err := (JSON{}).Output(&first, sample()); err != nil {
		t.Fatal(err)
	}
	var r result.Report
	if err := json.Unmarshal(first.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	if err := (JSON{}).Output(&second, &r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Errorf("read back:\n%s\nwant:\n%s", second.String(), first.String())
	}
}

// render is r in format, as New's formatter for it with o writes it; t fails at once when there
// is no such format or the output fails.
func render(t testing.TB, format string, o Options, r *result.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := outputters.Write(&buf, format, o, r); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.String()
}
