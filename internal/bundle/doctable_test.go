package bundle

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocBundleTable holds docs/opa.md's table "What the bundle holds" to the built-in bundle:
// every file the bundle holds matches exactly one row's path (`<n>` any layer's number, `…` any
// rest of a path), and every row matches some file.
func TestDocBundleTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/opa.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## What the bundle holds\n")
	if !ok {
		t.Fatal("docs/opa.md has no section \"What the bundle holds\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	type pattern struct {
		path string
		re   *regexp.Regexp
		hits int
	}
	var rows []*pattern
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		re := regexp.QuoteMeta(m[1])
		re = strings.ReplaceAll(re, "<n>", "[0-9]+")
		re = strings.ReplaceAll(re, "…", ".+")
		rows = append(rows, &pattern{path: m[1], re: regexp.MustCompile("^" + re + "$")})
	}
	if len(rows) < 5 {
		t.Fatalf("the table has %d rows: its format is not the one this test reads", len(rows))
	}
	for _, f := range builtin(t).Files {
		var matched []string
		for _, r := range rows {
			if r.re.MatchString(f.Path) {
				r.hits++
				matched = append(matched, r.path)
			}
		}
		if len(matched) != 1 {
			t.Errorf("the bundle's %s matches %d rows of docs/opa.md's table (%q): want exactly one", f.Path, len(matched), matched)
		}
	}
	for _, r := range rows {
		if r.hits == 0 {
			t.Errorf("docs/opa.md's table lists %s, which the bundle does not hold", r.path)
		}
	}
}
