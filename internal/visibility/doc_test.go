package visibility_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/doctable"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

var update = flag.Bool("update", false, "rewrite the table in docs/visibility.md from the built-in records")

const (
	docFile    = "../../docs/visibility.md"
	tableStart = "<!-- table: go test ./internal/visibility -run TestDocTable -update -->\n"
	tableEnd   = "<!-- end of table -->\n"
)

// docTable is the table of docs/visibility.md: one row per built-in lane, version, configuration
// and stage, its category, and for each fixture its shape and channels, linked to the record of
// its first repetition.
func docTable(vs []result.Visibility) string {
	var fixtures []string
	seen := map[string]bool{}
	for _, v := range vs {
		for _, f := range v.Fixtures {
			if !seen[f.Fixture] {
				seen[f.Fixture] = true
				fixtures = append(fixtures, f.Fixture)
			}
		}
	}
	var b strings.Builder
	b.WriteString("| lane | version | configuration | stage | category | on error |")
	for _, f := range fixtures {
		b.WriteString(" " + escape.MarkdownText(f) + " |")
	}
	b.WriteString("\n|---|---|---|---|---|---|" + strings.Repeat("---|", len(fixtures)) + "\n")
	for _, v := range vs {
		cat := v.Category
		switch {
		case v.Nearest != "":
			cat = fmt.Sprintf("%s (nearest %s; %s differ)", v.Category, v.Nearest, strings.Join(v.Disagree, ", "))
		case len(v.Candidates) > 0:
			cat = fmt.Sprintf("%s (%s)", v.Category, strings.Join(v.Candidates, " or "))
		}
		onError := v.OnError
		if onError == "" {
			onError = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | **%s** | %s |", escape.MarkdownCode(v.Lane), escape.MarkdownText(v.Version),
			escape.MarkdownText(v.Configuration), v.Stage, escape.MarkdownText(cat), escape.MarkdownText(onError))
		byID := map[string]result.VisibilityFixture{}
		for _, f := range v.Fixtures {
			byID[f.Fixture] = f
		}
		for _, id := range fixtures {
			f, ok := byID[id]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			shape := f.Shape
			if f.State != "captured" {
				shape = f.State
			}
			var ch []string
			for _, k := range []string{"content", "structured", "isError"} {
				if c, ok := f.Channels[k]; ok {
					ch = append(ch, c)
				}
			}
			file, line, _ := strings.Cut(strings.TrimPrefix(f.Record, "builtin:"), ".jsonl:")
			fmt.Fprintf(&b, " [%s](../%s.jsonl#L%s) %s |", escape.MarkdownText(shape), escape.MarkdownURL(file), line, escape.MarkdownText(strings.Join(ch, ", ")))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestDocTable holds the table of docs/visibility.md to the built-in records: every cell is what
// `contractcheck check` reads from them today (go test ./internal/visibility -run TestDocTable
// -update rewrites it after a recapture).
func TestDocTable(t *testing.T) {
	r, err := check.Run(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	table := docTable(r.VisibilityReadout())
	if _, err := doctable.Keep(docFile, tableStart, tableEnd, table, *update); err != nil {
		t.Errorf("%v:\n%s", err, table)
	}
}

// TestEveryModelFacingStage: the built-in check gives a category to every lane, version and
// configuration that has records, at each of M3 and H4 its lane observes, and every category is
// one of the built-in policy's (never unread, undetermined or a group of a stage not observed).
func TestEveryModelFacingStage(t *testing.T) {
	r, err := check.Run(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := instrument.Load(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	err = fs.WalkDir(contractcheck.Builtin, "fixtures/observations", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(p, "fixtures/observations/"), ".jsonl"), "/")
		lane := m.Model.Lanes[parts[0]]
		for _, st := range []string{"M3", "H4"} {
			if lane.Stages[st].Exposure == "observed" {
				want[strings.Join(append(parts, st), " ")] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	categories := map[string]bool{"content-only": true, "structured-first": true, "both": true, "fallback": true, "neither": true, "mixed": true}
	for _, v := range r.EachVisibility() {
		k := strings.Join([]string{v.Lane, v.Version, v.Configuration, v.Stage}, " ")
		if !want[k] {
			t.Errorf("%s: a group of a stage the lane does not observe, or of no records", k)
		}
		delete(want, k)
		if !categories[v.Category] {
			t.Errorf("%s: category %s", k, v.Summary())
		}
	}
	for k := range want {
		t.Errorf("%s: observed at a model-facing stage, and no visibility category", k)
	}
}
