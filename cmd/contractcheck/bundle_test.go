package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	opabundle "github.com/open-policy-agent/opa/v1/bundle"
)

// TestBundleVerb writes bundles from the command line: the built-in set, a layer of one's own
// (its task reaches the bundle's dispatch and its package the roots), and the refusals.
func TestBundleVerb(t *testing.T) {
	t.Parallel()
	dir, layer := initWork(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
		// modules lists paths the written bundle holds, and roots its roots.
		modules []string
		roots   []string
		// quote is whether the bundle quotes the user's data (its manifest and its hot module say).
		quote bool
	}{
		{name: "built-in", args: []string{"--output", filepath.Join(dir, "a.tar.gz")}, code: 0, inStderr: "the user's data described in decisions",
			modules: []string{"/policies/0/tasks/t4.rego", "/contractcheck/bundle/project.rego"}, roots: []string{"contractcheck"}},
		{name: "with a layer", args: []string{"--contracts", layer, "--policies", layer, "--profile", "mine", "--output", filepath.Join(dir, "b.tar.gz")}, code: 0,
			inStderr: "profile mine", modules: []string{"/policies/1/t6.rego"}, roots: []string{"contractcheck", "custom"}},
		{name: "quoting the user's data", args: []string{"--quote-data", "--output", filepath.Join(dir, "q.tar.gz")}, code: 0,
			inStderr: "the user's data quoted in decisions", modules: []string{"/contractcheck/bundle/hot.rego"}, roots: []string{"contractcheck"}, quote: true},
		{name: "no output", args: nil, code: 2, inStderr: "--output is required"},
		{name: "output inside an input", args: []string{"--policies", layer, "--output", filepath.Join(layer, "x.tar.gz")}, code: 2, inStderr: "an input directory of this run"},
		{name: "unknown profile", args: []string{"--profile", "nope", "--output", filepath.Join(dir, "c.tar.gz")}, code: 2, inStderr: `unknown profile "nope"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, append([]string{"bundle"}, tc.args...)...)
			if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.inStderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout and %q on stderr", code, stdout, stderr, tc.code, tc.inStderr)
			}
			if tc.code != 0 {
				return
			}
			data, err := os.ReadFile(tc.args[len(tc.args)-1])
			if err != nil {
				t.Fatal(err)
			}
			b, err := opabundle.NewReader(bytes.NewReader(data)).WithRegoVersion(ast.RegoV1).Read()
			if err != nil {
				t.Fatalf("OPA cannot read the bundle: %v", err)
			}
			if got := strings.Join(*b.Manifest.Roots, " "); got != strings.Join(tc.roots, " ") {
				t.Errorf("roots %q, want %q", got, tc.roots)
			}
			meta, _ := b.Manifest.Metadata["contractcheck"].(map[string]any)
			if meta["quoteData"] != tc.quote {
				t.Errorf("manifest metadata %v, want quoteData %v", b.Manifest.Metadata, tc.quote)
			}
			for _, m := range b.Modules {
				if m.Path == "/contractcheck/bundle/hot.rego" && !strings.Contains(string(m.Raw), fmt.Sprintf("\nquote_data := %v\n", tc.quote)) {
					t.Errorf("hot.rego does not say quote_data := %v", tc.quote)
				}
			}
			for _, want := range tc.modules {
				found := false
				for _, m := range b.Modules {
					found = found || m.Path == want
				}
				if !found {
					t.Errorf("the bundle lacks %s", want)
				}
			}
		})
	}
}
