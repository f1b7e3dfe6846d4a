package contractcheck

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// glossaryRef is what a package doc that uses the domain words says to send its reader to the
// glossary.
const glossaryRef = "glossary of the root package's doc (contractcheck.go)"

// TestGlossary: the root package's doc defines every domain word a reader of the code meets (issue
// 44), each as an item "  - word: …" of its Glossary section.
func TestGlossary(t *testing.T) {
	doc := packageDoc(t, ".")
	_, glossary, ok := strings.Cut(doc, "\n# Glossary\n")
	if !ok {
		t.Fatalf("the package doc has no Glossary section:\n%s", doc)
	}
	for _, tc := range []struct{ name string }{
		{"W0"}, {"D1"}, {"A2"}, {"M3"}, {"H4"}, {"carrier"}, {"compartment"}, {"binding"}, {"reading"},
		{"readout"}, {"lane"}, {"configuration"}, {"family"}, {"manifestation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(glossary, "\n  - "+tc.name+": ") {
				t.Errorf("the glossary defines no %q (an item \"  - %s: …\")", tc.name, tc.name)
			}
		})
	}
}

// TestPackageDocsReferToGlossary: every package doc under internal/ that uses a word only the
// domain gives a meaning to (a stage name, carrier, compartment, readout, manifestation) says where
// the word is defined.
func TestPackageDocsReferToGlossary(t *testing.T) {
	domain := regexp.MustCompile(`\b(W0|D1|A2|M3|H4|carriers?|compartments?|readouts?|manifestations?)\b`)
	dirs, err := filepath.Glob("internal/*")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		doc := packageDoc(t, dir)
		if !domain.MatchString(doc) {
			continue
		}
		checked++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if !strings.Contains(strings.Join(strings.Fields(doc), " "), glossaryRef) {
				t.Errorf("%s: the package doc uses %q but does not refer to the %s", dir, domain.FindString(doc), glossaryRef)
			}
		})
	}
	if checked < 10 {
		t.Fatalf("only %d package docs use the domain words: the test reads the wrong files", checked)
	}
}

// packageDoc is the package doc of the Go package in dir (its non-test files' package comments).
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if pf.Doc != nil {
			docs = append(docs, pf.Doc.Text())
		}
	}
	return strings.Join(docs, "\n")
}
