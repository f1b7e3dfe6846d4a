package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// HTML writes one self-contained page (inline style and script, nothing fetched, readable from
// disk): the localization heatmap per task, the divergences and their manifestations, the
// boundaries, what reaches the model (the visibility readout, when the report has one), the gate
// and the upgrades, each linking to its cells, and a drill-down per binding (the source and
// observed views side by side with the diagnostics' pointers highlighted, the records, the lane's
// binding rule and basis) when Views is set. The same report and views give the same bytes.
type HTML struct {
	Views result.Views
}

//go:embed html/report.css
var htmlCSS string

//go:embed html/report.js
var htmlJS string

//go:embed html/report.tmpl
var htmlTemplateText string

// htmlTemplate is the page's markup (html/report.tmpl), parsed once; HTMLFuncs escape its data.
var htmlTemplate = template.Must(template.New("report.tmpl").Funcs(HTMLFuncs()).Parse(htmlTemplateText))

// htmlStages orders the stages in the heatmap; unknown stages come after, by name.
var htmlStages = []string{"W0", "D1", "A2", "M3", "H4"}

func stageRank(s string) int {
	for i, x := range htmlStages {
		if x == s {
			return i
		}
	}
	return len(htmlStages)
}

// htmlMarks are the cells' glyphs, beside their colour, so the outcome reads without colour.
var htmlMarks = map[string]string{
	result.Pass: "✓", result.Unmet: "✗", result.Unstable: "≈", result.ExecutionFailed: "!", result.NotReached: "…",
	result.NotApplicable: "–", result.NotObservable: "◌",
}

// htmlOutcomes lists the outcomes in legend order.
var htmlOutcomes = []string{result.Pass, result.Unmet, result.Unstable, result.ExecutionFailed, result.NotReached, result.NotObservable, result.NotApplicable}

// htmlData is what the page's script reads: the bindings in report order and the views and
// bindings they refer to, each value already laid out so no number goes through a float.
type htmlData struct {
	Results []htmlResult `json:"results"`
	// Views holds each distinct view as its lines: [indent, pointer, text].
	Views   [][][3]any     `json:"views"`
	Sources map[string]int `json:"sources"`
	// Files names the record files the results' records are in.
	Files    []string               `json:"files"`
	Bindings map[string]htmlBinding `json:"bindings"`
	// Rules holds each distinct binding rule as its lines, as Views does.
	Rules [][][3]any `json:"rules"`
	// NoViews says why the views are not shown, when they are not.
	NoViews string `json:"noViews,omitempty"`
}

// htmlResult is a result as the page's script reads it: the result itself, and the members the
// drill-down lays out otherwise (the readout and the diagnostics' values as JSON text, the
// variants likewise, the records as indexes) or adds (its observed view, binding and boundaries).
// encoding/json writes an embedded struct's members first and a shallower member in place of a
// deeper one of the same name; Error, the result's own, is here only to keep its place among
// them, after the diagnostics.
type htmlResult struct {
	*result.Result
	Readout     string        `json:"readout,omitempty"`
	Diagnostics []htmlDiag    `json:"diagnostics,omitempty"`
	Error       string        `json:"error,omitempty"`
	Variants    []htmlVariant `json:"variants,omitempty"`
	// Records are [index in Files, line, repetition].
	Records [][3]int `json:"records,omitempty"`
	// Observed indexes Views; -1 when there is no observed view.
	Observed int    `json:"observed"`
	Binding  string `json:"binding"`
	// Boundaries describes the localizations that end at this binding.
	Boundaries []string `json:"boundaries,omitempty"`
}

type htmlDiag struct {
	Atom string `json:"atom"`
	Kind string `json:"kind"`
	Path string `json:"path"`
	// Pointer is the diagnostic's path in the view (ViewPointer).
	Pointer  string `json:"pointer"`
	Block    string `json:"block,omitempty"`
	Expected string `json:"expected,omitempty"`
	Observed string `json:"observed,omitempty"`
}

// htmlVariant is a variant of an unstable result as the page's script reads it: the variant, its
// readout and diagnostics laid out as htmlResult's are.
type htmlVariant struct {
	result.Variant
	Readout     string     `json:"readout,omitempty"`
	Diagnostics []htmlDiag `json:"diagnostics,omitempty"`
}

