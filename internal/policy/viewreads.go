package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// ViewMembers are the members of a canonical view (docs/design.md "The canonical view") that a
// task policy can declare it reads, in the order the documentation lists them.
var ViewMembers = []string{"content", "structured", "isError", "raised", "meta", "delivery", "rejected"}

// readsKey is the package annotation's custom key that declares the view members a task reads:
//
//	# METADATA
//	# title: T3 error
//	# custom:
//	#   reads: [isError, raised]
//	package contractcheck.tasks.t3
//
// check then hands the policy input.source and input.observed holding those members only, and
// shares a verdict between every binding whose views agree on them: a carrier stamped with a
// per-call _meta, say, is evaluated once for a task that reads only the content, not once per
// call. A package without the key is given the whole views.
const readsKey = "reads"

// packageViewReads reads the view members a package declares it reads (readsKey), sorted: nil
// when no file of the package declares them. An entry that is not a view member, a value that is
// not a list of strings, or a rule reading input.source.<m> or
// input.observed.<m> for an undeclared member m, is an error at the annotation's file and line.
func (e *Engine) packageViewReads(pkg string, reads inputReads) ([]string, error) {
	var (
		found []string
		at    *ast.Location
	)
	for _, name := range e.Files(pkg) {
		m := e.compiler.Modules[name]
		for _, a := range m.Annotations {
			if a.Scope != "package" {
				continue
			}
			v, ok := a.Custom[readsKey]
			if !ok {
				continue
			}
			at = a.Location // OPA refuses a second package annotation as it compiles
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s: package %s: custom.%s must be a list of view members (%s), not %T", where(a.Location), pkg, readsKey, strings.Join(ViewMembers, ", "), v)
			}
			found = []string{}
			for i, x := range list {
				s, ok := x.(string)
				if !ok || !slices.Contains(ViewMembers, s) {
					return nil, fmt.Errorf("%s: package %s: custom.%s[%d]: %q is not a view member (one of %s)", where(a.Location), pkg, readsKey, i, fmt.Sprint(x), strings.Join(ViewMembers, ", "))
				}
				if !slices.Contains(found, s) {
					found = append(found, s)
				}
			}
		}
	}
	if found == nil {
		return nil, nil
	}
	slices.Sort(found)
	for _, m := range slices.Sorted(maps.Keys(reads.views)) {
		if !slices.Contains(found, m) {
			loc := reads.views[m]
			if loc == nil || loc.File == "" {
				loc = at
			}
			return nil, fmt.Errorf("%s: package %s reads the view member %q, which its custom.%s (%s) does not list: add it there, or the policy is handed views without it", where(loc), pkg, m, readsKey, where(at))
		}
	}
	return found, nil
}

// where is a location as file:row:col ("?" for none): how every policy error names a place.
func where(l *ast.Location) string {
	if l == nil {
		return "?"
	}
	return fmt.Sprintf("%s:%d:%d", l.File, l.Row, l.Col)
}

// ViewReads are the view members the task's policy declares it reads (see readsKey), sorted; nil
// when it declares none and is given the whole views.
func (q *Query) ViewReads() []string { return q.views }
