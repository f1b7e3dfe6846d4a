package check

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunnerImportsNoFormat: the runner returns the report and never renders it (issue 44), so
// no file of the package imports a format package or the result cache of formatted bytes; the
// format step (internal/checkreport) does.
func TestRunnerImportsNoFormat(t *testing.T) {
	const module = "github.com/contractcheck/contractcheck/"
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{} // import path → files importing it
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			imports[p] = append(imports[p], f)
		}
	}
	for _, tc := range []struct{ name string }{
		{"internal/report"}, {"internal/resultcache"}, {"internal/compare"}, {"internal/challenge"}, {"internal/study"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if by := imports[module+tc.name]; len(by) > 0 {
				t.Errorf("%s imports %s: the runner renders nothing", strings.Join(by, ", "), tc.name)
			}
		})
	}
}