type htmlBinding struct {
	Lane        string `json:"lane"`
	Stage       string `json:"stage"`
	Compartment string `json:"compartment"`
	Exposure    string `json:"exposure"`
	SharedWith  string `json:"sharedWith,omitempty"`
	Doc         string `json:"doc,omitempty"`
	// Rule indexes Rules; -1 when the compartment is unbound.
	Rule    int            `json:"rule"`
	Unbound string         `json:"unbound,omitempty"`
	Basis   []result.Basis `json:"basis,omitempty"`
}

// ViewPointer is where a diagnostic's path lies in a canonical view: the built-in tasks give a
// block atom's path relative to the content list, a structured atom's relative to the structured
// slot and result._meta's relative to the result's _meta; any other atom's path is the view's own.
func ViewPointer(d result.Diagnostic) string {
	atom, _ := d["atom"].(string)
	path, _ := d["path"].(string)
	switch {
	case strings.HasPrefix(atom, "block."):
		return "/content" + path
	case strings.HasPrefix(atom, "structured."):
		return "/structured" + path
	case atom == "result._meta":
		return "/meta" + path
	}
	return path
}

// bindingKey identifies a binding (a task at a position) in the page's indexes.
type bindingKey struct {
	result.Position
	Task string
}

func keyOf(r *result.Result) bindingKey { return bindingKey{r.Position(), r.Task} }

// laneGroup is one heatmap column group: a lane at a version and configuration, and its stages.
type laneGroup struct {
	Lane, Version, Configuration string
	// Reconstructed says a binding of the group has carriers reconstructed, not captured.
	Reconstructed bool
	Stages        []string
}

// Label is the group's lane, version and configuration.
func (g laneGroup) Label() string { return g.Lane + " " + g.Version + " " + g.Configuration }

// Output implements Outputter.
func (h HTML) Output(w io.Writer, r *result.Report) error {
	// The page is one document: its results are held whole, as a list.
	if _, ok := r.Results.(result.ResultList); !ok {
		cp := *r
		list := make(result.ResultList, 0, r.Len())
		for _, res := range r.Each() {
			list = append(list, *res)
		}
		cp.Results = list
		r = &cp
	}
	data, err := h.data(r)
	if err != nil {
		return err
	}
	// The data goes in a <script> as it is (template.JS): the encoder writes <, > and & as \u
	// escapes, so nothing in it can end the script, whatever a tool result held.
	var script bytes.Buffer
	enc := json.NewEncoder(&script)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	p := newHTMLPage(r, data)
	p.Data = template.JS(bytes.TrimSuffix(script.Bytes(), []byte("\n")))
	bw := bufio.NewWriter(w)
	if err := htmlTemplate.ExecuteTemplate(bw, "page", p); err != nil {
		return err
	}
	return bw.Flush()
}

