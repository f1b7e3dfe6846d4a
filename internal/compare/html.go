package compare

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/report"
)

// HTML writes the comparison as one self-contained page (inline style, no script, nothing
// fetched): the decoder tables (matches per decoder policy by lane × configuration × stage,
// coloured by the share matched), the totals by readout kind, what reaches the model beside what
// each decoder recovers (coloured the same way), every target reading as a heatmap
// per decoder (cells coloured by readout kind, the value read in each cell's title), the
// configuration comparison and the null-policy sensitivity.
type HTML struct{}

const compareCSS = `
td.k { width: 22px; min-width: 22px; height: 18px; text-align: center; padding: 0; color: #fff; border-left: 1px solid #fff; border-bottom: 1px solid #fff; }
.k-match { background: var(--pass); } .k-missing { background: var(--unmet); } .k-wrong { background: #8b1a1a; }
.k-ambiguous { background: var(--unstable); } .k-unparseable { background: var(--failed); } .k-introduced { background: #2f6db5; }
.k-none { background: var(--na); color: #999 !important; }
td.m { text-align: right; padding: 2px 6px; border: 1px solid var(--line); }
.m0 { background: #f6c9c5; } .m1 { background: #f9dfc0; } .m2 { background: #e8efc4; } .m3 { background: #c9e8cc; }
`

var kindMarks = map[string]string{Match: "✓", Missing: "✗", Wrong: "≠", Ambiguous: "?", Unparseable: "!", Introduced: "+"}

