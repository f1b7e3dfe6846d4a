package reproduce

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/safeio"
)

// blockMCP runs a Python file as __main__ with the mcp package made unimportable: the file runs
// up to its first import of the SDK, as it would where the SDK is not installed.
const blockMCP = `import runpy, sys
for m in ("mcp", "mcp.client", "mcp.client.stdio"):
    sys.modules[m] = None
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
except ImportError as e:
    print("stopped at", e.name)
`

// stubModules are the packages the langchain-mcp-adapters-js test imports, as stubs: the test
// module evaluates (its top-level code runs) and the framework's test fails at the stub client.
var stubModules = map[string]string{
	"node_modules/@langchain/core/package.json":         `{"name": "@langchain/core", "type": "module", "exports": {"./messages": "./messages.js"}}`,
	"node_modules/@langchain/core/messages.js":          "export class AIMessage {}\nexport class HumanMessage {}\n",
	"node_modules/@langchain/langgraph/package.json":    `{"name": "@langchain/langgraph", "type": "module", "exports": {"./prebuilt": "./prebuilt.js"}}`,
	"node_modules/@langchain/langgraph/prebuilt.js":     "export class ToolNode {}\n",
	"node_modules/@langchain/mcp-adapters/package.json": `{"name": "@langchain/mcp-adapters", "type": "module", "exports": {".": "./index.js"}}`,
	"node_modules/@langchain/mcp-adapters/index.js":     "export class MultiServerMCPClient { constructor() { throw new Error('stub: no SDK here'); } }\n",
}

// TestInjectionRegressions holds the reported injections through reproduce (issue 25): a
// structuredContent key that ends the Python test's docstring and runs a line, one with U+2028
// that ends the Node test's header comment and runs a statement, and one with a newline that
// broke the Go test's header comment (Go was saved only by format.Source refusing the file).
// Each generated test is run (Python with the SDK blocked, Node with stub packages) and must do
// nothing but what it should: no PWNED file, no exit 42.
func TestInjectionRegressions(t *testing.T) {
	tests := []struct {
		name, key string
		b         binding
	}{
		{"python docstring end", "k\"\"\"\nopen(\"PWNED\", \"w\")\n\"\"\"", binding{"mcp-python", "1.29.0", "D1"}},
		{"node line separator", "k\u2028process.exit(42)//", binding{"langchain-mcp-adapters-js", "1.1.4", "A2"}},
		{"go newline", "k\nfunc init() { os.Exit(42) }\n//", binding{"go-sdk", "v1.8.0", "D1"}},
	}
	ids := []string{"R0", "R1", "R2"}
	keys := make([]string, len(tests))
	for i, tc := range tests {
		keys[i] = tc.key
	}
	layer := hostileLayer(t, t.TempDir(), ids, keys)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Options: layer, Fixture: ids[i], Lane: tc.b.lane, Version: tc.b.version, Stage: tc.b.stage, Task: "T2", Command: "contractcheck reproduce (test)"}
			r, err := Generate(context.Background(), o)
			if err != nil {
				t.Fatalf("a key %q: %v", tc.key, err)
			}
			dir := filepath.Join(t.TempDir(), "repro")
			if err := safeio.WriteTree(dir, r.Files); err != nil {
				t.Fatal(err)
			}
			switch tc.b.lane {
			case "mcp-python":
				python := lookPath(t, "python3")
				out, err := exec.Command(python, "-c", "import ast, sys; ast.parse(open(sys.argv[1], encoding='utf-8').read())", filepath.Join(dir, "test_repro.py")).CombinedOutput()
				if err != nil {
					t.Errorf("test_repro.py does not parse: %v\n%s", err, out)
				}
				cmd := exec.Command(python, "-I", "-c", blockMCP, "test_repro.py")
				cmd.Dir = dir
				out, _ = cmd.CombinedOutput()
				if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
					t.Errorf("running test_repro.py wrote PWNED: the key ran as code\n%s", out)
				}
				if !strings.Contains(string(out), "stopped at mcp") {
					t.Errorf("test_repro.py did not run up to the SDK import:\n%s", out)
				}
			case "langchain-mcp-adapters-js":
				node := lookPath(t, "node")
				if out, err := exec.Command(node, "--check", filepath.Join(dir, "repro.test.mjs")).CombinedOutput(); err != nil {
					t.Errorf("repro.test.mjs does not parse: %v\n%s", err, out)
				}
				if err := safeio.WriteTree(filepath.Join(dir, "node_modules"), stubFiles()); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(node, "repro.test.mjs")
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				if errors.As(err, &exit) && exit.ExitCode() == 42 {
					t.Errorf("running repro.test.mjs exited 42: the key ran as code\n%s", out)
				}
				if !strings.Contains(string(out), "stub: no SDK here") {
					t.Errorf("repro.test.mjs did not run its tests up to the stub client:\n%s", out)
				}
			case "go-sdk":
				f, err := parser.ParseFile(token.NewFileSet(), "repro_test.go", r.Files["repro_test.go"], parser.ParseComments)
				if err != nil {
					t.Fatalf("repro_test.go does not parse: %v", err)
				}
				for _, d := range f.Decls {
					if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "init" {
						t.Errorf("repro_test.go declares func init: the key became code")
					}
				}
			}
		})
	}
}

// stubFiles are stubModules below node_modules/.
func stubFiles() map[string][]byte {
	out := map[string][]byte{}
	for name, text := range stubModules {
		out[strings.TrimPrefix(name, "node_modules/")] = []byte(text)
	}
	return out
}

// lookPath finds a program the test runs, or skips the test when the machine has none.
func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s on PATH", name)
	}
	return p
}
