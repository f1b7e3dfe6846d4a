package study

import (
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// Markdown writes the four tables as GitHub-flavoured markdown, each table under a heading with
// what it counts. Every string is written as escape.MarkdownText, so that none can end a cell or
// a line or hold raw HTML; the whole goes through an escape.LogWriter.
type Markdown struct{}

// Output implements Outputter.
func (Markdown) Output(w io.Writer, r *Report) error {
	var p markdownPage
	write(&p, r)
	return writeLog(w, p.b.String())
}

// markdownPage is the page of the markdown format.
type markdownPage struct{ b strings.Builder }

func (p *markdownPage) line(s string) { p.b.WriteString(escape.MarkdownText(s) + "\n\n") }

func (p *markdownPage) section(title, note string) {
	p.b.WriteString("### " + escape.MarkdownText(title) + "\n\n" + escape.MarkdownText(note) + ".\n\n")
}

func (p *markdownPage) table(header []string, rows [][]string) {
	row := func(cells []string) {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = escape.MarkdownText(c)
		}
		p.b.WriteString("| " + strings.Join(out, " | ") + " |\n")
	}
	row(header)
	p.b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
	for _, r := range rows {
		row(r)
	}
	p.b.WriteString("\n")
}

func (p *markdownPage) list(intro string, items []string) {
	if len(items) == 0 {
		return
	}
	p.b.WriteString(escape.MarkdownText(intro) + ":\n\n")
	for _, it := range items {
		p.b.WriteString("- " + escape.MarkdownText(it) + "\n")
	}
	p.b.WriteString("\n")
}

func (p *markdownPage) remark(s string) { p.b.WriteString(escape.MarkdownText(s) + "\n\n") }
