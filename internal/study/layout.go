package study

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// grammar is how a text format spells a page: each piece of the layout (write) as the format
// writes it. One layout serves every such format, and every string it is given is escaped for the
// format's grammar (esc) before the grammar places it: a string may hold the data (a lane, a
// fixture, a profile name).
type grammar struct {
	esc func(string) string
	// line wraps a line of prose; remark a line of prose below the table before it.
	line, remark affix
	// section opens a table: its title and what it counts, both escaped.
	section func(title, note string) string
	// intro and item wrap a list's intro and each of its items, below the table before it;
	// listEnd follows the last item.
	intro, item affix
	listEnd     string
	// table writes a table: a header and rows of as many cells, escaped.
	table func(b *strings.Builder, header []string, rows [][]string)
}

// affix is what a grammar writes before and after a string.
type affix struct{ before, after string }

// page is a page being written in a grammar.
type page struct {
	b strings.Builder
	g grammar
}

func (p *page) wrap(a affix, s string) { p.b.WriteString(a.before + p.g.esc(s) + a.after) }

// line writes a line of prose.
func (p *page) line(s string) { p.wrap(p.g.line, s) }

// section opens a table: its title and what it counts.
func (p *page) section(title, note string) {
	p.b.WriteString(p.g.section(p.g.esc(title), p.g.esc(note)))
}

// table writes a table: a header and rows of as many cells.
func (p *page) table(header []string, rows [][]string) {
	escaped := make([][]string, len(rows))
	for i, row := range rows {
		escaped[i] = escape.Each(p.g.esc, row)
	}
	p.g.table(&p.b, escape.Each(p.g.esc, header), escaped)
}

// list writes items under an intro, below the table before it; nothing when there are none.
func (p *page) list(intro string, items []string) {
	if len(items) == 0 {
		return
	}
	p.wrap(p.g.intro, intro)
	for _, it := range items {
		p.wrap(p.g.item, it)
	}
	p.b.WriteString(p.g.listEnd)
}

// remark writes a line of prose below the table before it.
func (p *page) remark(s string) { p.wrap(p.g.remark, s) }

// Output lays r out on a page in grammar g (write) and writes the page through an
// escape.LogWriter: no line of it can start a CI workflow command. It implements Outputter.
func (g grammar) Output(w io.Writer, r *Report) error {
	p := &page{g: g}
	write(p, r)
	return report.WriteLog(w, p.b.String())
}

// write lays the report out on p: what was selected, then tables IV to VII, each with its title,
// what it counts and the remarks that go with it.
func write(p *page, r *Report) {
	p.line(fmt.Sprintf("contractcheck study: profiles %s (null policy %s) and %s; decoder policies %s",
		r.Profile, nullPolicy(r, 0), nullProfile(r), strings.Join(r.Decoders, ", ")))
	if s := r.selection(); s != "" {
		p.line("selection: " + s)
	}
	if r.Failure != nil {
		p.line(fmt.Sprintf("incomplete: the study failed before it could count (exit %d): %s", r.Failure.Exit, r.Failure.Error))
		return
	}
	if rc := r.reconstructed(); len(rc) > 0 {
		p.line("every table includes the reconstructed lanes " + strings.Join(rc, ", ") + " (carriers derived from source, not captured)")
	}

	p.section(titleIV+" (profile "+r.Profile+")", noteIV)
	p.table(append([]string{"lane", "version", "configuration", "stage"}, r.Tasks...), r.passRows())
	p.list("no binding judged at", r.unjudgedLines())
	p.list("judged bindings neither pass nor unmet", r.passNotes())

	p.section(titleV, noteV)
	p.table(r.censusHeader(), r.censusRows())
	p.list("T1 divergences", r.t1Lines())

	p.section(titleVI+" (stages "+strings.Join(r.DecoderStages, " ")+")", noteVI)
	if len(r.JSONText) == 0 {
		p.remark(noReadings)
	} else {
		p.table(r.jsonTextHeader(), r.jsonTextRows())
	}

	p.section(titleVII, noteVII)
	if len(r.Positions) == 0 {
		p.remark(noReadings)
	} else {
		p.table(totalsHeader(), r.totalsRows())
		p.remark("per position (" + strings.Join(r.Decoders, " / ") + "):")
		p.table(r.positionHeader(), r.positionRows())
	}

	if r.Unstable > 0 {
		p.section("repetitions disagree", fmt.Sprintf("%d bindings and readings unstable (exit 3)", r.Unstable))
	}
}

// nullPolicy is the null policy of census i, or "" when the run has none.
func nullPolicy(r *Report, i int) string {
	if i < len(r.Divergences) {
		return r.Divergences[i].NullPolicy
	}
	return ""
}

// nullProfile names the second profile with its null policy when known.
func nullProfile(r *Report) string {
	if p := nullPolicy(r, 1); p != "" {
		return r.NullProfile + " (null policy " + p + ")"
	}
	return r.NullProfile
}