// Output implements Outputter.
func (HTML) Output(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	e := escape.HTML
	ns := r.NullPolicies
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>contractcheck compare: profile %s</title>\n<style>\n%s%s</style>\n</head>\n<body>\n", e(r.Profile), report.HTMLStyle(), compareCSS)
	fmt.Fprintf(bw, "<header>\n<h1>contractcheck compare</h1>\n<p class=\"meta\">profile <code>%s</code> · decoder policies %s · %d target readings, %d captured, %d unstable · null policies <code>%s</code> vs <code>%s</code></p>\n",
		e(r.Profile), e(strings.Join(decoderNames(r), ", ")), r.Summary.Readings, r.Summary.Captured, r.Summary.Unstable, e(ns.Base.Profile), e(ns.Other.Profile))
	fmt.Fprintf(bw, "<nav><a href=\"#matches\">matches</a> <a href=\"#totals\">totals</a> %s<a href=\"#readings\">readings</a> <a href=\"#configurations\">configurations</a> <a href=\"#null\">null policies</a></nav>\n</header>\n<main>\n", visibilityNav(r))
	if lanes := reconstructedLanes(r); len(lanes) > 0 {
		fmt.Fprintf(bw, "<p class=\"help\">Every table below includes the reconstructed lanes %s: carriers derived from the framework's source, not captured by running it.</p>\n", e(strings.Join(lanes, ", ")))
	}

	fmt.Fprintf(bw, "<section id=\"matches\">\n<h2>Matches per decoder policy</h2>\n<p class=\"help\">Matches out of the captured target readings; – when none was captured.</p>\n")
	for _, d := range decoderNames(r) {
		fmt.Fprintf(bw, "<table class=\"list\" data-decoder=\"%s\"><caption><code>%s</code></caption>\n<thead><tr><th>lane</th><th>version</th><th>configuration</th>", e(d), e(d))
		for _, st := range stages {
			fmt.Fprintf(bw, "<th>%s</th>", e(st))
		}
		fmt.Fprintf(bw, "</tr></thead><tbody>\n")
		for _, c := range matchCells(r, d) {
			fmt.Fprintf(bw, "<tr><td>%s</td><td>%s</td><td>%s</td>", e(c.lane), e(c.version), e(c.configuration))
			for _, m := range c.cells {
				if m == nil || m.Captured == 0 {
					fmt.Fprintf(bw, "<td class=\"m\">–</td>")
					continue
				}
				fmt.Fprintf(bw, "<td class=\"m %s\">%d/%d</td>", shareClass(m.Match, m.Captured), m.Match, m.Captured)
			}
			fmt.Fprintf(bw, "</tr>\n")
		}
		fmt.Fprintf(bw, "</tbody></table>\n")
	}
	fmt.Fprintf(bw, "</section>\n")

	fmt.Fprintf(bw, "<section id=\"totals\">\n<h2>Totals by readout kind</h2>\n<p class=\"help\">Framework lanes; control lanes left out.</p>\n<table class=\"list\"><thead><tr><th>decoder</th>")
	for _, k := range Kinds {
		fmt.Fprintf(bw, "<th><span class=\"k-%s\">&nbsp;%s&nbsp;</span> %s</th>", k, kindMarks[k], k)
	}
	fmt.Fprintf(bw, "<th>total</th></tr></thead><tbody>\n")
	for _, t := range r.Totals {
		fmt.Fprintf(bw, "<tr><td><code>%s</code></td>", e(t.Decoder))
		for _, k := range Kinds {
			fmt.Fprintf(bw, "<td>%d</td>", t.Kinds[k])
		}
		fmt.Fprintf(bw, "<td>%d</td></tr>\n", t.Total)
	}
	fmt.Fprintf(bw, "</tbody></table>\n</section>\n")

	writeVisibility(bw, r)

	writeReadingMaps(bw, r)

	fmt.Fprintf(bw, "<section id=\"configurations\">\n<h2>Configurations</h2>\n")
	if len(r.Configurations) == 0 {
		fmt.Fprintf(bw, "<p>No lane version has two configurations in this run.</p>\n")
	}
	for _, c := range r.Configurations {
		fmt.Fprintf(bw, "<table class=\"list\"><caption>%s %s: %s → %s</caption><thead><tr><th>fixture</th><th>what</th><th>stages</th><th>before</th><th>after</th><th>atoms</th></tr></thead><tbody>\n",
			e(c.Lane), e(c.LaneVersion), e(c.From), e(c.To))
		for _, g := range foldTaskChanges(c.Tasks) {
			fmt.Fprintf(bw, "<tr><td>%s</td><td>%s (%s)</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", e(g.fixture), e(g.task), e(g.role), e(strings.Join(g.stages, " ")), e(g.before), e(g.after), e(strings.Join(g.atoms, ", ")))
		}
		for _, g := range foldDecoderChanges(c.Decoders) {
			fmt.Fprintf(bw, "<tr><td>%s</td><td><code>%s</code> %s</td><td>%s</td><td>%s</td><td>%s</td><td></td></tr>\n", e(g.fixture), e(g.decoder), e(g.target), e(strings.Join(g.stages, " ")), e(g.before), e(g.after))
		}
		fmt.Fprintf(bw, "</tbody></table>\n")
	}
	fmt.Fprintf(bw, "</section>\n")

	fmt.Fprintf(bw, "<section id=\"null\">\n<h2>Null-policy sensitivity: %s vs %s</h2>\n<p>Tasks with optional atoms: %s; %d bindings change.</p>\n", e(ns.Base.Profile), e(ns.Other.Profile), e(strings.Join(ns.Tasks, ", ")), len(ns.Changes))
	if len(ns.Changes) > 0 {
		fmt.Fprintf(bw, "<table class=\"list\"><thead><tr><th>fixture</th><th>task</th><th>lane</th><th>version</th><th>configuration</th><th>stage</th><th>%s</th><th>%s</th><th>atoms</th></tr></thead><tbody>\n", e(ns.Base.Profile), e(ns.Other.Profile))
		for _, c := range ns.Changes {
			fmt.Fprintf(bw, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				e(c.Fixture), e(c.Task), e(c.Lane), e(c.LaneVersion), e(c.Configuration), e(c.Stage), e(c.BaseOutcome), e(c.OtherOutcome), e(strings.Join(c.Atoms, ", ")))
		}
		fmt.Fprintf(bw, "</tbody></table>\n")
	}
	fmt.Fprintf(bw, "<table class=\"list\"><thead><tr><th></th><th><code>%s</code></th><th><code>%s</code></th></tr></thead><tbody>\n", e(ns.Base.Profile), e(ns.Other.Profile))
	for _, row := range nullRows(ns) {
		fmt.Fprintf(bw, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>\n", e(row[0]), e(row[1]), e(row[2]))
	}
	fmt.Fprintf(bw, "</tbody></table>\n</section>\n</main>\n</body>\n</html>\n")
	return bw.Flush()
}

// shareClass buckets matched/captured for colour: none, under half, under all, all.
func shareClass(match, captured int) string {
	switch {
	case match == 0:
		return "m0"
	case 2*match < captured:
		return "m1"
	case match < captured:
		return "m2"
	}
	return "m3"
}

type matchCellRow struct {
	lane, version, configuration string
	cells                        []*MatchCell // per stage
}

// matchCells is one decoder's match matrix: a row per lane version and configuration, a cell per
// stage.
func matchCells(r *Report, decoder string) []matchCellRow {
	var rows []matchCellRow
	index := map[laneConfig]int{}
	for i := range r.Matches {
		c := &r.Matches[i]
		if c.Decoder != decoder {
			continue
		}
		k := laneConfig{c.Lane, c.LaneVersion, c.Configuration}
		j, ok := index[k]
		if !ok {
			j = len(rows)
			index[k] = j
			rows = append(rows, matchCellRow{c.Lane, c.LaneVersion, c.Configuration, make([]*MatchCell, len(stages))})
		}
		rows[j].cells[contract.StageIndex(c.Stage)-1] = c
	}
	return rows
}

// writeReadingMaps writes, per decoder, every target reading: rows fixture and target, columns
// lane · version · configuration · stage, cells coloured by readout kind.
func writeReadingMaps(w io.Writer, r *Report) {
	e := escape.HTML
	type col struct{ lane, version, configuration, stage string }
	type row struct{ fixture, target string }
	cols := map[col]bool{}
	rows := map[row]bool{}
	at := map[row]map[col]*Reading{}
	for i := range r.Readouts {
		rd := &r.Readouts[i]
		c := col{rd.Lane, rd.LaneVersion, rd.Configuration, rd.Stage}
		k := row{rd.Fixture, rd.Target}
		cols[c], rows[k] = true, true
		if at[k] == nil {
			at[k] = map[col]*Reading{}
		}
		at[k][c] = rd
	}
	var cl []col
	for c := range cols {
		cl = append(cl, c)
	}
	sort.Slice(cl, func(i, j int) bool {
		a, b := cl[i], cl[j]
		if a.lane != b.lane {
			return a.lane < b.lane
		}
		if a.version != b.version {
			return a.version < b.version
		}
		if a.configuration != b.configuration {
			return a.configuration < b.configuration
		}
		return contract.StageIndex(a.stage) < contract.StageIndex(b.stage)
	})
	var rl []row
	for k := range rows {
		rl = append(rl, k)
	}
	sort.Slice(rl, func(i, j int) bool {
		if rl[i].fixture != rl[j].fixture {
			return rl[i].fixture < rl[j].fixture
		}
		return rl[i].target < rl[j].target
	})
	fmt.Fprintf(w, "<section id=\"readings\">\n<h2>Target readings</h2>\n<p class=\"help\">Per decoder policy: each declared target (fixture and JSON pointer into structuredContent) at each lane · version · configuration · stage, coloured by readout kind; a cell's title gives what was expected and read. Grey: nothing captured there (its state in the title).</p>\n<ul class=\"legend\">")
	for _, k := range Kinds {
		fmt.Fprintf(w, "<li><span class=\"c k-%s\">%s</span> %s</li>", k, kindMarks[k], k)
	}
	fmt.Fprintf(w, "</ul>\n")
	for _, d := range decoderNames(r) {
		fmt.Fprintf(w, "<h3><code>%s</code></h3>\n<div class=\"scroll\"><table class=\"hm\" data-decoder=\"%s\"><thead><tr><th class=\"fx\" rowspan=\"2\">fixture</th><th class=\"fx\" rowspan=\"2\">target</th>", e(d), e(d))
		for i := 0; i < len(cl); {
			j := i
			for j < len(cl) && cl[j].lane == cl[i].lane && cl[j].version == cl[i].version && cl[j].configuration == cl[i].configuration {
				j++
			}
			fmt.Fprintf(w, "<th colspan=\"%d\" class=\"grp g0\">%s<small>%s</small><small>%s</small></th>", j-i, e(cl[i].lane), e(cl[i].version), e(cl[i].configuration))
			i = j
		}
		fmt.Fprintf(w, "</tr>\n<tr>")
		for i, c := range cl {
			cls := "st"
			if i == 0 || cl[i-1].lane != c.lane || cl[i-1].version != c.version || cl[i-1].configuration != c.configuration {
				cls += " g0"
			}
			fmt.Fprintf(w, "<th class=\"%s\" title=\"%s\">%s</th>", cls, e(c.lane+" "+c.version+" "+c.configuration+" "+c.stage), e(c.stage))
		}
		fmt.Fprintf(w, "</tr></thead><tbody>\n")
		for _, k := range rl {
			fmt.Fprintf(w, "<tr><th class=\"fx\">%s</th><th class=\"fx\"><code>%s</code></th>", e(k.fixture), e(k.target))
			for i, c := range cl {
				cls := "k"
				if i == 0 || cl[i-1].lane != c.lane || cl[i-1].version != c.version || cl[i-1].configuration != c.configuration {
					cls += " g0"
				}
				rd := at[k][c]
				if rd == nil {
					fmt.Fprintf(w, "<td class=\"%s none\"></td>", cls)
					continue
				}
				kind := rd.Kind(d)
				exp := "absent"
				if rd.Expected != nil {
					exp = short(rd.Expected.V)
				}
				title := fmt.Sprintf("%s %s at %s %s %s %s: ", k.fixture, k.target, c.lane, c.version, c.configuration, c.stage)
				if kind == "" {
					fmt.Fprintf(w, "<td class=\"%s k-none\" title=\"%s\">·</td>", cls, e(title+rd.State))
					continue
				}
				title += "expected " + exp + "; read " + readoutText(rd.Readouts[d])
				fmt.Fprintf(w, "<td class=\"%s k-%s\" data-kind=\"%s\" title=\"%s\">%s</td>", cls, e(kind), e(kind), e(title), kindMarks[kind])
			}
			fmt.Fprintf(w, "</tr>\n")
		}
		fmt.Fprintf(w, "</tbody></table></div>\n")
	}
	fmt.Fprintf(w, "</section>\n")
}

// visibilityNav is the navigation link to the visibility section, "" when the report has none.
func visibilityNav(r *Report) string {
	if len(r.Visibility) == 0 {
		return ""
	}
	return "<a href=\"#visibility\">what reaches the model</a> "
}

// writeVisibility writes the visibility section: a row per group (lane, version, configuration,
// stage and its summary), a cell per decoder coloured by the share of targets it recovers.
func writeVisibility(w io.Writer, r *Report) {
	if len(r.Visibility) == 0 {
		return
	}
	e := escape.HTML
	fmt.Fprintf(w, "<section id=\"visibility\">\n<h2>%s</h2>\n<p class=\"help\">%s</p>\n", e(visibilityTitle), e(visibilityNote))
	fmt.Fprintf(w, "<table class=\"list\" data-table=\"visibility\"><thead><tr><th>lane</th><th>version</th><th>configuration</th><th>stage</th><th>what reaches the model</th>")
	for _, d := range decoderNames(r) {
		fmt.Fprintf(w, "<th><code>%s</code></th>", e(d))
	}
	fmt.Fprintf(w, "</tr></thead><tbody>\n")
	for _, v := range r.Visibility {
		fmt.Fprintf(w, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td data-category=\"%s\">%s</td>", e(v.Lane), e(v.Version), e(v.Configuration), e(v.Stage), e(v.Category), e(v.Summary()))
		for _, c := range v.Recovered {
			if c.Targets == 0 {
				fmt.Fprintf(w, "<td class=\"m\" data-decoder=\"%s\">–</td>", e(c.Decoder))
				continue
			}
			fmt.Fprintf(w, "<td class=\"m %s\" data-decoder=\"%s\">%d/%d</td>", shareClass(c.Match, c.Targets), e(c.Decoder), c.Match, c.Targets)
		}
		fmt.Fprintf(w, "</tr>\n")
	}
	fmt.Fprintf(w, "</tbody></table>\n</section>\n")
}
