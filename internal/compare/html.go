package compare

import (
	"bufio"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
)

// HTML writes the comparison as one self-contained page (inline style, no script, nothing
// fetched): where the decoders differ (lane losses left out), the decoder tables (matches per decoder policy by lane × configuration × stage,
// coloured by the share matched), the totals by readout kind, what reaches the model beside what
// each decoder recovers (coloured the same way), every target reading as a heatmap
// per decoder (cells coloured by readout kind, the value read in each cell's title), the
// configuration comparison and what the second profile changes (NullSensitivity.Heading).
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

//go:embed html.tmpl
var htmlTemplateText string

// htmlTemplate is the page's markup (html.tmpl), parsed once: report.HTMLFuncs escape its data,
// as they do check's page, and join lists names as the page writes them ("a, b"; text escapes the
// list).
var htmlTemplate = template.Must(template.New("html.tmpl").Funcs(report.HTMLFuncs()).
	Funcs(template.FuncMap{"join": func(xs []string) string { return strings.Join(xs, ", ") }}).
	Parse(htmlTemplateText))

// Output implements Outputter.
func (HTML) Output(w io.Writer, r *Report) error {
	if r.Failure != nil {
		return writeHTMLFailure(w, r)
	}
	bw := bufio.NewWriter(w)
	if err := htmlTemplate.ExecuteTemplate(bw, "page", newHTMLPage(r)); err != nil {
		return err
	}
	return bw.Flush()
}

// htmlPage is what the page's template (html.tmpl) reads: the report, and each section laid out
// for the markup.
type htmlPage struct {
	R *Report
	// CSS is check's style sheet and compare's own (report.HTMLStyle, compareCSS): the binary's,
	// trusted, and written as it is.
	CSS template.CSS
	// Decoders names the decoder policies; Reconstructed the lanes whose readings are
	// reconstructed (reconstructedLanes).
	Decoders, Reconstructed []string
	// Stages are the match tables' columns.
	Stages  []string
	Kinds   []htmlKind
	Matches []htmlMatchTable
	Totals  []htmlTotals
	// DifferencesTitle and DifferencesNote head the differences section; Differs, LaneLoss and
	// Captured are its totals, DifferenceRows its table and DifferenceKinds its readings grouped.
	DifferencesTitle, DifferencesNote string
	Differs, LaneLoss, Captured       int
	DifferenceRows                    []htmlDifferenceRow
	DifferenceKinds                   []htmlDifferenceKinds
	// TotalsTitle heads the totals; NullHeading the profile section (NullSensitivity.Heading).
	TotalsTitle, NullHeading string
	// VisibilityTitle and VisibilityNote head the visibility section, left out when Visibility
	// is empty.
	VisibilityTitle, VisibilityNote string
	Visibility                      []htmlVisibilityRow
	// ReadingGroups and ReadingColumns head every decoder's reading map (Readings).
	ReadingGroups  []htmlReadingGroup
	ReadingColumns []htmlReadingColumn
	Readings       []htmlReadingMap
	Configurations []htmlConfiguration
	NullRows       [][]string
}

// htmlKind is a readout kind and its mark.
type htmlKind struct{ Kind, Mark string }

// htmlShare is a count out of a total, coloured by shareClass; OK is false when the total is 0,
// and the cell reads –. Decoder is the decoder it counts for, in the visibility table.
type htmlShare struct {
	OK        bool
	Class     string
	Match, Of int
	Decoder   string
}

// newShare is match out of of, for decoder.
func newShare(match, of int, decoder string) htmlShare {
	if of == 0 {
		return htmlShare{Decoder: decoder}
	}
	return htmlShare{OK: true, Class: shareClass(match, of), Match: match, Of: of, Decoder: decoder}
}

// htmlMatchTable is one decoder's match matrix (matchCells).
type htmlMatchTable struct {
	Decoder string
	Rows    []htmlMatchRow
}

// htmlMatchRow is a lane version and configuration of a match matrix, a cell per stage.
type htmlMatchRow struct {
	Lane, Version, Configuration string
	Cells                        []htmlShare
}

// htmlTotals is a decoder's readouts by kind, in Kinds' order, of every target (Count "per
// field") or of the whole value (Count "whole value").
type htmlTotals struct {
	Decoder, Count string
	Counts         []string
	Total          string
}

// htmlDifferenceRow is a lane version and configuration of the differences table: per stage the
// readings where the decoders differ, – when nothing was captured.
type htmlDifferenceRow struct {
	Lane, Version, Configuration string
	Cells                        []string
}