// data gathers the drill-down's data: every result in report order, the distinct views and the
// bindings they were read through.
func (h HTML) data(r *result.Report) (*htmlData, error) {
	d := &htmlData{Results: make([]htmlResult, 0, r.Len()), Views: [][][3]any{}, Sources: map[string]int{},
		Files: []string{}, Bindings: map[string]htmlBinding{}, Rules: [][][3]any{}}
	viewIndex, ruleIndex, fileIndex := map[string]int{}, map[string]int{}, map[string]int{}
	intern := func(list *[][][3]any, index map[string]int, v any) int {
		key := compactJSON(v)
		if i, ok := index[key]; ok {
			return i
		}
		lines := jsonLines(v)
		rows := make([][3]any, len(lines))
		for i, l := range lines {
			rows[i] = [3]any{l.indent, l.pointer, l.text}
		}
		index[key] = len(*list)
		*list = append(*list, rows)
		return len(*list) - 1
	}
	addView := func(v any) int { return intern(&d.Views, viewIndex, v) }
	bounds := map[bindingKey][]string{}
	for _, l := range r.Localizations {
		k := bindingKey{result.Position{Fixture: l.Fixture, Lane: l.Lane, LaneVersion: l.LaneVersion, Configuration: l.Configuration, Stage: l.To}, l.Task}
		bounds[k] = append(bounds[k], fmt.Sprintf("%s boundary %s → %s", l.Kind, l.From, l.To))
	}
	if h.Views == nil {
		d.NoViews = "This report was written without the check's instrument, so the canonical views and the binding rules are not shown (contractcheck check --format html writes them)."
	}
	for i := range results(r) {
		res := &results(r)[i]
		hr := htmlResult{Result: res, Diagnostics: htmlDiags(res.Diagnostics), Error: res.Error, Observed: -1,
			Binding: res.Lane + "|" + res.Stage + "|" + res.Compartment, Boundaries: bounds[keyOf(res)]}
		if len(res.Readout) > 0 {
			hr.Readout = compactJSON(res.Readout)
		}
		for _, v := range res.Variants {
			hv := htmlVariant{Variant: v, Diagnostics: htmlDiags(v.Diagnostics)}
			if len(v.Readout) > 0 {
				hv.Readout = compactJSON(v.Readout)
			}
			hr.Variants = append(hr.Variants, hv)
		}
		for _, rec := range res.Records {
			fi, ok := fileIndex[rec.File]
			if !ok {
				fi = len(d.Files)
				fileIndex[rec.File] = fi
				d.Files = append(d.Files, rec.File)
			}
			hr.Records = append(hr.Records, [3]int{fi, rec.Line, rec.Repetition})
		}
		if h.Views != nil {
			if _, ok := d.Sources[res.Fixture]; !ok {
				v, err := h.Views.SourceView(res.Fixture)
				if err != nil {
					return nil, fmt.Errorf("html report: source view of %s: %w", res.Fixture, err)
				}
				d.Sources[res.Fixture] = addView(v)
			}
			v, ok, err := h.Views.ObservedView(res)
			if err != nil {
				return nil, fmt.Errorf("html report: observed view of %s %s %s %s %s %s: %w", res.Task, res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, err)
			}
			if ok {
				hr.Observed = addView(v)
			}
			if _, seen := d.Bindings[hr.Binding]; !seen {
				if b, ok := h.Views.Binding(res.Lane, res.Stage, res.Compartment); ok {
					hb := htmlBinding{Lane: res.Lane, Stage: res.Stage, Compartment: res.Compartment, Exposure: b.Exposure,
						SharedWith: b.SharedWith, Doc: b.Doc, Unbound: b.Unbound, Basis: b.Basis, Rule: -1}
					if b.Rule != nil {
						hb.Rule = intern(&d.Rules, ruleIndex, b.Rule)
					}
					d.Bindings[hr.Binding] = hb
				}
			}
		}
		d.Results = append(d.Results, hr)
	}
	return d, nil
}

func htmlDiags(ds []result.Diagnostic) []htmlDiag {
	out := make([]htmlDiag, 0, len(ds))
	for _, d := range ds {
		hd := htmlDiag{Pointer: ViewPointer(d)}
		hd.Atom, _ = d["atom"].(string)
		hd.Kind, _ = d["kind"].(string)
		hd.Path, _ = d["path"].(string)
		if b, ok := d["block"]; ok {
			hd.Block = compactJSON(b)
		}
		if v, ok := d["expected"]; ok {
			hd.Expected = compactJSON(v)
		}
		if v, ok := d["observed"]; ok {
			hd.Observed = compactJSON(v)
		}
		out = append(out, hd)
	}
	return out
}

// htmlPage is what the page's template (html/report.tmpl) reads: the report, and each section
// laid out for the markup, in the order it is written.
type htmlPage struct {
	R *result.Report
	// CSS and JS are the page's own style sheet and script (html/report.css and report.js),
	// embedded in the binary: trusted, and written as they are.
	CSS template.CSS
	JS  template.JS
	// Data is the drill-down's data as JSON, every <, > and & in it escaped (HTML.Output).
	Data         template.JS
	Legend       []htmlLegend
	Tasks        []htmlTask
	Censuses     []htmlCensus
	Boundaries   []htmlBoundary
	Visibility   *htmlVisibility // nil when the report has no visibility readout
	Requirements []htmlRequirement
	Violations   []htmlViolation
	Upgrades     []htmlUpgrade

	// index finds a binding's result, for the links to its cell.
	index map[bindingKey]int
	// data is the drill-down's data, a result per result in report order: its Boundaries are
	// the localizations that end at it.
	data *htmlData
	// atStage holds, per fixture, task and stage, the indices of its results in report order.
	atStage map[stageKey][]int
}

