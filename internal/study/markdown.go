package study

import (
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// markdown is the markdown format: the four tables as GitHub-flavoured markdown, each under a
// heading with what it counts, lists as bullets. Every string is written as escape.MarkdownText,
// so that none can end a cell or a line or hold raw HTML; the whole goes through an
// escape.LogWriter.
var markdown = grammar{
	esc:  escape.MarkdownText,
	line: affix{"", "\n\n"}, remark: affix{"", "\n\n"},
	section: func(title, note string) string { return "### " + title + "\n\n" + note + ".\n\n" },
	intro:   affix{"", ":\n\n"}, item: affix{"- ", "\n"}, listEnd: "\n",
	table: func(b *strings.Builder, header []string, rows [][]string) {
		b.WriteString("| " + strings.Join(header, " | ") + " |\n")
		b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
		for _, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		}
		b.WriteString("\n")
	},
}
