package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/contractcheck/contractcheck/internal/result"
)

// htmlData is what the page's script reads: the whole report in a compact form, every string
// once in a table (S) and everything else numbers indexing it, so that the page stays small
// at a hundred thousand bindings. The script builds the heatmaps, the boundaries, the upgrades'
// changes and a binding's drill-down from it when they are opened; nothing of them is written
// as markup. Absent is -1 throughout. The same report gives the same data: every table is
// filled in report order.
type htmlData struct {
	// S is the string table.
	S []string `json:"s"`
	// Stages orders the stages (S indexes): the pipeline's, then the others by name.
	Stages []int `json:"stages"`
	// Tasks are the tasks (S indexes) by name, in the order the heatmaps show them.
	Tasks []int `json:"tasks"`
	// Groups are the lanes at a version and configuration, sorted by lane, version
	// (result.LessVersion) and configuration: [lane, version, configuration, reconstructed 0|1].
	Groups [][4]int `json:"groups"`
	// Fixtures are sorted by id: [id, suite, family, source view].
	Fixtures [][4]int `json:"fixtures"`
	// Results are the bindings in report order, each laid out as the r* constants say, its
	// records' [file, line, repetition] triples last.
	Results [][]int `json:"results"`
	// Shapes are what many results share, interned: [task, origin, compartment, role,
	// repetitions, required 0|1, requiredBy (Lists), binding (Bindings)].
	Shapes [][8]int `json:"shapes"`
	// Lists holds the interned lists: a result's requiredBy (S indexes), its diagnostics
	// (Diags indexes), a variant's repetitions, a binding's basis (Basis indexes).
	Lists [][]int `json:"lists"`
	// Diags are the distinct diagnostics: [atom, kind, path, view pointer, block, expected,
	// observed], values as JSON text with their digits.
	Diags [][7]int `json:"diags"`
	// Variants are an unstable result's readings: [result, repetitions (Lists), outcome,
	// readout, diagnostics (Lists)].
	Variants [][5]int `json:"variants"`
	// Views holds each distinct view and binding rule as a tree: a leaf is an S index holding
	// the value as JSON text (a number with the digits it was written with), an array
	// [0, element…], an object [1, key, value, key, value…] with its keys (S indexes) sorted.
	Views []any `json:"views"`
	// Bindings are the lane stages' compartment bindings the results were read through: [lane,
	// stage, compartment, exposure, sharedWith, doc, rule (Views), unbound, basis (Lists)].
	Bindings [][9]int `json:"bindings"`
	// Basis are the bindings' bases: [rule, file, function, version].
	Basis [][4]int `json:"basis"`
	// Loc are the localizations in report order: [group, fixture id, task, from, to, kind,
	// result at to, result at from].
	Loc [][8]int `json:"loc"`
	// Upgrades are [lane, configuration, from, to, first change (Changes), changes].
	Upgrades [][6]int `json:"upgrades"`
	// Changes are the upgrades' changes: [fixture id, task, stage, before, after, result before,
	// result after, atoms before, atoms after].
	Changes [][9]int `json:"changes"`
	// NoViews says why the views are not shown, when they are not.
	NoViews string `json:"noViews,omitempty"`
}

// The members of a result in htmlData.Results.
const (
	rGroup = iota
	rFixture
	rStage
	rOutcome
	rShape // Shapes index
	rReadout
	rDiags // Lists index
	rError
	rObserved // Views index
	rRecords  // the first record's file; the records follow as triples
)

// The members of a shape in htmlData.Shapes.
const (
	sTask = iota
	sOrigin
	sCompartment
	sRole
	sRepetitions
	sRequired // 1 when the profile's gate requires the binding, else 0
	sRequiredBy
	sBinding
)

// htmlEncoder fills an htmlData, interning every string, list, diagnostic and view.
type htmlEncoder struct {
	d        *htmlData
	strs     map[string]int
	lists    map[string]int
	diags    map[[7]int]int
	views    map[string]int
	bindings map[string]int
	basis    map[[4]int]int
	groups   map[[3]string]int
	fixtures map[[3]string]int
	shapes   map[[8]int]int
}