// stageKey is a fixture and task at one stage, across lanes.
type stageKey struct{ fixture, task, stage string }

// htmlLegend is an outcome of the heatmap's legend and its mark.
type htmlLegend struct{ Outcome, Mark string }

// htmlLegends is the heatmap's legend, in htmlOutcomes' order.
var htmlLegends = func() []htmlLegend {
	out := make([]htmlLegend, len(htmlOutcomes))
	for i, o := range htmlOutcomes {
		out[i] = htmlLegend{o, htmlMarks[o]}
	}
	return out
}()

// newHTMLPage lays the report out for the template; data is the drill-down's data (HTML.data).
func newHTMLPage(r *result.Report, data *htmlData) *htmlPage {
	p := &htmlPage{R: r, CSS: template.CSS(htmlCSS), JS: template.JS(htmlJS), Legend: htmlLegends,
		index: make(map[bindingKey]int, r.Len()), data: data, atStage: map[stageKey][]int{}}
	for i := range results(r) {
		res := &results(r)[i]
		p.index[keyOf(res)] = i
		k := stageKey{res.Fixture, res.Task, res.Stage}
		p.atStage[k] = append(p.atStage[k], i)
	}
	p.Tasks = p.heatmap()
	p.Censuses = p.divergences()
	p.Boundaries = p.boundaries()
	p.Visibility = htmlVisibilityOf(r)
	p.Requirements, p.Violations = p.gate()
	p.Upgrades = p.upgrades()
	return p
}

// htmlLink is a link to the cell of a binding (the template's link), or its label alone when OK
// is false: the report has no such binding.
type htmlLink struct {
	OK bool
	// I is the binding's index, its cell b-<I>; Outcome colours the link.
	I       int
	Outcome string
	Label   string
}

// link is the link to the cell of a binding, labelled label.
func (p *htmlPage) link(k bindingKey, label string) htmlLink {
	i, ok := p.index[k]
	if !ok {
		return htmlLink{Label: label}
	}
	return htmlLink{OK: true, I: i, Outcome: results(p.R)[i].Outcome, Label: label}
}

// groups lists the heatmap's column groups, sorted by lane, version and configuration, each with
// every stage any of its bindings is at, in pipeline order.
func (p *htmlPage) groups() []laneGroup {
	type gk struct{ lane, version, configuration string }
	idx := map[gk]int{}
	var out []laneGroup
	stages := map[gk]map[string]bool{}
	for i := range results(p.R) {
		res := &results(p.R)[i]
		k := gk{res.Lane, res.LaneVersion, res.Configuration}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, laneGroup{Lane: k.lane, Version: k.version, Configuration: k.configuration})
			stages[k] = map[string]bool{}
		}
		if res.Origin == "reconstructed" {
			out[j].Reconstructed = true
		}
		stages[k][res.Stage] = true
	}
	for i := range out {
		g := &out[i]
		for st := range stages[gk{g.Lane, g.Version, g.Configuration}] {
			g.Stages = append(g.Stages, st)
		}
		sort.Slice(g.Stages, func(a, b int) bool {
			ra, rb := stageRank(g.Stages[a]), stageRank(g.Stages[b])
			if ra != rb {
				return ra < rb
			}
			return g.Stages[a] < g.Stages[b]
		})
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Lane != y.Lane {
			return x.Lane < y.Lane
		}
		if x.Version != y.Version {
			return result.LessVersion(x.Version, y.Version)
		}
		return x.Configuration < y.Configuration
	})
	return out
}

// htmlTask is one task's heatmap: its fixtures by the column groups it has bindings in.
type htmlTask struct {
	Task string
	// Roles and Compartments are the task's, joined by "/".
	Roles, Compartments   string
	Bindings, Pass, Unmet int
	Groups                []laneGroup
	Rows                  []htmlRow
}

// htmlRow is a fixture's row of a task's heatmap, a cell per group and stage.
type htmlRow struct {
	ID, Fixture string
	Cells       []htmlCell
}

