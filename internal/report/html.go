package report

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
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

type htmlResult struct {
	Fixture       string        `json:"fixture"`
	Suite         string        `json:"suite"`
	Family        string        `json:"family"`
	Lane          string        `json:"lane"`
	LaneVersion   string        `json:"laneVersion"`
	Configuration string        `json:"configuration"`
	Stage         string        `json:"stage"`
	Task          string        `json:"task"`
	Role          string        `json:"role"`
	Compartment   string        `json:"compartment"`
	Outcome       string        `json:"outcome"`
	Origin        string        `json:"origin"`
	Repetitions   int           `json:"repetitions"`
	Required      bool          `json:"required"`
	RequiredBy    []string      `json:"requiredBy,omitempty"`
	Readout       string        `json:"readout,omitempty"`
	Diagnostics   []htmlDiag    `json:"diagnostics,omitempty"`
	Error         string        `json:"error,omitempty"`
	Variants      []htmlVariant `json:"variants,omitempty"`
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

type htmlVariant struct {
	Repetitions []int      `json:"repetitions"`
	Outcome     string     `json:"outcome"`
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
	lane, version, configuration string
	reconstructed                bool
	stages                       []string
}

func (g laneGroup) label() string { return g.lane + " " + g.version + " " + g.configuration }

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
	bw := bufio.NewWriter(w)
	p := &htmlPage{w: bw, r: r, data: data, index: map[bindingKey]int{}, atStage: map[stageKey][]int{}}
	for i := range results(r) {
		res := &results(r)[i]
		p.index[keyOf(res)] = i
		k := stageKey{res.Fixture, res.Task, res.Stage}
		p.atStage[k] = append(p.atStage[k], i)
	}
	p.write(data)
	if p.err != nil {
		return p.err
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
		hr := htmlResult{Fixture: res.Fixture, Suite: res.Suite, Family: res.Family, Lane: res.Lane, LaneVersion: res.LaneVersion,
			Configuration: res.Configuration, Stage: res.Stage, Task: res.Task, Role: res.Role, Compartment: res.Compartment,
			Outcome: res.Outcome, Origin: res.Origin, Repetitions: res.Repetitions, Required: res.Required, RequiredBy: res.RequiredBy,
			Diagnostics: htmlDiags(res.Diagnostics), Error: res.Error, Observed: -1,
			Binding: res.Lane + "|" + res.Stage + "|" + res.Compartment, Boundaries: bounds[keyOf(res)]}
		if len(res.Readout) > 0 {
			hr.Readout = compactJSON(res.Readout)
		}
		for _, v := range res.Variants {
			hv := htmlVariant{Repetitions: v.Repetitions, Outcome: v.Outcome, Diagnostics: htmlDiags(v.Diagnostics)}
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

// htmlPage writes the page; the first write error sticks and ends the output.
type htmlPage struct {
	w     *bufio.Writer
	r     *result.Report
	index map[bindingKey]int
	// data is the drill-down's data, a result per result in report order: its Boundaries are
	// the localizations that end at it.
	data *htmlData
	// atStage holds, per fixture, task and stage, the indices of its results in report order.
	atStage map[stageKey][]int
	err     error
}

// stageKey is a fixture and task at one stage, across lanes.
type stageKey struct{ fixture, task, stage string }

func (p *htmlPage) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *htmlPage) raw(s string) {
	if p.err == nil {
		_, p.err = p.w.WriteString(s)
	}
}

// esc writes a string of the data as HTML text or attribute: escape.HTML (markup characters and
// line breaks as references).
var esc = escape.HTML

func (p *htmlPage) write(data *htmlData) {
	r := p.r
	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.printf("<title>contractcheck: profile %s, %s</title>\n", esc(r.Profile), esc(r.Gate.Verdict))
	p.printf("<style>\n%s</style>\n</head>\n<body>\n", htmlCSS)
	p.header()
	p.raw("<main>\n")
	p.heatmap()
	p.divergences()
	p.boundaries()
	p.visibility()
	p.gate()
	p.upgrades()
	p.raw("</main>\n")
	p.raw("<aside id=\"drill\" hidden aria-live=\"polite\"><button type=\"button\" id=\"drill-close\" aria-label=\"close\">×</button><div id=\"drill-body\"></div></aside>\n")
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true) // <, > and & as \u escapes: nothing in the data can end the script
	if err := enc.Encode(data); err != nil {
		p.err = fmt.Errorf("html report: %w", err)
		return
	}
	p.printf("<script type=\"application/json\" id=\"cc-data\">%s</script>\n", strings.TrimSuffix(buf.String(), "\n"))
	p.printf("<script>\n%s</script>\n</body>\n</html>\n", htmlJS)
}

func (p *htmlPage) header() {
	r := p.r
	s := r.Summary
	p.raw("<header>\n")
	p.printf("<h1>contractcheck report</h1>\n<p class=\"meta\">profile <code>%s</code> · null policy <code>%s</code> · report version %d", esc(r.Profile), esc(r.NullPolicy), r.ReportVersion)
	if sc := r.ScopeText(); sc != "" {
		p.printf(" · restricted to %s", esc(sc))
	}
	p.raw("</p>\n")
	p.printf("<p class=\"verdict v-%s\" id=\"verdict\">gate: <strong>%s</strong> · %d bindings: %d pass, %d unmet, %d execution_failed, %d not_reached, %d not_applicable, %d not_observable, %d unstable · %d violations</p>\n",
		esc(r.Gate.Verdict), esc(r.Gate.Verdict), r.Len(), s.Pass, s.Unmet, s.ExecutionFailed, s.NotReached, s.NotApplicable, s.NotObservable, s.Unstable, len(r.Gate.Violations))
	p.raw("<nav><a href=\"#heatmap\">heatmap</a> <a href=\"#divergences\">divergences</a> <a href=\"#boundaries\">boundaries</a> ")
	if len(r.Visibility) > 0 {
		p.raw("<a href=\"#visibility\">what reaches the model</a> ")
	}
	p.raw("<a href=\"#gate\">gate</a> <a href=\"#upgrades\">upgrades</a></nav>\n")
	p.raw("</header>\n")
}

// groups lists the heatmap's column groups, sorted by lane, version and configuration, each with
// every stage any of its bindings is at, in pipeline order.
func (p *htmlPage) groups() []laneGroup {
	type gk struct{ lane, version, configuration string }
	idx := map[gk]int{}
	var out []laneGroup
	stages := map[gk]map[string]bool{}
	for i := range results(p.r) {
		res := &results(p.r)[i]
		k := gk{res.Lane, res.LaneVersion, res.Configuration}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, laneGroup{lane: k.lane, version: k.version, configuration: k.configuration})
			stages[k] = map[string]bool{}
		}
		if res.Origin == "reconstructed" {
			out[j].reconstructed = true
		}
		stages[k][res.Stage] = true
	}
	for i := range out {
		g := &out[i]
		for st := range stages[gk{g.lane, g.version, g.configuration}] {
			g.stages = append(g.stages, st)
		}
		sort.Slice(g.stages, func(a, b int) bool {
			ra, rb := stageRank(g.stages[a]), stageRank(g.stages[b])
			if ra != rb {
				return ra < rb
			}
			return g.stages[a] < g.stages[b]
		})
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.lane != y.lane {
			return x.lane < y.lane
		}
		if x.version != y.version {
			return x.version < y.version
		}
		return x.configuration < y.configuration
	})
	return out
}

