package study

import (
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// text is the text format: the four tables for a terminal, aligned in terminal columns
// (report.Columns) and indented under their titles, each with its title and what it counts.
// Every string is written through escape.Terminal (no cell or line of the data holds a line
// break, a tab or a control), the whole through an escape.LogWriter.
var text = grammar{
	esc:  escape.Terminal,
	line: affix{"", "\n"}, remark: affix{"  ", "\n"},
	section: func(title, note string) string { return "\n" + title + ": " + note + "\n" },
	intro:   affix{"  ", ":\n"}, item: affix{"    ", "\n"},
	table: func(b *strings.Builder, header []string, rows [][]string) {
		t := report.NewColumns(header)
		for _, row := range rows {
			t.Add(row)
		}
		t.Write(b, "  ")
	},
}