// htmlCell is a heatmap cell, a binding's or an empty one. The heatmap has a cell per
// binding, most of the page, and each action of a template costs a reflective call or two (the
// action's function and html/template's escaper), so a cell's attributes are made here, all in
// one (htmlAttrs), and its mark too: written an action per attribute, as the rest of the page is,
// the page took three times as long to write as the Fprintf markup it replaced.
type htmlCell struct {
	// Attrs are the cell's attributes: id b-<index>, its classes (its column's, outcome, gate
	// outline and boundary wedge), data-i <index>, data-outcome, and a title naming the binding,
	// its outcome and the boundaries that end at it. An empty cell has its classes only, and no
	// mark.
	Attrs template.HTMLAttr
	// Mark is the outcome's glyph.
	Mark template.HTML
}

// heatmap lays out a heatmap per task, tasks by name, fixtures sorted.
func (p *htmlPage) heatmap() []htmlTask {
	r := p.R
	groups := p.groups()
	byTask := map[string][]int{}
	for i := range results(r) {
		byTask[results(r)[i].Task] = append(byTask[results(r)[i].Task], i)
	}
	var tasks []htmlTask
	for _, task := range sortedKeys(byTask) {
		idxs := byTask[task]
		type ck struct{ fixture, group, stage string }
		cells := make(map[ck]int, len(idxs))
		inGroup := map[string]bool{}
		var fixtures []string
		seen := map[string]bool{}
		roles, comps := map[string]bool{}, map[string]bool{}
		t := htmlTask{Task: task, Bindings: len(idxs)}
		for _, i := range idxs {
			res := &results(r)[i]
			g := laneGroup{Lane: res.Lane, Version: res.LaneVersion, Configuration: res.Configuration}.Label()
			cells[ck{res.Fixture, g, res.Stage}] = i
			inGroup[g] = true
			if !seen[res.Fixture] {
				seen[res.Fixture] = true
				fixtures = append(fixtures, res.Fixture)
			}
			roles[res.Role] = true
			comps[res.Compartment] = true
			switch res.Outcome {
			case result.Pass:
				t.Pass++
			case result.Unmet:
				t.Unmet++
			}
		}
		sort.Strings(fixtures)
		for _, g := range groups {
			if inGroup[g.Label()] {
				t.Groups = append(t.Groups, g)
			}
		}
		t.Roles, t.Compartments = strings.Join(sortedKeys(roles), "/"), strings.Join(sortedKeys(comps), "/")
		columns := 0
		for _, g := range t.Groups {
			columns += len(g.Stages)
		}
		for _, f := range fixtures {
			row := htmlRow{ID: "row-" + task + "-" + f, Fixture: f, Cells: make([]htmlCell, 0, columns)}
			for _, g := range t.Groups {
				label := g.Label()
				for j, st := range g.Stages {
					cls := "c"
					if j == 0 {
						cls += " g0"
					}
					i, ok := cells[ck{f, label, st}]
					if !ok {
						row.Cells = append(row.Cells, htmlCell{Attrs: htmlAttr("class", cls+" none")})
						continue
					}
					row.Cells = append(row.Cells, p.cell(i, cls))
				}
			}
			t.Rows = append(t.Rows, row)
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// cell is the heatmap cell of result i, in a column of class cls.
func (p *htmlPage) cell(i int, cls string) htmlCell {
	res := &results(p.R)[i]
	cls += " o-" + res.Outcome
	title := fmt.Sprintf("%s %s %s %s %s %s: %s", res.Task, res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, res.Outcome)
	if res.Required {
		cls += " req"
		title += " (required)"
	}
	if b := p.data.Results[i].Boundaries; len(b) > 0 {
		cls += " bnd"
		title += "; " + strings.Join(b, "; ")
	}
	index := strconv.Itoa(i)
	return htmlCell{Attrs: htmlAttrs("id", "b-"+index, "class", cls, "data-i", index, "data-outcome", res.Outcome, "title", title),
		Mark: htmlText(htmlMarks[res.Outcome])}
}

// htmlCensus is a divergence census: its counts and its lists.
type htmlCensus struct {
	ID, Label string
	D         result.Divergences
	// ByFamily and LeaveOneOut are the census's counts as text, "" when it has none.
	ByFamily, LeaveOneOut string
	Lists                 []htmlDivList
}

// htmlDivList is one list of a census (unique, guard, reported apart), left out when empty.
type htmlDivList struct {
	Name string
	Rows []htmlDivRow
}

// htmlDivRow is a divergence and its manifestations, a stage each.
type htmlDivRow struct {
	D      result.Divergence
	Stages []htmlManifestation
}

// htmlManifestation is one stage of a divergence: the unmet lanes there, each a link to its
// cell, the number of passing lanes and the indices of both (IDs), which "show" outlines.
type htmlManifestation struct {
	Stage, Task string
	Unmet       []htmlLink
	Pass        int
	IDs         string
}

// divergences lays out the divergence censuses: all lanes, and the captured lanes first when a
// lane is reconstructed.
func (p *htmlPage) divergences() []htmlCensus {
	r := p.R
	type census struct {
		id, label string
		d         result.Divergences
		captured  bool
	}
	censuses := []census{{"div-all", "All lanes", r.Divergences, false}}
	if rl := ReconstructedLanes(r); len(rl) > 0 {
		censuses = []census{{"div-captured", "Captured lanes only (no reconstructed carrier)", r.CapturedDivergences, true},
			{"div-all", "All lanes, the reconstructed " + strings.Join(rl, ", ") + " included", r.Divergences, false}}
	}
	out := make([]htmlCensus, 0, len(censuses))
	for _, c := range censuses {
		d := c.d
		hc := htmlCensus{ID: c.id, Label: c.label, D: d, ByFamily: familyCounts(d, asIs), LeaveOneOut: leaveOneOut(d, asIs)}
		for _, list := range []struct {
			name string
			ds   []result.Divergence
		}{{"unique", d.Unique}, {"guard", d.Guard}, {"reported apart", d.Apart}} {
			if len(list.ds) == 0 {
				continue
			}
			hl := htmlDivList{Name: list.name}
			for _, dv := range list.ds {
				row := htmlDivRow{D: dv}
				for _, st := range dv.Stages {
					row.Stages = append(row.Stages, p.manifestation(dv, st, c.captured))
				}
				hl.Rows = append(hl.Rows, row)
			}
			hc.Lists = append(hc.Lists, hl)
		}
		out = append(out, hc)
	}
	return out
}

// manifestation is one stage of a divergence, the reconstructed lanes left out when capturedOnly.
func (p *htmlPage) manifestation(dv result.Divergence, stage string, capturedOnly bool) htmlManifestation {
	m := htmlManifestation{Stage: stage, Task: dv.Task}
	var ids []string
	for _, i := range p.atStage[stageKey{dv.Fixture, dv.Task, stage}] {
		res := &results(p.R)[i]
		if capturedOnly && res.Origin == "reconstructed" {
			continue
		}
		switch res.Outcome {
		case result.Unmet:
			m.Unmet = append(m.Unmet, htmlLink{OK: true, I: i, Outcome: result.Unmet, Label: res.Lane + " " + res.LaneVersion + " " + res.Configuration})
			ids = append(ids, strconv.Itoa(i))
		case result.Pass:
			m.Pass++
			ids = append(ids, strconv.Itoa(i))
		}
	}
	m.IDs = strings.Join(ids, " ")
	return m
}

// htmlBoundary is a localization, its stages linked to their cells (the source stage W0 has none).
type htmlBoundary struct {
	L        result.Localization
	Lane     string
	From, To htmlLink
}

// boundaries lays out the localizations.
func (p *htmlPage) boundaries() []htmlBoundary {
	out := make([]htmlBoundary, 0, len(p.R.Localizations))
	for _, l := range p.R.Localizations {
		at := func(stage string) bindingKey {
			return bindingKey{result.Position{Fixture: l.Fixture, Lane: l.Lane, LaneVersion: l.LaneVersion, Configuration: l.Configuration, Stage: stage}, l.Task}
		}
		b := htmlBoundary{L: l, Lane: l.Lane + " " + l.LaneVersion + " " + l.Configuration, From: htmlLink{Label: l.From}, To: p.link(at(l.To), l.To)}
		if l.From != "W0" {
			b.From = p.link(at(l.From), l.From)
		}
		out = append(out, b)
	}
	return out
}

// htmlVisibility is the visibility readout: a row per lane, version and configuration, a column
// per stage holding the group's Summary, its title each fixture's channels (visibilityChannels),
// and the fixtures of the row's first group with their shape (visibilityFixtures).
type htmlVisibility struct {
	Policy string
	Stages []string
	Rows   []htmlVisRow
}

// htmlVisRow is a lane, version and configuration of the visibility readout.
type htmlVisRow struct {
	Label    string
	Cells    []htmlVisCell
	Fixtures string
}

// htmlVisCell is a stage of a visibility row; OK is false when the row has no group there.
type htmlVisCell struct {
	OK                bool
	Channels, Summary string
}

// htmlVisibilityOf lays out the report's visibility readout, nil when it has none.
func htmlVisibilityOf(r *result.Report) *htmlVisibility {
	if len(r.Visibility) == 0 {
		return nil
	}
	v := &htmlVisibility{Policy: r.VisibilityPolicy, Stages: visibilityStages(r.Visibility)}
	for _, row := range visibilityRows(r.Visibility, asIs) {
		hr := htmlVisRow{Label: row.label, Fixtures: visibilityFixtures(row.groups[0].Fixtures, asIs)}
		for _, st := range v.Stages {
			g, ok := row.at(st)
			if !ok {
				hr.Cells = append(hr.Cells, htmlVisCell{})
				continue
			}
			hr.Cells = append(hr.Cells, htmlVisCell{OK: true, Channels: visibilityChannels(g.Fixtures), Summary: g.Summary()})
		}
		v.Rows = append(v.Rows, hr)
	}
	return v
}

// htmlRequirement is a requirement of the gate and its note: why it gated nothing, if it did not.
type htmlRequirement struct {
	Q    result.RequirementResult
	Note string
}

// htmlViolation is a violation of the gate, linked to its cell, with its atoms and first record.
type htmlViolation struct {
	V             *result.Violation
	Link          htmlLink
	Atoms, Record string
}

// gate lays out the gate's requirements and violations.
func (p *htmlPage) gate() ([]htmlRequirement, []htmlViolation) {
	g := &p.R.Gate
	reqs := make([]htmlRequirement, 0, len(g.Requirements))
	for _, q := range g.Requirements {
		note := q.Unmatched
		if q.OutOfScope {
			note = strings.TrimSpace(note + " (out of the run's scope)")
		}
		reqs = append(reqs, htmlRequirement{Q: q, Note: note})
	}
	viols := make([]htmlViolation, 0, len(g.Violations))
	for i := range g.Violations {
		v := &g.Violations[i]
		k := bindingKey{result.Position{Fixture: v.Fixture, Lane: v.Lane, LaneVersion: v.LaneVersion, Configuration: v.Configuration, Stage: v.Stage}, v.Task}
		label := fmt.Sprintf("%s %s · %s %s %s · %s", v.Task, v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage)
		viols = append(viols, htmlViolation{V: v, Link: p.link(k, label), Atoms: strings.Join(Atoms(v.Diagnostics), ", "), Record: RecordAt(v.Records)})
	}
	return reqs, viols
}

// htmlUpgrade is a lane's upgrade from one version to the next and the bindings it changed.
type htmlUpgrade struct {
	U       result.Upgrade
	Changes []htmlChange
}

// htmlChange is a binding an upgrade changed: its outcome before and after, each linked to its
// cell, and the atoms of its diagnostics before and after.
type htmlChange struct {
	C                       result.Change
	Before, After           htmlLink
	AtomsBefore, AtomsAfter string
}

// upgrades lays out the upgrades.
func (p *htmlPage) upgrades() []htmlUpgrade {
	out := make([]htmlUpgrade, 0, len(p.R.Upgrades))
	for _, u := range p.R.Upgrades {
		hu := htmlUpgrade{U: u}
		for _, c := range u.Each() {
			at := func(version string) bindingKey {
				return bindingKey{result.Position{Fixture: c.Fixture, Lane: u.Lane, LaneVersion: version, Configuration: u.Configuration, Stage: c.Stage}, c.Task}
			}
			hu.Changes = append(hu.Changes, htmlChange{C: c, Before: p.link(at(u.From), c.Before), After: p.link(at(u.To), c.After),
				AtomsBefore: strings.Join(Atoms(c.DiagnosticsBefore), ", "), AtomsAfter: strings.Join(Atoms(c.DiagnosticsAfter), ", ")})
		}
		out = append(out, hu)
	}
	return out
}

// results is a report's results as the list HTML.Output made of them.
func results(r *result.Report) result.ResultList {
	if l, ok := r.Results.(result.ResultList); ok {
		return l
	}
	return nil
}