// intern is v's index in *table, found by its key k in index, or appended to the table and
// recorded under k when the table does not hold it yet: every table of htmlData is filled so.
func intern[K comparable, V any](index map[K]int, table *[]V, k K, v V) int {
	if i, ok := index[k]; ok {
		return i
	}
	index[k] = len(*table)
	*table = append(*table, v)
	return len(*table) - 1
}

func (e *htmlEncoder) str(s string) int { return intern(e.strs, &e.d.S, s, s) }

// opt is s's index, -1 for "".
func (e *htmlEncoder) opt(s string) int {
	if s == "" {
		return -1
	}
	return e.str(s)
}

func (e *htmlEncoder) list(l []int) int {
	if len(l) == 0 {
		return -1
	}
	return intern(e.lists, &e.d.Lists, fmt.Sprint(l), l)
}

// value is a JSON value's index as JSON text, -1 when absent.
func (e *htmlEncoder) value(d result.Diagnostic, k string) int {
	v, ok := d[k]
	if !ok {
		return -1
	}
	return e.str(compactJSON(v))
}

// diagList interns diagnostics, each with its view pointer (ViewPointer).
func (e *htmlEncoder) diagList(ds []result.Diagnostic) int {
	l := make([]int, 0, len(ds))
	for _, d := range ds {
		atom, _ := d["atom"].(string)
		kind, _ := d["kind"].(string)
		path, _ := d["path"].(string)
		k := [7]int{e.str(atom), e.str(kind), e.str(path), e.str(ViewPointer(d)), e.value(d, "block"), e.value(d, "expected"), e.value(d, "observed")}
		l = append(l, intern(e.diags, &e.d.Diags, k, k))
	}
	return e.list(l)
}

// view interns a view (or a binding rule) as a tree.
func (e *htmlEncoder) view(v any) int {
	key := compactJSON(v)
	if i, ok := e.views[key]; ok {
		return i
	}
	e.views[key] = len(e.d.Views)
	e.d.Views = append(e.d.Views, e.tree(v))
	return len(e.d.Views) - 1
}

// tree lays a JSON-shaped value out as htmlData.Views holds it; a value of another type is a
// leaf, as jsonLines has it.
func (e *htmlEncoder) tree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, 1, 1+2*len(keys))
		out[0] = 1
		for _, k := range keys {
			out = append(out, e.str(k), e.tree(x[k]))
		}
		return out
	case []any:
		out := make([]any, 1, 1+len(x))
		out[0] = 0
		for _, el := range x {
			out = append(out, e.tree(el))
		}
		return out
	}
	return e.str(compactJSON(v))
}

func (e *htmlEncoder) group(lane, version, configuration string) int {
	k := [3]string{lane, version, configuration}
	if i, ok := e.groups[k]; ok {
		return i
	}
	e.groups[k] = len(e.d.Groups)
	e.d.Groups = append(e.d.Groups, [4]int{e.str(lane), e.str(version), e.str(configuration), 0})
	return len(e.d.Groups) - 1
}