func (p *htmlPage) heatmap() {
	r := p.r
	p.raw("<section id=\"heatmap\">\n<h2>Localization heatmap</h2>\n")
	p.raw("<p class=\"help\">Per task: fixtures by lane · version · configuration · stage. A thick rule separates lanes, a thin one stages; ")
	p.raw("a cell outlined in black is required by the profile's gate; a red wedge marks the binding where a localized boundary ends (the distinction passed before it and is unmet there). Click a cell for its drill-down.</p>\n")
	p.raw("<ul class=\"legend\">")
	for _, o := range htmlOutcomes {
		p.printf("<li><span class=\"c o-%s\">%s</span> %s</li>", o, htmlMarks[o], o)
	}
	p.raw("<li><span class=\"c req\"></span> required</li><li><span class=\"c bnd\"></span> boundary</li></ul>\n")
	groups := p.groups()
	byTask := map[string][]int{}
	for i := range results(r) {
		byTask[results(r)[i].Task] = append(byTask[results(r)[i].Task], i)
	}
	for _, task := range sortedKeys(byTask) {
		idxs := byTask[task]
		type ck struct{ fixture, group, stage string }
		cells := map[ck]int{}
		inGroup := map[string]bool{}
		var fixtures []string
		seen := map[string]bool{}
		roles, comps := map[string]bool{}, map[string]bool{}
		var pass, unmet int
		for _, i := range idxs {
			res := &results(r)[i]
			g := laneGroup{lane: res.Lane, version: res.LaneVersion, configuration: res.Configuration}.label()
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
				pass++
			case result.Unmet:
				unmet++
			}
		}
		sort.Strings(fixtures)
		var gs []laneGroup
		for _, g := range groups {
			if inGroup[g.label()] {
				gs = append(gs, g)
			}
		}
		p.printf("<div class=\"task\" id=\"task-%s\">\n<h3>%s <small>role %s · compartment %s · %d bindings: %d pass, %d unmet</small></h3>\n",
			esc(task), esc(task), esc(strings.Join(sortedKeys(roles), "/")), esc(strings.Join(sortedKeys(comps), "/")), len(idxs), pass, unmet)
		p.printf("<div class=\"scroll\"><table class=\"hm\" data-task=\"%s\">\n<thead><tr><th rowspan=\"2\" class=\"fx\">fixture</th>", esc(task))
		for _, g := range gs {
			rec := ""
			if g.reconstructed {
				rec = " <em title=\"carriers reconstructed from the framework's source, not captured\">(reconstructed)</em>"
			}
			p.printf("<th colspan=\"%d\" class=\"grp g0\" title=\"%s\">%s<small>%s</small><small>%s</small>%s</th>", len(g.stages), esc(g.label()), esc(g.lane), esc(g.version), esc(g.configuration), rec)
		}
		p.raw("</tr>\n<tr>")
		for _, g := range gs {
			for j, st := range g.stages {
				cls := "st"
				if j == 0 {
					cls += " g0"
				}
				p.printf("<th class=\"%s\">%s</th>", cls, esc(st))
			}
		}
		p.raw("</tr></thead>\n<tbody>\n")
		for _, f := range fixtures {
			p.printf("<tr id=\"row-%s-%s\"><th class=\"fx\">%s</th>", esc(task), esc(f), esc(f))
			for _, g := range gs {
				for j, st := range g.stages {
					cls := "c"
					if j == 0 {
						cls += " g0"
					}
					i, ok := cells[ck{f, g.label(), st}]
					if !ok {
						p.printf("<td class=\"%s none\"></td>", cls)
						continue
					}
					p.cell(i, cls)
				}
			}
			p.raw("</tr>\n")
		}
		p.raw("</tbody></table></div>\n</div>\n")
	}
	p.raw("</section>\n")
}

