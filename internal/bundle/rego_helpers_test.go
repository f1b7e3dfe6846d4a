package bundle

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// compileRego compiles some of the bundle's own Rego files (rego/…) as a stock OPA compiles them:
// v1 syntax, this OPA's capabilities, no custom builtin.
func compileRego(t testing.TB, names ...string) *ast.Compiler {
	t.Helper()
	modules := map[string]*ast.Module{}
	for _, name := range names {
		src, err := Rego.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if modules[name], err = ast.ParseModuleWithOpts(name, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1}); err != nil {
			t.Fatal(err)
		}
	}
	compiler := ast.NewCompiler().WithCapabilities(ast.CapabilitiesForThisVersion()).WithDefaultRegoVersion(ast.RegoV1)
	if compiler.Compile(modules); compiler.Failed() {
		t.Fatal(compiler.Errors)
	}
	return compiler
}
