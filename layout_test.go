package contractcheck

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is this module's import path.
const module = "github.com/contractcheck/contractcheck"

// maxCoupling is the most a package under internal/ may both import and be imported by: the
// smaller of its number of internal imports and of its importers in this module (issue 44: no hub
// that everything reaches through and that reaches everything).
const maxCoupling = 6

// TestPackageImports holds the package layout of issue 44, which only `go list` showed before and
// a later change undid unseen: the instrument imports neither the census nor the visibility
// readout (the runner wires them), the runner of check renders no format, and no internal package
// is a hub (maxCoupling).
func TestPackageImports(t *testing.T) {
	imports := moduleImports(t)
	importers := map[string]int{}
	for _, deps := range imports {
		for _, d := range deps {
			importers[d]++
		}
	}
	tests := []struct {
		name, pkg string
		not       []string
	}{
		{name: "the instrument reads, it does not count", pkg: "internal/instrument", not: []string{"internal/census", "internal/visibility", "internal/check"}},
		{name: "the runner renders no format", pkg: "internal/check", not: []string{"internal/report", "internal/checkreport", "internal/compare"}},
		{name: "the pipeline steps render no format", pkg: "internal/check/pipeline", not: []string{"internal/report", "internal/checkreport"}},
		{name: "the pipeline steps do not count", pkg: "internal/check/pipeline", not: []string{"internal/census"}},
		{name: "the census renders no format", pkg: "internal/census", not: []string{"internal/report", "internal/checkreport"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			deps, ok := imports[tc.pkg]
			if !ok {
				t.Fatalf("no package %s", tc.pkg)
			}
			for _, d := range tc.not {
				if slices.Contains(deps, d) {
					t.Errorf("%s imports %s", tc.pkg, d)
				}
			}
		})
	}
	t.Run("no hub", func(t *testing.T) {
		for pkg, deps := range imports {
			if !strings.HasPrefix(pkg, "internal/") {
				continue
			}
			internal := 0
			for _, d := range deps {
				if strings.HasPrefix(d, "internal/") {
					internal++
				}
			}
			if c := min(internal, importers[pkg]); c > maxCoupling {
				t.Errorf("%s imports %d internal packages and %d packages import it: min %d, more than %d", pkg, internal, importers[pkg], c, maxCoupling)
			}
		}
	})
}

// moduleImports is, for every package of this module (its directory below the root, the
// examples' own modules and testdata left out), the packages of this module its non-test files
// import, each once, by directory.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || d.Name() == "examples" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if rel, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(out[pkg], rel) {
				out[pkg] = append(out[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
