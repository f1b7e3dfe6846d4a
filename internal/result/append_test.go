package result

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// fullResult sets every field of Result (TestAppendKnowsEveryField keeps it so).
func fullResult() Result {
	return Result{
		Fixture: "F01", Suite: "paper", Family: "resource-link", Lane: "go-sdk", LaneVersion: "v1.8.0",
		Configuration: "default", Stage: "D1", Task: "T1", Role: "primary", Compartment: "content",
		Outcome: Unmet, Origin: "captured", Repetitions: 3, Required: true,
		RequiredBy:  []string{"profiles.strict.require[0]", "profiles.strict.require[2]"},
		Readout:     map[string]any{"uri": "file:///a b", "n": json.Number("1.50"), "list": []any{nil, true, "x"}},
		Diagnostics: []Diagnostic{{"atom": "resource.uri", "expected": "a\u2028b", "observed": nil}, {"atom": "x", "path": "/<&>"}},
		Error:       "exit 1: \"boom\"\n",
		Variants: []Variant{{Repetitions: []int{1, 3}, Outcome: Pass, Readout: map[string]any{"a": "<b>"}},
			{Repetitions: []int{2}, Outcome: Unmet, Diagnostics: []Diagnostic{{"atom": "y"}}}},
		Records: []RecordRef{{File: "obs/a.jsonl", Line: 7, Repetition: 1}, {File: "obs/\tb.jsonl", Line: 9, Repetition: 2}},
	}
}

// fullChange sets every field of Change.
func fullChange() Change {
	return Change{Fixture: "F01", Stage: "A2", Task: "T3", Before: Pass, After: Unmet,
		DiagnosticsBefore: []Diagnostic{{"atom": "a", "observed": json.Number("1e2")}},
		DiagnosticsAfter:  []Diagnostic{{"atom": "b", "observed": "\u2029\x01"}}}
}

// canonical is a tree's canonical encoding as the census keeps it, nil for none.
func canonical(t testing.TB, v any) []byte {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return nil
		}
	case []Diagnostic:
		if x == nil {
			return nil
		}
		list := make([]any, len(x))
		for i, d := range x {
			list[i] = d
		}
		v = list
	}
	b, err := strictjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAppendResultIsJSON: AppendResult and AppendChange write what encoding/json writes (HTML
// escaping off) for results and changes whose trees are given in their canonical encoding.
func TestAppendResultIsJSON(t *testing.T) {
	odd := fullResult()
	odd.Fixture, odd.Error = "bad \xff utf-8 \u2028 \u2029 \x00\x1f\x7f <&> \\ / é", "\b\f\r"
	odd.Records[0].File = "\x7f\xe2\x80"
	tests := []struct {
		name string
		r    Result
	}{
		{name: "every field", r: fullResult()},
		{name: "zero", r: Result{}},
		{name: "odd strings", r: odd},
		{name: "empty lists and maps", r: Result{RequiredBy: []string{}, Readout: map[string]any{}, Diagnostics: []Diagnostic{}, Variants: []Variant{}, Records: []RecordRef{}}},
		{name: "empty diagnostic", r: Result{Diagnostics: []Diagnostic{{}}, Readout: map[string]any{"": map[string]any{}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := strictjson.MarshalGo(tc.r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendResult([]byte("prefix"), &tc.r, canonical(t, tc.r.Readout), canonical(t, tc.r.Diagnostics))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix"+string(want) {
				t.Errorf("AppendResult:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
	for _, c := range []Change{fullChange(), {}, {DiagnosticsBefore: []Diagnostic{}, Fixture: "\u2028"}} {
		want, err := strictjson.MarshalGo(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendChange(nil, &c, canonical(t, c.DiagnosticsBefore), canonical(t, c.DiagnosticsAfter)); string(got) != string(want) {
			t.Errorf("AppendChange:\n%s\nencoding/json:\n%s", got, want)
		}
	}
}

// TestAppendKnowsEveryField: fullResult and fullChange set every field, so a field added to Result
// or Change and not to AppendResult or AppendChange fails TestAppendResultIsJSON.
func TestAppendKnowsEveryField(t *testing.T) {
	for _, v := range []any{fullResult(), fullChange()} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Errorf("%s.%s is not set by the test's full value", rv.Type().Name(), rv.Type().Field(i).Name)
			}
		}
	}
}

// FuzzAppendResult: for any strings in a result's fields and trees, AppendResult writes what
// encoding/json writes.
func FuzzAppendResult(f *testing.F) {
	f.Add("F01", "file:///x", "obs.jsonl", "boom")
	f.Add("\u2028", "\xff\xfe", "\x00", "<&>")
	f.Add("\xe2\x80", "a\u2029b", "é\\\"", "\t")
	f.Fuzz(func(t *testing.T, fixture, value, file, msg string) {
		r := fullResult()
		r.Fixture, r.Error, r.Records[1].File = fixture, msg, file
		r.RequiredBy = []string{value}
		r.Diagnostics = []Diagnostic{{value: value, "atom": fixture}}
		r.Readout = map[string]any{"v": value}
		readout, err := strictjson.Marshal(r.Readout)
		if err != nil {
			return // not valid UTF-8: the census cannot hold it (strictjson.Marshal refuses it)
		}
		diagnostics, err := strictjson.Marshal([]any{r.Diagnostics[0]})
		if err != nil {
			return
		}
		want, err := strictjson.MarshalGo(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendResult(nil, &r, readout, diagnostics)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("AppendResult:\n%q\nencoding/json:\n%q", got, want)
		}
	})
}
