package contract

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/bindpath"
	"github.com/contractcheck/contractcheck/internal/result"
)

// locate records where profiles' requirements, catalog entries and lane stages' carrier schemas
// are written, for the messages that name them after loading (a requirement that selects nothing,
// a fixture no task applies to, a carrier schema that is missing).
func (m *Model) locate(r *referrer) {
	for id, p := range m.Profiles {
		for i := range p.Require {
			p.Require[i].Name = fmt.Sprintf("profiles.%s.require[%d]", id, i)
			p.Require[i].Pos = r.where("profiles", id, "require", i)
		}
		for i := range p.FixedBy {
			p.FixedBy[i].Name = fmt.Sprintf("profiles.%s.fixedBy[%d]", id, i)
			p.FixedBy[i].Pos = r.where("profiles", id, "fixedBy", i)
		}
	}
	for id, f := range m.Fixtures {
		f.Pos = r.where("fixtures", id)
		m.Fixtures[id] = f
	}
	for id, t := range m.Tasks {
		t.PolicyPos = r.where("tasks", id, "policy")
		m.Tasks[id] = t
	}
	for id, rv := range m.Revisions {
		rv.SourcePos = r.where("revisions", id, "source")
		m.Revisions[id] = rv
	}
	for id, l := range m.Lanes {
		for st, sd := range l.Stages {
			if sd.Carrier != "" {
				sd.CarrierPos = r.where("lanes", id, "stages", st, "carrier")
				l.Stages[st] = sd
			}
		}
	}
}

// prefixPos is a position string as a message prefix, "file:line:col: ", or "" for no position.
func prefixPos(pos string) string {
	if pos == "" {
		return ""
	}
	return pos + ": "
}

// problems collects cross-reference errors, each prefixed with the position of the value at fault.
type problems struct {
	r    *referrer
	errs []string
}

func (p *problems) add(at []any, format string, args ...any) {
	p.errs = append(p.errs, p.r.at(at...)+fmt.Sprintf(format, args...))
}

// check verifies the references between parts of the model that CUE cannot: each error points at
// the referring value in the file that wrote it.
func (m *Model) check(r *referrer) error {
	p := &problems{r: r}
	m.mergeExtraVersions(p)
	m.checkNames(p)
	m.checkTasks(p)
	m.checkFixtures(p)
	m.checkLanes(p)
	m.checkPaths(p)
	m.checkProfiles(p)
	m.checkReported(p)
	if len(p.errs) > 0 {
		return &Error{Msg: strings.Join(p.errs, "\n")}
	}
	return nil
}

