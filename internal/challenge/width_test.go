package challenge

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// TestWriteTableAlignsWideCells: an operator named in CJK or with an emoji keeps the score table
// in line, where text/tabwriter, counting runes, would not: the last column starts at the same
// terminal column on every line.
func TestWriteTableAlignsWideCells(t *testing.T) {
	var b bytes.Buffer
	writeTable(&b, [][]string{{"operator", "kind", "x"}, {"漢字", "fault", "x"}, {"🙂op", "control", "x"}, {"e\u0301", "fault", "x"}})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, l := range lines[1:] {
		if escape.Width(l) != escape.Width(lines[0]) {
			t.Errorf("row %q takes %d columns, the header %q %d", l, escape.Width(l), lines[0], escape.Width(lines[0]))
		}
	}
}