// cell writes the heatmap cell of result i.
func (p *htmlPage) cell(i int, cls string) {
	res := &results(p.r)[i]
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
	p.printf("<td id=\"b-%d\" class=\"%s\" data-i=\"%d\" data-outcome=\"%s\" title=\"%s\">%s</td>",
		i, cls, i, esc(res.Outcome), esc(title), htmlMarks[res.Outcome])
}

// link writes a link to the cell of a binding, or the plain label when the report has no such
// binding.
func (p *htmlPage) link(k bindingKey, label string) string {
	i, ok := p.index[k]
	if !ok {
		return esc(label)
	}
	return fmt.Sprintf("<a href=\"#b-%d\" class=\"cl o-%s\">%s</a>", i, esc(results(p.r)[i].Outcome), esc(label))
}

func (p *htmlPage) divergences() {
	r := p.r
	p.raw("<section id=\"divergences\">\n<h2>Divergences</h2>\n")
	p.raw("<p class=\"help\">A divergence is a fixture and task where one lane passes and another is unmet at the same stage; each stage where it does is a manifestation. Each lane named links to its cell; “show” outlines them all in the heatmap.</p>\n")
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
	for _, c := range censuses {
		d := c.d
		p.printf("<div id=\"%s\">\n<h3>%s: %d unique, %d manifestations</h3>\n", c.id, esc(c.label), len(d.Unique), d.Manifestations)
		if len(d.ByFamily) > 0 {
			p.printf("<p>By family: %s.</p>\n", esc(familyCounts(d, asIs)))
		}
		if len(d.LeaveOneOut) > 0 {
			p.printf("<p>Leave one lane out: %s.</p>\n", esc(leaveOneOut(d, asIs)))
		}
		for _, list := range []struct {
			name string
			ds   []result.Divergence
		}{{"unique", d.Unique}, {"guard", d.Guard}, {"reported apart", d.Apart}} {
			if len(list.ds) == 0 {
				continue
			}
			p.printf("<table class=\"list\"><caption>%s (%d)</caption>\n<thead><tr><th>fixture</th><th>task</th><th>family</th><th>manifestations: the unmet lanes at each stage</th></tr></thead><tbody>\n", esc(list.name), len(list.ds))
			for _, dv := range list.ds {
				p.printf("<tr><td>%s</td><td>%s</td><td>%s</td><td>", esc(dv.Fixture), esc(dv.Task), esc(dv.Family))
				for _, st := range dv.Stages {
					p.manifestation(dv, st, c.captured)
				}
				p.raw("</td></tr>\n")
			}
			p.raw("</tbody></table>\n")
		}
		p.raw("</div>\n")
	}
	p.raw("</section>\n")
}

