package policy

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// diffTexts renders each diagnostic of a diff set as JSON text (keys sorted,
// numbers as spelled), sorted.
func diffTexts(t *testing.T, s ast.Set) []string {
	t.Helper()
	out := []string{}
	s.Foreach(func(d *ast.Term) {
		v, err := ast.JSON(d.Value)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	})
	sort.Strings(out)
	return out
}

func TestDiffBuiltin(t *testing.T) {
	tests := []struct {
		name     string
		expected string // Rego/JSON text of the expected value
		observed string
		base     string
		want     []string // Rego/JSON text of each diagnostic
	}{
		{name: "equal scalars", expected: `"a"`, observed: `"a"`, want: nil},
		{name: "equal objects in another key order", expected: `{"a": 1, "b": [1, {"c": null}]}`, observed: `{"b": [1, {"c": null}], "a": 1}`, want: nil},
		{name: "equal decimals spelled apart", expected: `{"a": 1e2, "b": 1.0, "c": [1.50, -0]}`, observed: `{"a": 100, "b": 1, "c": [1.5, 0]}`, want: nil},
		{name: "equal numbers beyond float64", expected: `[1e400, 1]`, observed: `[10e399, 1]`, want: nil},
		{name: "big integers sharing a float64 differ", expected: `{"n": 12345678901234567891}`, observed: `{"n": 12345678901234567000}`, base: "/s",
			want: []string{`{"path": "/s/n", "kind": "altered", "expected": 12345678901234567891, "observed": 12345678901234567000}`}},
		{name: "scalar root", expected: `"a"`, observed: `"b"`, base: "/0/uri",
			want: []string{`{"path": "/0/uri", "kind": "altered", "expected": "a", "observed": "b"}`}},
		{name: "types distinct", expected: `[1, null, {}]`, observed: `["1", false, []]`,
			want: []string{
				`{"path": "/0", "kind": "altered", "expected": 1, "observed": "1"}`,
				`{"path": "/1", "kind": "altered", "expected": null, "observed": false}`,
				`{"path": "/2", "kind": "altered", "expected": {}, "observed": []}`,
			}},
		{name: "object vs array is altered without members", expected: `{"a": [1, 2]}`, observed: `{"a": {"0": 1}}`,
			want: []string{`{"path": "/a", "kind": "altered", "expected": [1, 2], "observed": {"0": 1}}`}},
		{name: "members missing and added", expected: `{"keep": 1, "gone": {"x": 1}}`, observed: `{"keep": 1, "new": null}`, base: "/base",
			want: []string{
				`{"path": "/base/gone", "kind": "missing", "expected": {"x": 1}}`,
				`{"path": "/base/new", "kind": "added", "observed": null}`,
			}},
		{name: "arrays by index", expected: `[1, [2], 3]`, observed: `[1, [2, 3]]`, base: "/p",
			want: []string{
				`{"path": "/p/1/1", "kind": "added", "observed": 3}`,
				`{"path": "/p/2", "kind": "missing", "expected": 3}`,
			}},
		{name: "nested minimal paths", expected: `{"deep": {"x": {"y": true, "z": [0]}}}`, observed: `{"deep": {"x": {"y": false, "z": [0]}}}`,
			want: []string{`{"path": "/deep/x/y", "kind": "altered", "expected": true, "observed": false}`}},
		{name: "keys escaped", expected: `{"a/b": 1, "c~d": {"~/": 1}, "é日本": 1}`, observed: `{"a/b": 2, "c~d": {"~/": 2}, "é日本": 2}`, base: "/a~1b",
			want: []string{
				`{"path": "/a~1b/a~1b", "kind": "altered", "expected": 1, "observed": 2}`,
				`{"path": "/a~1b/c~0d/~0~1", "kind": "altered", "expected": 1, "observed": 2}`,
				`{"path": "/a~1b/é日本", "kind": "altered", "expected": 1, "observed": 2}`,
			}},
		{name: "each side keeps its number spelling", expected: `{"a": 1.0, "b": [1e2], "c": 2.50}`, observed: `{"a": 2, "b": [100, 1.50]}`,
			want: []string{
				`{"path": "/a", "kind": "altered", "expected": 1.0, "observed": 2}`,
				`{"path": "/b/1", "kind": "added", "observed": 1.50}`,
				`{"path": "/c", "kind": "missing", "expected": 2.50}`,
			}},
		{name: "empty key", expected: `{"": 1}`, observed: `{}`,
			want: []string{`{"path": "/", "kind": "missing", "expected": 1}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := diffImpl(rego.BuiltinContext{}, ast.MustParseTerm(tt.expected), ast.MustParseTerm(tt.observed), ast.StringTerm(tt.base))
			if err != nil {
				t.Fatal(err)
			}
			set, ok := got.Value.(ast.Set)
			if !ok {
				t.Fatalf("got %T, want a set", got.Value)
			}
			want := ast.NewSet()
			for _, w := range tt.want {
				want.Add(ast.MustParseTerm(w))
			}
			if gotT, wantT := diffTexts(t, set), diffTexts(t, want); !reflect.DeepEqual(gotT, wantT) {
				t.Errorf("got  %v\nwant %v", gotT, wantT)
			}
		})
	}
}

func TestDiffBuiltinBaseNotString(t *testing.T) {
	if _, err := diffImpl(rego.BuiltinContext{}, ast.NullTerm(), ast.NullTerm(), ast.NumberTerm("1")); err == nil {
		t.Error("no error for a non-string base")
	}
}

// The builtin is registered for prepared queries and reads the respelled input.
func TestDiffBuiltinInQuery(t *testing.T) {
	q := prepare(t, map[string]string{"d.rego": `package d

diagnostics := contractcheck.diff(input.expected, input.observed, "/v")
`}, "d")
	in := mustInput(t, `{"expected": {"a": 0.10000000000000000000010, "b": 1e2}, "observed": {"a": 0.10, "b": 100}}`)
	v, err := q.Eval(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(v.Diagnostics)
	if want := `[{"expected":0.1000000000000000000001,"kind":"altered","observed":0.10,"path":"/v/a"}]`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
