package policy

import (
	"bytes"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestCapabilitiesFileShipped keeps policies/capabilities.json equal to what the sandbox is (run
// `go run ./cmd/contractcheck capabilities > policies/capabilities.json` after a change), and
// checks it does what it is shipped for, as `opa check --strict --capabilities` would: the
// built-in policies and their tests compile with it alone, and a policy calling a builtin the
// sandbox refuses does not.
func TestCapabilitiesFileShipped(t *testing.T) {
	shipped, err := os.ReadFile("../../" + CapabilitiesFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := CapabilitiesJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, want) {
		t.Fatalf("%s differs from the sandbox's capabilities: run go run ./cmd/contractcheck capabilities > %s", CapabilitiesFile, CapabilitiesFile)
	}
	caps, err := ast.LoadCapabilitiesJSON(bytes.NewReader(shipped))
	if err != nil {
		t.Fatal(err)
	}
	compile := func(files map[string]string) error {
		modules := map[string]*ast.Module{}
		for name, src := range files {
			m, err := ast.ParseModuleWithOpts(name, src, ast.ParserOptions{RegoVersion: ast.RegoV1, Capabilities: caps})
			if err != nil {
				return err
			}
			modules[name] = m
		}
		c := ast.NewCompiler().WithCapabilities(caps).WithStrict(true).WithDefaultRegoVersion(ast.RegoV1)
		if c.Compile(modules); c.Failed() {
			return c.Errors
		}
		return nil
	}
	builtin := map[string]string{}
	err = fs.WalkDir(moduleFS, "policies", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".rego") {
			data, err := fs.ReadFile(moduleFS, p)
			builtin[p] = string(data)
			return err
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := compile(builtin); err != nil {
		t.Errorf("the built-in policies do not compile with %s: %v", CapabilitiesFile, err)
	}
	for _, tc := range []struct{ name, src string }{
		{name: "http.send", src: "package p\n\nx := http.send({\"method\": \"GET\", \"url\": \"http://example.com\"})\n"},
		{name: "time.now_ns", src: "package p\n\nx := time.now_ns()\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compile(map[string]string{"p.rego": tc.src})
			if err == nil || !strings.Contains(err.Error(), "undefined function "+tc.name) {
				t.Errorf("a policy calling %s: %v, want undefined function", tc.name, err)
			}
		})
	}
}
