package reproduce

import (
	"reflect"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/project"
)

// TestPlanValueChecks: a diagnostic on one value (a block's field, the structured value, a result
// _meta key) plans a check that it is absent where the lane added it, else that it is W0's value,
// on both sides at the place each binding reads; a diagnostic with neither plans nothing.
func TestPlanValueChecks(t *testing.T) {
	src := newReading(contract.Compartment{Root: "/result", Structured: &contract.Field{Path: "/structuredContent", Decode: "none"},
		Meta: &contract.Field{Path: "/_meta", Decode: "none"}}, nil)
	lane := newReading(contract.Compartment{Root: "/art", Meta: &contract.Field{Path: "/meta", Decode: "json"}}, nil)
	noList := Target{Unbound: "the binding reads no content list"}
	tests := []struct {
		name         string
		diag         map[string]any
		want         []Check // the direct checks (on the source)
		wantObserved []Target
	}{
		{name: "meta key added", diag: map[string]any{"atom": "result._meta", "path": "/k", "kind": "added"},
			want:         []Check{{Message: "_meta.k must not reach H4", Op: OpAbsent, Target: Target{Pointer: "/result/_meta", Rest: "/k"}}},
			wantObserved: []Target{{Pointer: "/art/meta", Decode: "json", Rest: "/k"}}},
		{name: "meta key changed", diag: map[string]any{"atom": "result._meta", "path": "/k", "kind": "changed", "expected": "v"},
			want:         []Check{{Message: `_meta.k "v" must reach H4`, Op: OpEqual, Want: `"v"`, Target: Target{Pointer: "/result/_meta", Rest: "/k"}}},
			wantObserved: []Target{{Pointer: "/art/meta", Decode: "json", Rest: "/k"}}},
		{name: "structured value added", diag: map[string]any{"atom": "structured.value", "path": "/a/b", "kind": "added"},
			want:         []Check{{Message: "structuredContent.a.b must not appear at H4 (W0 has none)", Op: OpAbsent, Target: Target{Pointer: "/result/structuredContent", Rest: "/a/b"}}},
			wantObserved: []Target{{Unbound: "the binding reads no structured slot"}}},
		{name: "structured value changed", diag: map[string]any{"atom": "structured.value", "path": "/a", "kind": "changed", "expected": 1.5},
			want:         []Check{{Message: "structuredContent.a 1.5 must reach H4 exactly", Op: OpEqual, Want: "1.5", Target: Target{Pointer: "/result/structuredContent", Rest: "/a"}}},
			wantObserved: []Target{{Unbound: "the binding reads no structured slot"}}},
		{name: "block field added", diag: map[string]any{"atom": "block.text", "path": "/0/text", "kind": "added"},
			want:         []Check{{Message: "content[0].text must not appear at H4 (W0 has none)", Op: OpAbsent, Target: noList}},
			wantObserved: []Target{noList}},
		{name: "block field changed", diag: map[string]any{"atom": "block.text", "path": "/1/text", "kind": "changed", "expected": "x"},
			want:         []Check{{Message: `content[1].text "x" must reach H4`, Op: OpEqual, Want: `"x"`, Target: noList}},
			wantObserved: []Target{noList}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			direct, observed, err := plan([]map[string]any{tc.diag}, project.View{}, src, lane, "H4")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(direct, tc.want) {
				t.Errorf("direct = %+v\nwant     %+v", direct, tc.want)
			}
			var got []Target
			for _, c := range observed {
				got = append(got, c.Target)
			}
			if !reflect.DeepEqual(got, tc.wantObserved) {
				t.Errorf("observed targets = %+v\nwant               %+v", got, tc.wantObserved)
			}
		})
	}
	if _, _, err := plan([]map[string]any{{"atom": "result._meta", "path": "/k", "kind": "changed"}}, project.View{}, src, lane, "H4"); err == nil {
		t.Error("a diagnostic with no expected value and not added planned a check")
	}
}
