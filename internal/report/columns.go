package report

import (
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// Columns is a small text table held whole: each column padded to its widest cell, in terminal
// columns (escape.Width: a CJK character or an emoji takes 2, a combining mark none), so that a
// row holding one stays in line, two spaces between cells, none after a row's last. Its cells must already be
// escaped for a terminal (escape.Terminal). The compare and study text reports write their
// tables with it.
type Columns struct {
	rows [][]string
}

// NewColumns returns a table whose first row is header.
func NewColumns(header []string) *Columns { return &Columns{rows: [][]string{header}} }

// Add appends a row.
func (t *Columns) Add(row []string) { t.rows = append(t.rows, row) }

// Write writes the table to b, each row after indent.
func (t *Columns) Write(b *strings.Builder, indent string) {
	widths := map[int]int{}
	for _, row := range t.rows {
		for i, c := range row {
			widths[i] = max(widths[i], escape.Width(c))
		}
	}
	for _, row := range t.rows {
		b.WriteString(indent)
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-escape.Width(c)))
			}
		}
		b.WriteString("\n")
	}
}
