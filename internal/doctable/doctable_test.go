package doctable

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

const (
	start = "<!-- table: go run ./x -->\n"
	end   = "<!-- end of table -->\n"
)

func TestSplice(t *testing.T) {
	tests := []struct {
		name, doc, table string
		want             string
		changed          bool
		wantErr          string
	}{
		{name: "replaced", doc: "a\n" + start + "old\n" + end + "b\n", table: "new\n", want: "a\n" + start + "new\n" + end + "b\n", changed: true},
		{name: "unchanged", doc: start + "t\n" + end, table: "t\n", want: start + "t\n" + end},
		{name: "only the first table", doc: start + "old\n" + end + start + "old\n" + end, table: "new\n", want: start + "new\n" + end + start + "old\n" + end, changed: true},
		{name: "no start", doc: "a\n" + end, table: "t\n", wantErr: `no line "<!-- table: go run ./x -->\n"`},
		{name: "no end", doc: start + "t\n", table: "t\n", wantErr: `no line "<!-- end of table -->\n" after`},
		{name: "the end before the start", doc: end + start + "t\n", table: "t\n", wantErr: `no line "<!-- end of table -->\n" after`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := Splice([]byte(tt.doc), start, end, tt.table)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(out) != tt.want || changed != tt.changed {
				t.Errorf("Splice = %q, %v, %v; want %q, %v", out, changed, err, tt.want, tt.changed)
			}
		})
	}
}

// TestKeep: a table that is current leaves the document as it is; one out of date is an error
// naming the file and the start line, the file untouched, unless write is asked, which rewrites
// it; a document without the lines, or none at all, is an error.
func TestKeep(t *testing.T) {
	const prose = "# Doc\n\n"
	tests := []struct {
		name      string
		doc       string // "" for no file
		write     bool
		rewritten bool
		want      string // the file afterwards
		wantErr   string
	}{
		{name: "current", doc: prose + start + "new\n" + end, want: prose + start + "new\n" + end},
		{name: "current, write asked", doc: prose + start + "new\n" + end, write: true, want: prose + start + "new\n" + end},
		{name: "out of date", doc: prose + start + "old\n" + end, want: prose + start + "old\n" + end,
			wantErr: `doc.md: the table after the line "<!-- table: go run ./x -->\n" is not what it is made from now`},
		{name: "out of date, rewritten", doc: prose + start + "old\n" + end, write: true, rewritten: true, want: prose + start + "new\n" + end},
		{name: "no table", doc: prose, write: true, want: prose, wantErr: `doc.md: no line "<!-- table: go run ./x -->\n"`},
		{name: "no document", write: true, wantErr: "reading the document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "doc.md")
			if tt.doc != "" {
				testkit.WriteFile(t, file, tt.doc)
			}
			rewritten, err := Keep(file, start, end, "new\n", tt.write)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if rewritten != tt.rewritten {
				t.Errorf("rewritten = %v, want %v", rewritten, tt.rewritten)
			}
			if tt.doc == "" {
				return
			}
			if got, err := os.ReadFile(file); err != nil || string(got) != tt.want {
				t.Errorf("the file holds %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}