// htmlDifferenceKinds is the readings where the decoders differ of one fixture and target whose
// decoders give the same kinds.
type htmlDifferenceKinds struct {
	Fixture, Target, Kinds, Lanes string
	Readings                      int
}

// htmlVisibilityRow is a visibility group and what each decoder recovers there.
type htmlVisibilityRow struct {
	V     VisibilityRow
	Cells []htmlShare
}

// htmlConfiguration is a configuration comparison, its changes folded by stage.
type htmlConfiguration struct {
	C        ConfigurationDiff
	Tasks    []htmlTaskChange
	Decoders []htmlDecoderChange
}

// htmlTaskChange is a task whose outcome changes between the configurations (foldTaskChanges).
type htmlTaskChange struct {
	Fixture, Task, Role, Stages, Before, After, Atoms string
}

// htmlDecoderChange is a target reading whose kind changes between the configurations
// (foldDecoderChanges).
type htmlDecoderChange struct {
	Fixture, Decoder, Target, Stages, Before, After string
}

// newHTMLPage lays the comparison out for the template.
func newHTMLPage(r *Report) *htmlPage {
	p := &htmlPage{R: r, CSS: template.CSS(report.HTMLStyle() + compareCSS), Decoders: decoderNames(r), Reconstructed: reconstructedLanes(r),
		Stages: stages, VisibilityTitle: visibilityTitle, VisibilityNote: visibilityNote, NullRows: nullRows(r.NullPolicies)}
	for _, k := range Kinds {
		p.Kinds = append(p.Kinds, htmlKind{k, kindMarks[k]})
	}
	for _, d := range p.Decoders {
		t := htmlMatchTable{Decoder: d}
		for _, c := range matchCells(r, d) {
			row := htmlMatchRow{Lane: c.lane, Version: c.version, Configuration: c.configuration}
			for _, m := range c.cells {
				if m == nil {
					row.Cells = append(row.Cells, htmlShare{})
					continue
				}
				row.Cells = append(row.Cells, newShare(m.Match, m.Captured, ""))
			}
			t.Rows = append(t.Rows, row)
		}
		p.Matches = append(p.Matches, t)
	}
	for _, row := range totalsRows(r) {
		p.Totals = append(p.Totals, htmlTotals{Decoder: row[0], Count: row[1], Counts: row[2 : len(row)-1], Total: row[len(row)-1]})
	}
	p.DifferencesTitle, p.DifferencesNote, p.TotalsTitle = differencesTitle, differencesNote, totalsTitle
	p.NullHeading = r.NullPolicies.Heading(func(s string) string { return s }) // the template escapes the whole
	p.Differs, p.LaneLoss, p.Captured = differenceTotals(r)
	for _, row := range differenceRows(r) {
		hr := htmlDifferenceRow{Lane: row.lane, Version: row.version, Configuration: row.configuration}
		for _, c := range row.cells {
			hr.Cells = append(hr.Cells, differenceCell(c))
		}
		p.DifferenceRows = append(p.DifferenceRows, hr)
	}
	for _, g := range differenceKinds(r) {
		p.DifferenceKinds = append(p.DifferenceKinds, htmlDifferenceKinds{Fixture: g.fixture, Target: targetName(g.target), Kinds: g.kinds,
			Lanes: strings.Join(g.lanes, ", "), Readings: g.readings})
	}
	for _, v := range r.Visibility {
		hv := htmlVisibilityRow{V: v}
		for _, c := range v.Recovered {
			hv.Cells = append(hv.Cells, newShare(c.Match, c.Targets, c.Decoder))
		}
		p.Visibility = append(p.Visibility, hv)
	}
	p.readingMaps()
	for _, c := range r.Configurations {
		hc := htmlConfiguration{C: c}
		for _, g := range foldTaskChanges(c.Tasks) {
			hc.Tasks = append(hc.Tasks, htmlTaskChange{Fixture: g.fixture, Task: g.task, Role: g.role, Stages: strings.Join(g.stages, " "),
				Before: g.before, After: g.after, Atoms: strings.Join(g.atoms, ", ")})
		}
		for _, g := range foldDecoderChanges(c.Decoders) {
			hc.Decoders = append(hc.Decoders, htmlDecoderChange{Fixture: g.fixture, Decoder: g.decoder, Target: g.target,
				Stages: strings.Join(g.stages, " "), Before: g.before, After: g.after})
		}
		p.Configurations = append(p.Configurations, hc)
	}
	return p
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

// matchCellRow is one lane version and configuration of a decoder's match matrix.
type matchCellRow = stageRow[MatchCell]

// matchCells is one decoder's match matrix: a row per lane version and configuration, a cell per
// stage (stageRows).
func matchCells(r *Report, decoder string) []matchCellRow {
	return stageRows(r.Matches, func(c *MatchCell) (result.Cell, bool) { return c.Cell, c.Decoder == decoder })
}

// htmlReadingGroup is a lane version and configuration heading Span columns of the reading maps.
type htmlReadingGroup struct {
	Lane, Version, Configuration string
	Span                         int
}

// htmlReadingColumn is a stage of a column group of the reading maps: Class marks a group's first.
type htmlReadingColumn struct {
	Class, Title, Stage string
}

// htmlReadingMap is one decoder's reading map.
type htmlReadingMap struct {
	Decoder string
	Rows    []htmlReadingRow
}

// htmlReadingRow is a fixture and target of a reading map, a cell per column.
type htmlReadingRow struct {
	Fixture, Target string
	Cells           []htmlReadingCell
}

// htmlReadingCell is a reading in a map: none when Read is false, grey when Kind is "" (nothing
// captured there, its state in the title), else coloured by Kind, its mark Mark.
type htmlReadingCell struct {
	Read                     bool
	Class, Kind, Title, Mark string
}

// readingMaps lays out, per decoder, every target reading: rows fixture and target, columns
// lane · version · configuration · stage, cells coloured by readout kind.
func (p *htmlPage) readingMaps() {
	r := p.R
	type col = result.Cell // a column: lane, version, configuration, stage
	type row struct{ fixture, target string }
	cols := map[col]bool{}
	rows := map[row]bool{}
	at := map[row]map[col]*Reading{}
	for i := range r.Readouts {
		rd := &r.Readouts[i]
		c := rd.Cell()
		k := row{rd.Fixture, rd.Target}
		cols[c], rows[k] = true, true
		if at[k] == nil {
			at[k] = map[col]*Reading{}
		}
		at[k][c] = rd
	}
	cl := sortedCells(cols)
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
	for i := 0; i < len(cl); {
		j := i
		for j < len(cl) && cl[j].Lane == cl[i].Lane && cl[j].LaneVersion == cl[i].LaneVersion && cl[j].Configuration == cl[i].Configuration {
			j++
		}
		p.ReadingGroups = append(p.ReadingGroups, htmlReadingGroup{cl[i].Lane, cl[i].LaneVersion, cl[i].Configuration, j - i})
		i = j
	}
	// first is the class of column i: a group's first column has a rule to its left.
	first := func(i int, cls string) string {
		if c := cl[i]; i == 0 || cl[i-1].Lane != c.Lane || cl[i-1].LaneVersion != c.LaneVersion || cl[i-1].Configuration != c.Configuration {
			return cls + " g0"
		}
		return cls
	}
	for i, c := range cl {
		p.ReadingColumns = append(p.ReadingColumns, htmlReadingColumn{first(i, "st"), c.Lane + " " + c.LaneVersion + " " + c.Configuration + " " + c.Stage, c.Stage})
	}
	for _, d := range p.Decoders {
		m := htmlReadingMap{Decoder: d}
		for _, k := range rl {
			hr := htmlReadingRow{Fixture: k.fixture, Target: k.target}
			for i, c := range cl {
				cell := htmlReadingCell{Class: first(i, "k")}
				rd := at[k][c]
				if rd == nil {
					hr.Cells = append(hr.Cells, cell)
					continue
				}
				cell.Read, cell.Kind = true, rd.Kind(d)
				title := fmt.Sprintf("%s %s at %s %s %s %s: ", k.fixture, k.target, c.Lane, c.LaneVersion, c.Configuration, c.Stage)
				if cell.Kind == "" {
					cell.Title = title + rd.State
					hr.Cells = append(hr.Cells, cell)
					continue
				}
				exp := "absent"
				if rd.Expected != nil {
					exp = short(rd.Expected.V)
				}
				cell.Title, cell.Mark = title+"expected "+exp+"; read "+readoutText(rd.Readouts[d]), kindMarks[cell.Kind]
				hr.Cells = append(hr.Cells, cell)
			}
			m.Rows = append(m.Rows, hr)
		}
		p.Readings = append(p.Readings, m)
	}
}