// manifestation writes one stage of a divergence: the unmet lanes there, each a link to its cell,
// the number of passing lanes and a link that outlines them all.
func (p *htmlPage) manifestation(dv result.Divergence, stage string, capturedOnly bool) {
	var unmet []string
	pass := 0
	var ids []string
	for _, i := range p.atStage[stageKey{dv.Fixture, dv.Task, stage}] {
		res := &results(p.r)[i]
		if capturedOnly && res.Origin == "reconstructed" {
			continue
		}
		switch res.Outcome {
		case result.Unmet:
			unmet = append(unmet, fmt.Sprintf("<a href=\"#b-%d\" class=\"cl o-unmet\">%s</a>", i, esc(res.Lane+" "+res.LaneVersion+" "+res.Configuration)))
			ids = append(ids, strconv.Itoa(i))
		case result.Pass:
			pass++
			ids = append(ids, strconv.Itoa(i))
		}
	}
	p.printf("<div class=\"man\"><strong>%s</strong> unmet: %s; %d pass <a href=\"#task-%s\" class=\"show\" data-hl=\"%s\">show</a></div>",
		esc(stage), strings.Join(unmet, ", "), pass, esc(dv.Task), strings.Join(ids, " "))
}

func (p *htmlPage) boundaries() {
	r := p.r
	p.printf("<section id=\"boundaries\">\n<h2>Boundaries (%d)</h2>\n", len(r.Localizations))
	p.raw("<p class=\"help\">Where a required distinction stopped being recoverable: <em>transformation</em> between two observed stages, <em>interval</em> across stages that could not be observed, <em>compartment</em> where the stage's carrier has no place for it.</p>\n")
	if len(r.Localizations) == 0 {
		p.raw("<p>None.</p>\n</section>\n")
		return
	}
	p.raw("<table class=\"list\"><thead><tr><th>fixture</th><th>task</th><th>lane</th><th>from</th><th>to</th><th>kind</th></tr></thead><tbody>\n")
	for _, l := range r.Localizations {
		from := esc(l.From)
		if l.From != "W0" {
			from = p.link(bindingKey{result.Position{Fixture: l.Fixture, Lane: l.Lane, LaneVersion: l.LaneVersion, Configuration: l.Configuration, Stage: l.From}, l.Task}, l.From)
		}
		to := p.link(bindingKey{result.Position{Fixture: l.Fixture, Lane: l.Lane, LaneVersion: l.LaneVersion, Configuration: l.Configuration, Stage: l.To}, l.Task}, l.To)
		p.printf("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			esc(l.Fixture), esc(l.Task), esc(l.Lane+" "+l.LaneVersion+" "+l.Configuration), from, to, esc(l.Kind))
	}
	p.raw("</tbody></table>\n</section>\n")
}

// visibility writes the visibility readout, when the report has one: a table with a row per
// lane, version and configuration, a column per stage holding the group's Summary, its title
// each fixture's channels (visibilityChannels), and the fixtures of the row's first group with
// their shape (fixtureShape).
func (p *htmlPage) visibility() {
	r := p.r
	if len(r.Visibility) == 0 {
		return
	}
	p.raw("<section id=\"visibility\">\n<h2>What reaches the model</h2>\n")
	p.raw("<p class=\"help\">For each lane, version and configuration: which of a tool result's channels (content, structuredContent, the isError marker) reach the model at each model-facing stage, as a category")
	if r.VisibilityPolicy != "" {
		p.printf(" judged by the policy <code>%s</code>", esc(r.VisibilityPolicy))
	}
	p.raw("; docs/visibility.md defines the categories. Hover a category for each fixture's channels. The fixtures are the first stage's, each with what of it reaches the model.</p>\n")
	stages := visibilityStages(r.Visibility)
	p.raw("<table class=\"list\"><thead><tr><th>lane version configuration</th>")
	for _, st := range stages {
		p.printf("<th>%s</th>", esc(st))
	}
	p.raw("<th>fixtures</th></tr></thead><tbody>\n")
	for _, row := range visibilityRows(r.Visibility, esc) {
		p.printf("<tr><td>%s</td>", row.label)
		for _, st := range stages {
			v, ok := row.at(st)
			if !ok {
				p.raw("<td>–</td>")
				continue
			}
			p.printf("<td title=\"%s\">%s</td>", esc(visibilityChannels(v.Fixtures)), esc(v.Summary()))
		}
		p.printf("<td>%s</td></tr>\n", visibilityFixtures(row.groups[0].Fixtures, esc))
	}
	p.raw("</tbody></table>\n</section>\n")
}

// gate writes the gate's verdict, its requirements and its violations, each linking to its cell.
func (p *htmlPage) gate() {
	g := p.r.Gate
	p.printf("<section id=\"gate\">\n<h2>Gate: %s</h2>\n", esc(g.Verdict))
	p.raw("<table class=\"list\"><thead><tr><th>requirement</th><th>doc</th><th>where</th><th>selected</th><th>exempt</th><th>violations</th><th>note</th></tr></thead><tbody>\n")
	for _, q := range g.Requirements {
		note := q.Unmatched
		if q.OutOfScope {
			note = strings.TrimSpace(note + " (out of the run's scope)")
		}
		p.printf("<tr><td><code>%s</code></td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>\n",
			esc(q.Name), esc(q.Doc), esc(q.Position), q.Selected, q.Exempt, q.Violations, esc(note))
	}
	p.raw("</tbody></table>\n")
	if len(g.Violations) > 0 {
		p.printf("<table class=\"list\"><caption>violations (%d)</caption><thead><tr><th>binding</th><th>outcome</th><th>requirement</th><th>atoms</th><th>record</th></tr></thead><tbody>\n", len(g.Violations))
		for _, v := range g.Violations {
			k := bindingKey{result.Position{Fixture: v.Fixture, Lane: v.Lane, LaneVersion: v.LaneVersion, Configuration: v.Configuration, Stage: v.Stage}, v.Task}
			label := fmt.Sprintf("%s %s · %s %s %s · %s", v.Task, v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage)
			p.printf("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				p.link(k, label), esc(v.Outcome), esc(v.RequirementName), esc(strings.Join(Atoms(v.Diagnostics), ", ")), esc(RecordAt(v.Records)))
		}
		p.raw("</tbody></table>\n")
	}
	p.raw("</section>\n")
}

func (p *htmlPage) upgrades() {
	r := p.r
	p.raw("<section id=\"upgrades\">\n<h2>Upgrades</h2>\n")
	p.raw("<p class=\"help\">For each lane with more than one version: the bindings whose outcome changed from one version to the next, before and after, each linking to its cell.</p>\n")
	if len(r.Upgrades) == 0 {
		p.raw("<p>No lane has two versions in this run.</p>\n")
	}
	for _, u := range r.Upgrades {
		p.printf("<h3>%s %s → %s <small>(%s): %d bindings changed</small></h3>\n", esc(u.Lane), esc(u.From), esc(u.To), esc(u.Configuration), u.Count())
		if u.Count() == 0 {
			continue
		}
		p.printf("<table class=\"list upgrade\"><thead><tr><th>fixture</th><th>task</th><th>stage</th><th>%s (before)</th><th>%s (after)</th><th>atoms before</th><th>atoms after</th></tr></thead><tbody>\n", esc(u.From), esc(u.To))
		for _, c := range u.Each() {
			before := p.link(bindingKey{result.Position{Fixture: c.Fixture, Lane: u.Lane, LaneVersion: u.From, Configuration: u.Configuration, Stage: c.Stage}, c.Task}, c.Before)
			after := p.link(bindingKey{result.Position{Fixture: c.Fixture, Lane: u.Lane, LaneVersion: u.To, Configuration: u.Configuration, Stage: c.Stage}, c.Task}, c.After)
			p.printf("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				esc(c.Fixture), esc(c.Task), esc(c.Stage), before, after,
				esc(strings.Join(Atoms(c.DiagnosticsBefore), ", ")), esc(strings.Join(Atoms(c.DiagnosticsAfter), ", ")))
		}
		p.raw("</tbody></table>\n")
	}
	p.raw("</section>\n")
}

// results is a report's results as the list HTML.Output made of them.
func results(r *result.Report) result.ResultList {
	if l, ok := r.Results.(result.ResultList); ok {
		return l
	}
	return nil
}
