package policy

import (
	"context"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// ReadoutQuery is a prepared query for one rule of one package alone, whose value is an object:
// the readout rule of a decoder policy (docs/design.md, "Decoder policies"), the channels and
// category rules of the visibility policy. It is safe for concurrent use.
type ReadoutQuery struct {
	pkg  string
	rule string
	what string // the package and its files, for limit errors
	pq   rego.PreparedEvalQuery
}

// PrepareReadout prepares one query for data.<pkg>.readout (PrepareRule).
func (e *Engine) PrepareReadout(ctx context.Context, pkg string) (*ReadoutQuery, error) {
	return e.PrepareRule(ctx, pkg, "readout")
}

// PrepareRule prepares one query for data.<pkg>.<rule>, in the same sandbox and with the same
// custom builtins as Prepare. It fails when the package does not exist or does not define the rule.
func (e *Engine) PrepareRule(ctx context.Context, pkg, rule string) (*ReadoutQuery, error) {
	if !pkgName.MatchString(pkg) {
		return nil, fmt.Errorf("policy: %q is not a Rego package name", pkg)
	}
	ref := ast.MustParseRef("data." + pkg)
	if !e.HasPackage(pkg) {
		return nil, fmt.Errorf("policy: package %s not found", pkg)
	}
	if len(e.compiler.GetRulesExact(ref.Append(ast.StringTerm(rule)))) == 0 {
		return nil, fmt.Errorf("policy: package %s defines no %s rule", pkg, rule)
	}
	e.prep.Lock() // as Prepare: one preparation on the shared compiler at a time
	defer e.prep.Unlock()
	pq, err := e.prepareQuery(ctx, pkg, "r := data."+pkg+"."+rule)
	if err != nil {
		return nil, err
	}
	return &ReadoutQuery{pkg: pkg, rule: rule, what: e.describe(pkg), pq: pq}, nil
}

// prepareQuery prepares query, over package pkg, on the shared compiler with the custom
// builtins (contractcheck.json_text, contractcheck.diff) and strict builtin errors. The caller
// holds e.prep.
func (e *Engine) prepareQuery(ctx context.Context, pkg, query string) (rego.PreparedEvalQuery, error) {
	pq, err := rego.New(
		rego.Compiler(e.compiler),
		rego.Query(query),
		rego.Function1(jsonTextFunc, jsonTextImpl),
		rego.Function3(diffFunc, diffImpl),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
	if err != nil {
		return pq, fmt.Errorf("policy: preparing %s: %w", pkg, err)
	}
	return pq, nil
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

// Eval evaluates the rule on input, whose numbers are spelled as Query.Eval requires; the readout must
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
		return nil, fmt.Errorf("policy: evaluating %s: %s is undefined", q.pkg, q.rule)
	}
	r, ok := rs[0].Bindings["r"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("policy: %s.%s is %T, want an object", q.pkg, q.rule, rs[0].Bindings["r"])
	}
	return r, nil
}