// data encodes the report: the groups and fixtures first, sorted, then every result in report
// order, the localizations and the upgrades; the views through h.Views when it is set.
func (h HTML) data(r *result.Report) (*htmlData, error) {
	d := &htmlData{S: []string{}, Stages: []int{}, Tasks: []int{}, Groups: [][4]int{}, Fixtures: [][4]int{}, Results: make([][]int, 0, r.Len()),
		Shapes: [][8]int{}, Lists: [][]int{}, Diags: [][7]int{}, Variants: [][5]int{}, Views: []any{}, Bindings: [][9]int{}, Basis: [][4]int{},
		Loc: [][8]int{}, Upgrades: [][6]int{}, Changes: [][9]int{}}
	e := &htmlEncoder{d: d, strs: map[string]int{}, lists: map[string]int{}, diags: map[[7]int]int{}, views: map[string]int{},
		bindings: map[string]int{}, basis: map[[4]int]int{}, groups: map[[3]string]int{}, fixtures: map[[3]string]int{}, shapes: map[[8]int]int{}}
	list := results(r)

	// The groups, fixtures, stages and tasks, sorted, so that their indexes are the page's order.
	type gk = [3]string
	groupSet, fixtureSet, stageSet, taskSet := map[gk]bool{}, map[gk]bool{}, map[string]bool{}, map[string]bool{}
	for i := range list {
		res := &list[i]
		groupSet[gk{res.Lane, res.LaneVersion, res.Configuration}] = true
		fixtureSet[gk{res.Fixture, res.Suite, res.Family}] = true
		stageSet[res.Stage] = true
		taskSet[res.Task] = true
	}
	for _, l := range r.EachLocalization() {
		groupSet[gk{l.Lane, l.LaneVersion, l.Configuration}] = true
		stageSet[l.From], stageSet[l.To] = true, true
	}
	groups := make([]gk, 0, len(groupSet))
	for g := range groupSet {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(a, b int) bool {
		x, y := groups[a], groups[b]
		if x[0] != y[0] {
			return x[0] < y[0]
		}
		if x[1] != y[1] {
			return result.LessVersion(x[1], y[1])
		}
		return x[2] < y[2]
	})
	for _, g := range groups {
		e.group(g[0], g[1], g[2])
	}
	fixtures := make([]gk, 0, len(fixtureSet))
	for f := range fixtureSet {
		fixtures = append(fixtures, f)
	}
	sort.Slice(fixtures, func(a, b int) bool {
		x, y := fixtures[a], fixtures[b]
		for k := range x {
			if x[k] != y[k] {
				return x[k] < y[k]
			}
		}
		return false
	})
	for _, f := range fixtures {
		e.fixtures[f] = len(d.Fixtures)
		d.Fixtures = append(d.Fixtures, [4]int{e.str(f[0]), e.str(f[1]), e.str(f[2]), -1})
	}
	for _, st := range orderedStages(stageSet) {
		d.Stages = append(d.Stages, e.str(st))
	}
	for _, t := range slices.Sorted(maps.Keys(taskSet)) {
		d.Tasks = append(d.Tasks, e.str(t))
	}

	if h.Views == nil {
		d.NoViews = "This report was written without the check's instrument, so the canonical views and the binding rules are not shown (contractcheck check --format html writes them)."
	}
	sourceDone := map[int]bool{}
	for i := range list {
		res := &list[i]
		g := e.groups[gk{res.Lane, res.LaneVersion, res.Configuration}]
		if res.Origin == "reconstructed" {
			d.Groups[g][3] = 1
		}
		fx := e.fixtures[gk{res.Fixture, res.Suite, res.Family}]
		row := make([]int, rRecords, rRecords+3*len(res.Records))
		row[rGroup], row[rFixture], row[rStage], row[rOutcome] = g, fx, e.str(res.Stage), e.str(res.Outcome)
		row[rReadout], row[rObserved] = -1, -1
		if len(res.Readout) > 0 {
			row[rReadout] = e.str(compactJSON(res.Readout))
		}
		row[rDiags], row[rError] = e.diagList(res.Diagnostics), e.opt(res.Error)
		for _, rec := range res.Records {
			row = append(row, e.str(rec.File), rec.Line, rec.Repetition)
		}
		for _, v := range res.Variants {
			readout := -1
			if len(v.Readout) > 0 {
				readout = e.str(compactJSON(v.Readout))
			}
			d.Variants = append(d.Variants, [5]int{i, e.list(v.Repetitions), e.str(v.Outcome), readout, e.diagList(v.Diagnostics)})
		}
		shape := [8]int{sTask: e.str(res.Task), sOrigin: e.str(res.Origin), sCompartment: e.str(res.Compartment), sRole: e.str(res.Role),
			sRepetitions: res.Repetitions, sBinding: -1}
		if res.Required {
			shape[sRequired] = 1
		}
		req := make([]int, 0, len(res.RequiredBy))
		for _, q := range res.RequiredBy {
			req = append(req, e.str(q))
		}
		shape[sRequiredBy] = e.list(req)
		if h.Views != nil {
			if !sourceDone[fx] {
				sourceDone[fx] = true
				v, err := h.Views.SourceView(res.Fixture)
				if err != nil {
					return nil, fmt.Errorf("html report: source view of %s: %w", res.Fixture, err)
				}
				d.Fixtures[fx][3] = e.view(v)
			}
			v, ok, err := h.Views.ObservedView(res)
			if err != nil {
				return nil, fmt.Errorf("html report: observed view of %s %s %s %s %s %s: %w", res.Task, res.Fixture, res.Lane, res.LaneVersion, res.Configuration, res.Stage, err)
			}
			if ok {
				row[rObserved] = e.view(v)
			}
			shape[sBinding] = e.binding(h.Views, res)
		}
		row[rShape] = intern(e.shapes, &d.Shapes, shape, shape)
		d.Results = append(d.Results, row)
	}

	index := resultIndex(list)
	at := func(k bindingKey) int {
		if i, ok := index[k]; ok {
			return i
		}
		return -1
	}
	for _, l := range r.EachLocalization() {
		pos := result.Position{Fixture: l.Fixture, Lane: l.Lane, LaneVersion: l.LaneVersion, Configuration: l.Configuration}
		to, from := pos, pos
		to.Stage, from.Stage = l.To, l.From
		d.Loc = append(d.Loc, [8]int{e.groups[gk{l.Lane, l.LaneVersion, l.Configuration}], e.str(l.Fixture), e.str(l.Task),
			e.str(l.From), e.str(l.To), e.str(l.Kind), at(bindingKey{to, l.Task}), at(bindingKey{from, l.Task})})
	}
	for _, u := range r.Upgrades {
		d.Upgrades = append(d.Upgrades, [6]int{e.str(u.Lane), e.str(u.Configuration), e.str(u.From), e.str(u.To), len(d.Changes), u.Count()})
		for _, c := range u.Each() {
			pos := result.Position{Fixture: c.Fixture, Lane: u.Lane, Configuration: u.Configuration, Stage: c.Stage}
			before, after := pos, pos
			before.LaneVersion, after.LaneVersion = u.From, u.To
			d.Changes = append(d.Changes, [9]int{e.str(c.Fixture), e.str(c.Task), e.str(c.Stage), e.str(c.Before), e.str(c.After),
				at(bindingKey{before, c.Task}), at(bindingKey{after, c.Task}), e.opt(joinAtoms(c.DiagnosticsBefore)), e.opt(joinAtoms(c.DiagnosticsAfter))})
		}
	}
	return d, nil
}

