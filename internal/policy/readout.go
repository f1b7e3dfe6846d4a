package policy

import (
	"context"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// ReadoutQuery is a prepared query for one package's readout rule alone, the interface of a
// decoder policy (docs/design.md, "Decoder policies"). It is safe for concurrent use.
type ReadoutQuery struct {
	pkg  string
	what string // the package and its files, for limit errors
	pq   rego.PreparedEvalQuery
}

// PrepareReadout prepares one query for data.<pkg>.readout, in the same sandbox and with the same
// custom builtins as Prepare. It fails when the package does not exist or defines no readout rule.
func (e *Engine) PrepareReadout(ctx context.Context, pkg string) (*ReadoutQuery, error) {
	if !pkgName.MatchString(pkg) {
		return nil, fmt.Errorf("policy: %q is not a Rego package name", pkg)
	}
	ref := ast.MustParseRef("data." + pkg)
	if !e.HasPackage(pkg) {
		return nil, fmt.Errorf("policy: package %s not found", pkg)
	}
	if len(e.compiler.GetRulesExact(ref.Append(ast.StringTerm("readout")))) == 0 {
		return nil, fmt.Errorf("policy: package %s defines no readout rule", pkg)
	}
	pq, err := rego.New(
		rego.Compiler(e.compiler),
		rego.Query("r := data."+pkg+".readout"),
		rego.Function1(jsonTextFunc, jsonTextImpl),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("policy: preparing %s: %w", pkg, err)
	}
	return &ReadoutQuery{pkg: pkg, what: e.describe(pkg), pq: pq}, nil
}

// HasPackage reports whether the compiled policies hold package pkg (without the "data." prefix).
func (e *Engine) HasPackage(pkg string) bool {
	for _, m := range e.compiler.Modules {
		if strings.TrimPrefix(m.Package.Path.String(), "data.") == pkg {
			return true
		}
	}
	return false
}

// Eval evaluates the readout on input, whose numbers are spelled as Query.Eval requires; the readout must
// be an object (numbers as json.Number). It runs under the guard as Query.Eval does. A panic
// inside OPA is returned as an error.
func (q *ReadoutQuery) Eval(ctx context.Context, input ast.Value) (r map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("policy: evaluating %s: OPA panicked: %v", q.pkg, p)
		}
	}()
	rs, err := evalLimited(ctx, q.what, q.pkg, q.pq, input)
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("policy: evaluating %s: readout is undefined", q.pkg)
	}
	r, ok := rs[0].Bindings["r"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("policy: %s.readout is %T, want an object", q.pkg, rs[0].Bindings["r"])
	}
	return r, nil
}
