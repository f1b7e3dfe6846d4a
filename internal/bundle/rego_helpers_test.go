package bundle

import (
	"context"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"golang.org/x/sync/errgroup"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/policy"
)

// parseRego adds to modules the bundle's own Rego files names (rego/…), parsed as a stock OPA
// parses them (v1 syntax).
func parseRego(t testing.TB, modules map[string]*ast.Module, names ...string) {
	t.Helper()
	for _, name := range names {
		src, err := Rego.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if modules[name], err = ast.ParseModuleWithOpts(name, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1}); err != nil {
			t.Fatal(err)
		}
	}
}

// compileRego compiles some of the bundle's own Rego files (rego/…) as a stock OPA compiles them:
// v1 syntax, this OPA's capabilities, no custom builtin.
func compileRego(t testing.TB, names ...string) *ast.Compiler {
	t.Helper()
	modules := map[string]*ast.Module{}
	parseRego(t, modules, names...)
	compiler := ast.NewCompiler().WithCapabilities(ast.CapabilitiesForThisVersion()).WithDefaultRegoVersion(ast.RegoV1)
	if compiler.Compile(modules); compiler.Failed() {
		t.Fatal(compiler.Errors)
	}
	return compiler
}

// agreePair evaluates both implementations of a custom builtin on one input: check's, called by
// a readout of the policies' sandbox (internal/policy), and the bundle's pure Rego, queried on
// the OPA release the server tests run, with stock capabilities.
type agreePair struct {
	check  *policy.ReadoutQuery
	bundle rego.PreparedEvalQuery
}

// newAgreePair prepares the readout src (package agree) on check's side and query over the
// bundle's Rego files on the other.
func newAgreePair(t *testing.T, src, query string, files ...string) agreePair {
	t.Helper()
	ctx := context.Background()
	e, err := policy.Load([]layer.Dir{layer.FS(fstest.MapFS{"p/agree.rego": {Data: []byte(src)}}, "p", "agree")}, policy.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.PrepareReadout(ctx, "agree")
	if err != nil {
		t.Fatal(err)
	}
	pq, err := rego.New(rego.Compiler(compileRego(t, files...)), rego.StrictBuiltinErrors(true), rego.Query(query)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return agreePair{check: q, bundle: pq}
}

// judged is one input judged both ways: each side's answer as strictjson writes it, or the error.
type judged struct {
	bundle, check string
	err           error
}

// judgeAll judges every input on all CPUs at once; the answers are in the inputs' order.
func judgeAll[J any](inputs []J, judge func(J) (bundle, check string, err error)) []judged {
	out := make([]judged, len(inputs))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, in := range inputs {
		g.Go(func() error {
			b, c, err := judge(in)
			out[i] = judged{bundle: b, check: c, err: err}
			return nil
		})
	}
	_ = g.Wait() // each input's error is its own, in out
	return out
}
