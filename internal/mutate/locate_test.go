package mutate

import (
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestLocateSelectors: operators find what they change as the projector reads it, value selectors
// included: a selecting step reads the one matching element, and none or several is not found.
func TestLocateSelectors(t *testing.T) {
	t.Parallel()
	const doc = `{"outputs": [{"audience": "user", "format": "structured", "structuredContent": {"u": 1}},
		{"audience": "assistant", "format": "structured", "structuredContent": {"a": 1}, "flag": true, "none": null},
		{"audience": "dup"}, {"audience": "dup"}, "text", {"audience": "x\"]=,\u2028"}]}`
	tests := []struct {
		name  string
		path  string
		found string // the value found, as JSON; "" not found
	}{
		{name: "by two members", path: `/outputs[audience="assistant",format="structured"]/structuredContent`, found: `{"a":1}`},
		{name: "a bool and a null", path: `/outputs[flag=true,none=null]/structuredContent/a`, found: `1`},
		{name: "a hostile value", path: `/outputs[audience="x\"]=,\u2028"]/audience`, found: `"x\"]=,\u2028"`},
		{name: "by position still", path: `/outputs/0/structuredContent/u`, found: `1`},
		{name: "no match", path: `/outputs[audience="programmatic"]`},
		{name: "several matches", path: `/outputs[audience="dup"]`},
		{name: "a string is no bool", path: `/outputs[flag="true"]`},
		{name: "not a path", path: `/outputs[audience=assistant]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Parse("doc", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := lookup(n, tc.path)
			if tc.found == "" {
				if ok {
					t.Fatalf("found %v, want nothing", got.Tree())
				}
				return
			}
			want, err := strictjson.Decode("want", []byte(tc.found), strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if !ok || !strictjson.Equal(got.Tree(), want) {
				t.Fatalf("found %v (%v), want %s", got, ok, tc.found)
			}
		})
	}
	n, err := Parse("doc", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	const slot = `/outputs[audience="assistant",format="structured"]/structuredContent`
	if !remove(n, slot) {
		t.Fatal("remove: the assistant's structured slot was not found")
	}
	if _, ok := lookup(n, slot); ok {
		t.Error("the slot is still there after remove")
	}
	if !put(n, slot, &Node{Kind: String, Text: "back"}) {
		t.Fatal("put: the assistant's structured output was not found")
	}
	if got, ok := lookup(n, slot); !ok || got.Text != "back" {
		t.Errorf("after put: %v %v", got, ok)
	}
	if put(n, `/outputs[audience="dup"]/x`, &Node{Kind: Null}) || remove(n, `/outputs[audience="assistant",format="structured"]`) {
		t.Error("put into an ambiguous selection, or remove of a selected element, succeeded")
	}
}