// binding interns the binding a result was read through, -1 when the provider has none.
func (e *htmlEncoder) binding(views result.Views, res *result.Result) int {
	key := res.Lane + "\x00" + res.Stage + "\x00" + res.Compartment
	if i, ok := e.bindings[key]; ok {
		return i
	}
	b, ok := views.Binding(res.Lane, res.Stage, res.Compartment)
	if !ok {
		e.bindings[key] = -1
		return -1
	}
	rule := -1
	if b.Rule != nil {
		rule = e.view(b.Rule)
	}
	basis := make([]int, 0, len(b.Basis))
	for _, x := range b.Basis {
		k := [4]int{e.str(x.Rule), e.str(x.File), e.str(x.Function), e.str(x.Version)}
		basis = append(basis, intern(e.basis, &e.d.Basis, k, k))
	}
	e.bindings[key] = len(e.d.Bindings)
	e.d.Bindings = append(e.d.Bindings, [9]int{e.str(res.Lane), e.str(res.Stage), e.str(res.Compartment), e.str(b.Exposure),
		e.opt(b.SharedWith), e.opt(b.Doc), rule, e.opt(b.Unbound), e.list(basis)})
	return len(e.d.Bindings) - 1
}

// orderedStages is the stages in pipeline order (htmlStages), the others after by name.
func orderedStages(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool {
		ra, rb := stageRank(out[a]), stageRank(out[b])
		if ra != rb {
			return ra < rb
		}
		return out[a] < out[b]
	})
	return out
}

// resultIndex finds a binding's index in report order.
func resultIndex(list result.ResultList) map[bindingKey]int {
	index := make(map[bindingKey]int, len(list))
	for i := range list {
		index[keyOf(&list[i])] = i
	}
	return index
}
