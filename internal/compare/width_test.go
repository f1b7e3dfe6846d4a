package compare

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// TestTableAlignsWideCells: a cell holding CJK, an emoji or a combining mark keeps the columns in
// line: the table pads by terminal columns, not runes, so every line takes the same columns.
func TestTableAlignsWideCells(t *testing.T) {
	tw := newTable([]string{"lane", "version", "configuration", "M3"})
	tw.add([]string{"漢字レーン", "1.0", "既定", "3/4"})
	tw.add([]string{"🙂", "2.0", "cafe\u0301", "–"})
	tw.add([]string{"lane", "🇯🇵", "default", "10/12"})
	var b strings.Builder
	tw.write(&b, "  ")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, l := range lines[1:] {
		if escape.Width(l) != escape.Width(lines[0]) {
			t.Errorf("row %q takes %d columns, the header %q %d", l, escape.Width(l), lines[0], escape.Width(lines[0]))
		}
	}
}
