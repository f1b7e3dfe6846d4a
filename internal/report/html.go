package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
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
	result.NotApplicable: "–", result.NotObservable: "◌", result.Ambiguous: "⇄",
}

// htmlOutcomes lists the outcomes in legend order.
var htmlOutcomes = []string{result.Pass, result.Unmet, result.Unstable, result.ExecutionFailed, result.NotReached, result.Ambiguous, result.NotObservable, result.NotApplicable}

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

// htmlPage is what the page's template (html/report.tmpl) reads: the report, and each section
// laid out for the markup, in the order it is written. The heatmaps, the boundaries' and the
// upgrades' tables and the drill-down are the script's, built from Data when they are opened.
type htmlPage struct {
	R *result.Report
	// CSS and JS are the page's own style sheet and script (html/report.css and report.js),
	// embedded in the binary: trusted, and written as they are.
	CSS template.CSS
	JS  template.JS
	// Data is the page's data as JSON, every <, > and & in it escaped (HTML.Output).
	Data         template.JS
	Legend       []htmlLegend
	Rollup       htmlRollup
	Tasks        []htmlTask
	Censuses     []htmlCensus
	Boundaries   []htmlBoundaryGroup
	Localized    int
	Visibility   *htmlVisibility // nil when the report has no visibility readout
	Requirements []htmlRequirement
	Violations   []htmlViolation
	Upgrades     []htmlUpgrade

	// index finds a binding's result, for the links to its cell.
	index map[bindingKey]int
	// data is the page's data (HTML.data).
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

// newHTMLPage lays the report out for the template; data is the page's data (HTML.data).
func newHTMLPage(r *result.Report, data *htmlData) *htmlPage {
	p := &htmlPage{R: r, CSS: template.CSS(htmlCSS), JS: template.JS(htmlJS), Legend: htmlLegends,
		index: resultIndex(results(r)), data: data, atStage: map[stageKey][]int{}, Localized: r.Localized()}
	for i := range results(r) {
		res := &results(r)[i]
		k := stageKey{res.Fixture, res.Task, res.Stage}
		p.atStage[k] = append(p.atStage[k], i)
	}
	p.Rollup = p.rollup()
	p.Tasks = p.tasks()
	p.Censuses = p.divergences()
	p.Boundaries = p.boundaryGroups()
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

// htmlTask is the head of one task's heatmap, which the script lays out in the element that
// names the task by its index in htmlData.Tasks (T).
type htmlTask struct {
	Task string
	T    int
	// Roles and Compartments are the task's, joined by "/".
	Roles, Compartments   string
	Bindings, Pass, Unmet int
}

// tasks lists the heatmaps' heads, tasks by name (htmlData.Tasks' order).
func (p *htmlPage) tasks() []htmlTask {
	byTask := map[string]*htmlTask{}
	roles, comps := map[string]map[string]bool{}, map[string]map[string]bool{}
	for i := range results(p.R) {
		res := &results(p.R)[i]
		t, ok := byTask[res.Task]
		if !ok {
			t = &htmlTask{Task: res.Task}
			byTask[res.Task] = t
			roles[res.Task], comps[res.Task] = map[string]bool{}, map[string]bool{}
		}
		t.Bindings++
		switch res.Outcome {
		case result.Pass:
			t.Pass++
		case result.Unmet:
			t.Unmet++
		}
		roles[res.Task][res.Role] = true
		comps[res.Task][res.Compartment] = true
	}
	out := make([]htmlTask, 0, len(byTask))
	for j, name := range slices.Sorted(maps.Keys(byTask)) {
		t := byTask[name]
		t.T = j
		t.Roles, t.Compartments = strings.Join(slices.Sorted(maps.Keys(roles[name])), "/"), strings.Join(slices.Sorted(maps.Keys(comps[name])), "/")
		out = append(out, *t)
	}
	return out
}

// htmlCensus is a divergence census: its counts and its lists.
type htmlCensus struct {
	ID, Label string
	D         result.Divergences
	// Counts are the census's counts by family and by origin, each labelled as what it counts;
	// LeaveOneOut is its leave-one-lane-out recount as text, "" when it has none.
	Counts      []censusCount
	LeaveOneOut string
	Lists       []htmlDivList
}

// LeaveOneOutLabel heads the census's leave-one-lane-out recount.
func (htmlCensus) LeaveOneOutLabel() string { return upperFirst(LabelLeaveOneOut) }

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
		byOrigin  bool
	}
	censuses := []census{{"div-all", "All lanes", r.Divergences, false, false}}
	if rl := ReconstructedLanes(r); len(rl) > 0 {
		censuses = []census{{"div-captured", "Captured lanes only (no reconstructed carrier)", r.CapturedDivergences, true, false},
			{"div-all", "All lanes, the reconstructed " + strings.Join(rl, ", ") + " included", r.Divergences, false, true}}
	}
	out := make([]htmlCensus, 0, len(censuses))
	for _, c := range censuses {
		d := c.d
		hc := htmlCensus{ID: c.id, Label: c.label, D: d, Counts: censusCounts(d, c.byOrigin, asIs), LeaveOneOut: leaveOneOut(d, asIs)}
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

// htmlBoundaryGroup is a lane at a version and configuration in the boundaries: how many
// localizations it has; the script lists them (with their atoms) when the group is opened. G is
// the group's index in htmlData.Groups.
type htmlBoundaryGroup struct {
	G     int
	Label string
	N     int
}

// boundaryGroups counts the localizations per group, in the groups' order.
func (p *htmlPage) boundaryGroups() []htmlBoundaryGroup {
	n := make([]int, len(p.data.Groups))
	for _, l := range p.data.Loc {
		n[l[0]]++
	}
	var out []htmlBoundaryGroup
	for g, c := range n {
		if c > 0 {
			out = append(out, htmlBoundaryGroup{G: g, Label: p.groupLabel(g), N: c})
		}
	}
	return out
}

// groupLabel is a group's lane, version and configuration.
func (p *htmlPage) groupLabel(g int) string {
	x := p.data.Groups[g]
	return p.data.S[x[0]] + " " + p.data.S[x[1]] + " " + p.data.S[x[2]]
}

// htmlVisibility is the visibility readout: a row per lane, version and configuration, a column
// per stage holding the group's Summary, its title each fixture's channels (visibilityChannels),
// and the fixtures of the row's first group with their shape (visibilityFixtures); then a warning
// for each group whose records carry nothing of what was served.
type htmlVisibility struct {
	Policy string
	Stages []string
	Rows   []htmlVisRow
	// Warnings say which groups' records carry nothing of what was served (unescaped).
	Warnings []string
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
	if r.VisibilityGroups() == 0 {
		return nil
	}
	v := &htmlVisibility{Policy: r.VisibilityPolicy, Stages: visibilityStages(r.Visibility)}
	for row := range visibilityRows(r.Visibility, asIs) {
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
	for _, g := range r.EachVisibility() {
		if g.NothingServed() {
			v.Warnings = append(v.Warnings, g.NothingServedWarning())
		}
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
		k := bindingKey{v.Position, v.Task}
		label := fmt.Sprintf("%s %s · %s %s %s · %s", v.Task, v.Fixture, v.Lane, v.LaneVersion, v.Configuration, v.Stage)
		viols = append(viols, htmlViolation{V: v, Link: p.link(k, label), Atoms: strings.Join(Atoms(v.Diagnostics), ", "), Record: RecordAt(v.Records)})
	}
	return reqs, viols
}

// htmlUpgrade is a lane's upgrade from one version to the next; the script lists the bindings
// it changed (htmlData.Upgrades[I]) when it is opened.
type htmlUpgrade struct {
	U result.Upgrade
	I int
}

// upgrades lays out the upgrades.
func (p *htmlPage) upgrades() []htmlUpgrade {
	out := make([]htmlUpgrade, 0, len(p.R.Upgrades))
	for i, u := range p.R.Upgrades {
		out = append(out, htmlUpgrade{U: u, I: i})
	}
	return out
}

// joinAtoms is the atoms of diagnostics (Atoms), joined by ", ".
func joinAtoms(ds []result.Diagnostic) string { return strings.Join(Atoms(ds), ", ") }

// results is a report's results as the list HTML.Output made of them.
func results(r *result.Report) result.ResultList {
	if l, ok := r.Results.(result.ResultList); ok {
		return l
	}
	return nil
}
