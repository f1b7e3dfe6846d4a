package report

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// TestColumnsAlignWideCells: a cell holding CJK, an emoji or a combining mark keeps the columns in
// line: the table pads by terminal columns, not runes, so every row's last cell starts at the
// same column, and no row ends in spaces.
func TestColumnsAlignWideCells(t *testing.T) {
	rows := [][]string{
		{"lane", "version", "configuration", "M3"},
		{"漢字レーン", "1.0", "既定", "3/4"},
		{"🙂", "2.0", "cafe\u0301", "–"},
		{"lane", "🇯🇵", "default", "10/12"},
	}
	tw := NewColumns(rows[0])
	for _, r := range rows[1:] {
		tw.Add(r)
	}
	var b strings.Builder
	tw.Write(&b, "  ")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	start := func(i int) int { return escape.Width(lines[i]) - escape.Width(rows[i][len(rows[i])-1]) }
	for i, l := range lines {
		if start(i) != start(0) {
			t.Errorf("row %q: last cell starts at column %d, the header's at %d", l, start(i), start(0))
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("row %q ends in a space", l)
		}
	}
}
