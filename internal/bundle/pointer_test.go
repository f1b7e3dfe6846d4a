package bundle

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/util"
)

// TestPointerTableAgrees holds the bundle's pointer table (pointerTable, read by rego/pointer.rego's
// lookup with one object.get per typed path) to the step-by-step reading it replaces (follow): on
// documents whose containers are arrays or objects at each step, every pointer gives the same
// value or is undefined in both, whatever its tokens (index-like ones with a sign, leading zeros,
// escapes, numbers past an int).
func TestPointerTableAgrees(t *testing.T) {
	pointers := []string{"", "/", "/a", "/0", "/1", "/00", "/01", "/+1", "/+01", "/-0", "/-00", "/-1", "/+", "/1e0",
		"/a/0", "/a/1", "/a/1/b", "/a/-0/b", "/a/+001/b", "/0/0", "/0/1/0", "/a~1b", "/~01", "/a~1b/~0c/2", "/2/a",
		"/99999999999999999999", "/a/99999999999999999999", "a", "/x/y/0/z"}
	docs := []string{
		`{"a": [1, {"b": "x"}], "0": "key zero", "1": [["n"]], "00": 0, "01": 1, "+1": "plus", "-0": "minus zero", "a/b": {"~c": [7, 8, 9]}, "~1": "tilde"}`,
		`[["p", ["q", "r"]], {"0": "s"}, {"a": "t"}]`,
		`{"a": {"0": "zero", "1": {"b": "one"}, "-0": {"b": "m"}, "+001": {"b": "p"}}, "x": {"y": [{"z": null}]}}`,
		`"scalar"`, `null`, `[]`, `{}`,
	}
	table := map[string]any{}
	for _, p := range pointers {
		if paths, ok := pointerPaths(p); ok {
			table[p] = paths
		}
	}
	var data map[string]any
	raw, err := json.Marshal(map[string]any{"contractcheck": map[string]any{"bundle": map[string]any{"hot": map[string]any{"pointers": table}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := util.UnmarshalJSON(raw, &data); err != nil {
		t.Fatal(err)
	}
	compiler := compileRego(t, "rego/pointer.rego")
	ctx := context.Background()
	for _, doc := range docs {
		for _, p := range pointers {
			t.Run(fmt.Sprintf("%s %q", doc, p), func(t *testing.T) {
				var d any
				if err := util.UnmarshalJSON([]byte(doc), &d); err != nil {
					t.Fatal(err)
				}
				input := map[string]any{"doc": d, "ptr": p}
				query := `x := data.contractcheck.bundle.pointer.lookup(input.doc, input.ptr)`
				slow, err := rego.New(rego.Compiler(compiler), rego.Query(query), rego.Input(input)).Eval(ctx)
				if err != nil {
					t.Fatal(err)
				}
				fast, err := rego.New(rego.Compiler(compiler), rego.Query(query), rego.Input(input), rego.Store(inmem.NewFromObject(data))).Eval(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(slow) != fmt.Sprint(fast) {
					t.Errorf("step by step %v, through the table %v", slow, fast)
				}
			})
		}
	}
	if _, ok := pointerPaths("/0/0/0/0/0"); ok {
		t.Errorf("a pointer of 32 typed paths is in the table, past maxPointerPaths = %d", maxPointerPaths)
	}
}
