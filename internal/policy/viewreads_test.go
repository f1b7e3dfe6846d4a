package policy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestViewReads holds the declaration of the view members a task reads (custom.reads in the
// package's METADATA) to what check relies on: a valid list is read sorted and without
// duplicates, and a declaration check could not trust is a load error at the annotation.
func TestViewReads(t *testing.T) {
	const rule = "\ndiagnostics contains d if {\n\tsome b in object.get(input.observed, \"content\", [])\n\td := {\"atom\": \"x\", \"path\": \"\", \"kind\": \"added\", \"observed\": b}\n}\n"
	pkg := func(meta string) string {
		return "# METADATA\n# title: custom\n" + meta + "# scope: package\npackage custom\n" + rule
	}
	tests := []struct {
		name  string
		files map[string]string
		want  []string // the declared reads; nil: none declared
		err   string   // a part of the load error
	}{
		{name: "none declared", files: map[string]string{"c.rego": pkg("")}},
		{name: "declared", files: map[string]string{"c.rego": pkg("# custom:\n#   reads: [structured, content, content]\n")}, want: []string{"content", "structured"}},
		{name: "not a list", files: map[string]string{"c.rego": pkg("# custom:\n#   reads: content\n")}, err: "p/c.rego:1:1: package custom: custom.reads must be a list of view members"},
		{name: "not a member", files: map[string]string{"c.rego": pkg("# custom:\n#   reads: [content, \"con\\u202etent*/\"]\n")}, err: `custom.reads[1]: "con\u202etent*/" is not a view member (one of content, structured, isError, raised, meta, delivery, rejected)`},
		{name: "a rule reads an undeclared member", files: map[string]string{"c.rego": pkg("# custom:\n#   reads: [content]\n") + "\nreadout := {\"meta\": m} if m := input.source.meta\n"}, err: `p/c.rego:13:32: package custom reads the view member "meta", which its custom.reads (p/c.rego:1:1) does not list`},
		{name: "declared twice", files: map[string]string{
			"a.rego": pkg("# custom:\n#   reads: [content]\n"),
			"b.rego": "# METADATA\n# custom:\n#   reads: [meta]\n# scope: package\npackage custom\n\nreadout := {}\n",
		}, err: "package annotation redeclared"}, // OPA refuses it as it compiles

	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q *Query
			e, err := Load(policyLayer("p", tc.files), LoadOptions{})
			if err == nil {
				q, err = e.Prepare(context.Background(), "custom")
			}
			if testkit.ErrCase(t, err, tc.err) {
				return
			}
			if got := q.ViewReads(); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
				t.Errorf("ViewReads() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBuiltinTasksDeclareReads: every built-in task policy declares the view members it reads, so
// that check shares its verdicts across views that differ elsewhere (TestViewReadsAgree in
// internal/instrument holds the declarations to the policies' verdicts).
func TestBuiltinTasksDeclareReads(t *testing.T) {
	e := loadReal(t)
	for _, pkg := range e.Packages() {
		if !strings.HasPrefix(pkg, "contractcheck.tasks.") || strings.HasSuffix(pkg, "_test") {
			continue
		}
		q, err := e.Prepare(context.Background(), pkg)
		if err != nil {
			t.Fatal(err)
		}
		if q.ViewReads() == nil {
			t.Errorf("package %s declares no custom.reads", pkg)
		}
	}
}