// The patterns of names, as contracts/model.cue declares them (#Name, #TaskID and the fixtures'
// key pattern). A CUE pattern constraint applies to the keys that match it and lets any other key
// through, so the keys of the model's maps are held to them here.
var (
	namePattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	taskIDPattern  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	fixturePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	// revisionPattern is #Revision's (contracts/model.cue), the grammar of internal/schema's
	// revision directory names: a date, a date with a suffix, or a draft name (internal/schema
	// says which exist).
	revisionPattern = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2}(-[A-Za-z0-9]+([.-][A-Za-z0-9]+)*)?|DRAFT-[A-Za-z0-9]+([.-][A-Za-z0-9]+)*)$`)
)

// checkNames refuses a lane, configuration, family, profile, task or fixture whose name is not
// one its pattern allows: names are identifiers, written into reports, records and generated
// files, never free text.
func (m *Model) checkNames(p *problems) {
	check := func(kind, rule string, re *regexp.Regexp, names []string, at ...any) {
		for _, n := range names {
			if !re.MatchString(n) {
				p.add(append(slices.Clone(at), n), "%s %q: %s", kind, n, rule)
			}
		}
	}
	const name = "a name is a lower-case letter or digit, then lower-case letters, digits, '.', '_' or '-'"
	check("task", "a task id is a letter, then letters, digits, '_' or '-'", taskIDPattern, SortedKeys(m.Tasks), "tasks")
	check("fixture", "a fixture id is a letter or digit, then letters, digits, '_' or '-'", fixturePattern, SortedKeys(m.Fixtures), "fixtures")
	check("family", name, namePattern, SortedKeys(m.Families), "families")
	check("profile", name, namePattern, SortedKeys(m.Profiles), "profiles")
	check("lane", name, namePattern, SortedKeys(m.Lanes), "lanes")
	check("revision", "a revision is a date YYYY-MM-DD, a date with a suffix YYYY-MM-DD-<suffix> or a draft name DRAFT-<name> (a suffix or name: letters and digits in runs joined by '.' or '-')", revisionPattern, SortedKeys(m.Revisions), "revisions")
	for _, id := range SortedKeys(m.Lanes) {
		check("configuration", name, namePattern, SortedKeys(m.Lanes[id].Configurations), "lanes", id, "configurations")
	}
}

func (m *Model) checkTasks(p *problems) {
	for _, id := range SortedKeys(m.Tasks) {
		t := m.Tasks[id]
		checkNames(p, []any{"tasks", id, "atoms"}, "atom", t.Atoms, m.Atoms)
		for i, name := range t.Sources {
			bound := false
			for _, r := range m.Revisions {
				_, ok := r.Compartments[name]
				bound = bound || ok
			}
			if !bound {
				p.add([]any{"tasks", id, "sources", i}, "tasks.%s.sources: no revision binds the source compartment %q (revisions: \"<revision>\": compartments: %q: {…})", id, name, name)
			}
		}
		if s := t.AppliesTo; s != nil {
			at := []any{"tasks", id, "appliesTo"}
			m.checkEntries(p, at, "fixtures", s.Fixtures, SortedKeys(m.Fixtures))
			m.checkEntries(p, at, "suites", s.Suites, m.suites())
			m.checkEntries(p, at, "families", s.Families, SortedKeys(m.Families))
		}
	}
}

func (m *Model) checkFixtures(p *problems) {
	for _, id := range SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		if _, ok := m.Families[f.Family]; !ok {
			p.add([]any{"fixtures", id, "family"}, "fixtures.%s.family: unknown family %q", id, f.Family)
		}
		if _, ok := m.Revisions[f.Revision]; !ok {
			p.add([]any{"fixtures", id, "revision"}, "fixtures.%s: %v", id, m.NoBinding(f.Revision))
		}
		checkNames(p, []any{"fixtures", id, "tasks"}, "task", f.Tasks, m.Tasks)
	}
}

func (m *Model) checkLanes(p *problems) {
	comps := m.Compartments()
	for _, id := range SortedKeys(m.Lanes) {
		l := m.Lanes[id]
		if len(l.Configurations) == 0 {
			p.add([]any{"lanes", id}, "lanes.%s: no configurations", id)
		}
		for _, st := range SortedKeys(l.Stages) {
			sd := l.Stages[st]
			at := []any{"lanes", id, "stages", st}
			if sd.SharedWith != "" {
				other, ok := l.Stages[sd.SharedWith]
				if !ok || StageIndex(sd.SharedWith) >= StageIndex(st) || other.Exposure != Observed {
					p.add(append(at, "sharedWith"), "lanes.%s.stages.%s: sharedWith %q must name an earlier observed stage", id, st, sd.SharedWith)
				}
			}
			for _, c := range SortedKeys(sd.Compartments) {
				if !slices.Contains(comps, c) {
					p.add(append(at, "compartments", c), "lanes.%s.stages.%s: unknown compartment %q (the tasks read %s)", id, st, c, strings.Join(comps, ", "))
				}
			}
			for _, c := range SortedKeys(sd.Unbound) {
				switch {
				case !slices.Contains(comps, c):
					p.add(append(at, "unbound", c), "lanes.%s.stages.%s.unbound: unknown compartment %q (the tasks read %s)", id, st, c, strings.Join(comps, ", "))
				case hasKey(sd.Compartments, c):
					p.add(append(at, "unbound", c), "lanes.%s.stages.%s: compartment %q is both bound and unbound", id, st, c)
				}
			}
			if sd.Exposure != Observed {
				if len(sd.Compartments) > 0 || len(sd.Unbound) > 0 || sd.Carrier != "" {
					p.add(at, "lanes.%s.stages.%s: a %s stage binds nothing (no compartments, unbound or carrier)", id, st, sd.Exposure)
				}
				continue
			}
			if sd.Carrier == "" {
				p.add(at, "lanes.%s.stages.%s: an observed stage names no carrier schema (carrier: \"carriers/<name>.schema.json\"): its carriers could not be told from unrelated JSON", id, st)
			}
			var missing []string
			for _, c := range comps {
				if !hasKey(sd.Compartments, c) && !hasKey(sd.Unbound, c) {
					missing = append(missing, c)
				}
			}
			if len(missing) > 0 {
				p.add(append(at, "compartments"), "lanes.%s.stages.%s: compartments %s are read by a task but neither bound nor listed in unbound with a reason", id, st, strings.Join(missing, ", "))
			}
		}
	}
}

func (m *Model) checkProfiles(p *problems) {
	for _, id := range SortedKeys(m.Profiles) {
		pr := m.Profiles[id]
		checkNames(p, []any{"profiles", id, "tasks"}, "task", pr.Tasks, m.Tasks)
		if w := pr.WithholdPrivateMeta; w != nil {
			for i, st := range w.Stages {
				if StageIndex(st) < 1 {
					p.add([]any{"profiles", id, "withholdPrivateMeta", "stages", i}, "profiles.%s.withholdPrivateMeta: unknown stage %q", id, st)
				}
			}
		}
		if c := pr.Cohort; c != nil {
			at := []any{"profiles", id, "cohort"}
			m.CheckLaneEntries(c.Lanes, func(i int, msg string) {
				p.add(append(append([]any{}, at...), "lanes", i), "profiles.%s.cohort.lanes: %s", id, msg)
			})
			m.checkSelectors(p, at, c.Scope, cohortLanes(c.Lanes))
		}
		for i, req := range pr.Require {
			at := []any{"profiles", id, "require", i}
			m.checkEntries(p, at, "lanes", req.Lanes, SortedKeys(m.Lanes))
			m.checkSelectors(p, at, req.Scope, req.Lanes)
		}
	}
}

// checkSelectors checks the selectors of a cohort or a requirement against what the model
// defines, the lanes aside (each reads its lanes entries its own way): the versions and
// configurations of the lanes they name, stages, suites, fixtures and tasks.
func (m *Model) checkSelectors(p *problems, at []any, s result.Scope, lanes []string) {
	m.checkEntries(p, at, "versions", s.Versions, m.versions(lanes))
	m.checkEntries(p, at, "configurations", s.Configurations, m.configurations(lanes))
	m.checkEntries(p, at, "stages", s.Stages, Stages[1:])
	m.checkEntries(p, at, "suites", s.Suites, m.suites())
	m.checkEntries(p, at, "fixtures", s.Fixtures, SortedKeys(m.Fixtures))
	m.checkEntries(p, at, "tasks", s.Tasks, SortedKeys(m.Tasks))
}

// checkNames requires every name of a list (at) to be a key of known: "tasks.T1.atoms: unknown
// atom \"x\"".
func checkNames[V any](p *problems, at []any, noun string, names []string, known map[string]V) {
	for i, n := range names {
		if _, ok := known[n]; !ok {
			p.add(append(append([]any{}, at...), i), "%s: unknown %s %q", joined(at), noun, n)
		}
	}
}

// checkEntries requires every selector entry to name a known value, or, for a glob, to match one:
// a misspelt version would otherwise select nothing.
func (m *Model) checkEntries(p *problems, at []any, field string, entries, known []string) {
	for i, e := range entries {
		if e == "*" {
			continue
		}
		if IsGlob(e) {
			if !AnyMatch(e, known) {
				p.add(append(append([]any{}, at...), field, i), "%s: %s glob %q matches none of %s", joined(at), field, e, list(known))
			}
			continue
		}
		if !slices.Contains(known, e) {
			p.add(append(append([]any{}, at...), field, i), "%s: unknown %s %q (known: %s)", joined(at), strings.TrimSuffix(field, "s"), e, list(known))
		}
	}
}

// AnyMatch reports whether a selector entry (a name or a glob, as Matches reads it) matches
// any of the known names.
func AnyMatch(glob string, known []string) bool {
	for _, k := range known {
		if Matches([]string{glob}, k) {
			return true
		}
	}
	return false
}

func joined(at []any) string {
	var b strings.Builder
	for i, x := range at {
		switch x := x.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", x)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, x)
		}
	}
	return b.String()
}

func list(known []string) string {
	if len(known) == 0 {
		return "none"
	}
	return strings.Join(known, ", ")
}

// suites lists the suites of the catalog, sorted.
func (m *Model) suites() []string {
	var out []string
	for _, f := range m.Fixtures {
		out = append(out, f.Suite)
	}
	return sortedSet(out)
}

// sortedSet is the distinct strings of s, sorted (s is sorted in place).
func sortedSet(s []string) []string {
	sortStrings(s)
	return slices.Compact(s)
}

// versions lists the versions of the lanes a selector names, sorted.
func (m *Model) versions(lanes []string) []string {
	var out []string
	for _, id := range SortedKeys(m.Lanes) {
		if Matches(lanes, id) {
			out = append(out, m.Lanes[id].Versions...)
		}
	}
	return sortedSet(out)
}

// cohortLanes is the lane parts of a cohort's lanes entries (every lane when there are none).
func cohortLanes(entries []string) []string {
	if len(entries) == 0 {
		return []string{"*"}
	}
	var out []string
	for _, e := range entries {
		if l, _, _, err := SplitLaneEntry(e); err == nil {
			out = append(out, l)
		}
	}
	return out
}

// configurations lists the configurations of the lanes a selector names, sorted.
func (m *Model) configurations(lanes []string) []string {
	var out []string
	for _, id := range SortedKeys(m.Lanes) {
		if Matches(lanes, id) {
			for c := range m.Lanes[id].Configurations {
				out = append(out, c)
			}
		}
	}
	return sortedSet(out)
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// checkPaths parses every path of every compartment binding (the revisions' source bindings and
// the lanes' stages) as a binding path (bindpath): a selector that does not parse is an error at
// the path, before any source or record is read.
func (m *Model) checkPaths(p *problems) {
	m.EachPath(func(at []any, path string) {
		if _, err := bindpath.Parse(path); err != nil {
			p.add(at, "%s: %v", joined(at), err)
		}
	})
}

// EachPath calls visit with every path of every compartment binding of the model (the revisions'
// source bindings, then the lanes' stages, in name order) and where it is written, as a model
// path ("revisions", id, "source", "structured", "path").
func (m *Model) EachPath(visit func(at []any, path string)) {
	for _, id := range SortedKeys(m.Revisions) {
		eachCompartmentPath(m.Revisions[id].Source, []any{"revisions", id, "source"}, visit)
		for _, c := range SortedKeys(m.Revisions[id].Compartments) {
			eachCompartmentPath(m.Revisions[id].Compartments[c], []any{"revisions", id, "compartments", c}, visit)
		}
	}
	for _, id := range SortedKeys(m.Lanes) {
		l := m.Lanes[id]
		for _, st := range SortedKeys(l.Stages) {
			for _, c := range SortedKeys(l.Stages[st].Compartments) {
				eachCompartmentPath(l.Stages[st].Compartments[c], []any{"lanes", id, "stages", st, "compartments", c}, visit)
			}
		}
	}
}

// eachCompartmentPath visits every path of one compartment binding.
func eachCompartmentPath(c Compartment, at []any, visit func(at []any, path string)) {
	in := func(more ...any) []any { return append(slices.Clone(at), more...) }
	visit(in("root"), c.Root)
	field := func(f *Field, where []any) {
		if f == nil {
			return
		}
		visit(append(slices.Clone(where), "path"), f.Path)
		if f.Inner != nil {
			visit(append(slices.Clone(where), "inner"), *f.Inner)
		}
	}
	var kinds func(ks map[string]BlockMapping, where []any)
	kinds = func(ks map[string]BlockMapping, where []any) {
		for _, typ := range SortedKeys(ks) {
			k := ks[typ]
			for _, atom := range SortedKeys(k.Fields) {
				f := k.Fields[atom]
				field(&f, append(slices.Clone(where), typ, "fields", atom))
			}
			if e := k.Embedded; e != nil {
				ew := append(slices.Clone(where), typ, "embedded")
				visit(append(slices.Clone(ew), "path"), e.Path)
				visit(append(slices.Clone(ew), "discriminator"), e.Discriminator)
				kinds(e.Kinds, append(slices.Clone(ew), "kinds"))
			}
		}
	}
	if c.Content != nil {
		visit(in("content", "path"), c.Content.Path)
		visit(in("content", "discriminator"), c.Content.Discriminator)
		kinds(c.Content.Kinds, in("content", "kinds"))
	}
	field(c.Structured, in("structured"))
	field(c.Raised, in("raised"))
	field(c.Meta, in("meta"))
	if c.IsError != nil {
		visit(in("isError", "path"), c.IsError.Path)
	}
}

// Selects reports whether a path of the binding selects an array element by value (bindpath):
// the tools that turn a binding into pointers of their own (reproduce, the OPA bundle's
// projector) cannot read such a binding and say so.
func (c Compartment) Selects() bool {
	sel := false
	eachCompartmentPath(c, nil, func(_ []any, path string) {
		if p, err := bindpath.Parse(path); err == nil && p.HasSelector() {
			sel = true
		}
	})
	return sel
}
