package policy

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestReadoutCustomBuiltins evaluates a rule prepared alone (PrepareRule: a decoder's readout,
// the visibility policy's channels) that calls both custom builtins: the compiler admits them
// (the sandbox's capabilities), so the query must implement them too, as Prepare's does.
func TestReadoutCustomBuiltins(t *testing.T) {
	src := "package r\n\nreadout := {\n\t\"json\": contractcheck.json_text(\"[1.0]\"),\n\t\"diff\": contractcheck.diff({\"a\": 1}, {\"a\": 2}, \"/x\"),\n}\n"
	q, err := loadMine(t, map[string]string{"r.rego": src}, LoadOptions{}).PrepareReadout(context.Background(), "r")
	if err != nil {
		t.Fatal(err)
	}
	r, err := q.Eval(context.Background(), ast.NewObject())
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(r); got != `{"diff":[{"expected":1,"kind":"altered","observed":2,"path":"/x/a"}],"json":[1.0]}` {
		t.Errorf("readout %s", got)
	}
}
