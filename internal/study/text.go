package study

import (
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// Text writes the four tables for a terminal, each with its title and what it counts. Every
// string is written through escape.Terminal (no cell or line of the data holds a line break, a
// tab or a control), the whole through an escape.LogWriter.
type Text struct{}

// Output implements Outputter.
func (Text) Output(w io.Writer, r *Report) error {
	var p textPage
	write(&p, r)
	return writeLog(w, p.b.String())
}

// textPage is the page of the text format: tables aligned in terminal columns (report.Columns),
// indented under their titles.
type textPage struct{ b strings.Builder }

func (p *textPage) line(s string) { p.b.WriteString(escape.Terminal(s) + "\n") }

func (p *textPage) section(title, note string) {
	p.b.WriteString("\n" + escape.Terminal(title) + ": " + escape.Terminal(note) + "\n")
}

func (p *textPage) table(header []string, rows [][]string) {
	t := report.NewColumns(terms(header))
	for _, row := range rows {
		t.Add(terms(row))
	}
	t.Write(&p.b, "  ")
}

func (p *textPage) list(intro string, items []string) {
	if len(items) == 0 {
		return
	}
	p.b.WriteString("  " + escape.Terminal(intro) + ":\n")
	for _, it := range items {
		p.b.WriteString("    " + escape.Terminal(it) + "\n")
	}
}

func (p *textPage) remark(s string) { p.b.WriteString("  " + escape.Terminal(s) + "\n") }

// terms escapes each cell of a row for a terminal.
func terms(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = escape.Terminal(c)
	}
	return out
}

// writeLog writes s through an escape.LogWriter: no line of it can start a CI workflow command.
func writeLog(w io.Writer, s string) error {
	lw := escape.NewLogWriter(w)
	if _, err := io.WriteString(lw, s); err != nil {
		return err
	}
	return lw.Flush()
}
