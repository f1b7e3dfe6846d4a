package contract

import "slices"

// checkReported verifies the references that the reported-loss parts of the model make: task
// stages, lanes' per-version origins, fixtures' report citations and profiles' fixedBy clauses.
// Each error points at the referring value.
func (m *Model) checkReported(p *problems) {
	for _, id := range SortedKeys(m.Tasks) {
		for i, st := range m.Tasks[id].Stages {
			if StageIndex(st) < 1 {
				p.add([]any{"tasks", id, "stages", i}, "tasks.%s.stages: unknown stage %q", id, st)
			}
		}
	}
	for _, id := range SortedKeys(m.Lanes) {
		l := m.Lanes[id]
		for _, v := range SortedKeys(l.VersionOrigins) {
			if !slices.Contains(l.Versions, v) {
				p.add([]any{"lanes", id, "versionOrigins", v}, "lanes.%s.versionOrigins: unknown version %q (known: %s)", id, v, list(l.Versions))
			}
		}
	}
	for _, id := range SortedKeys(m.Fixtures) {
		r := m.Fixtures[id].Report
		if r == nil {
			continue
		}
		at := []any{"fixtures", id, "report"}
		name := "fixtures." + id + ".report"
		lane, ok := m.Lanes[r.Lane]
		if !ok {
			p.add(append(at, "lane"), "%s: unknown lane %q (known: %s)", name, r.Lane, list(SortedKeys(m.Lanes)))
			continue
		}
		for _, side := range []struct{ field, v string }{{"buggy", r.Buggy}, {"fixed", r.Fixed}} {
			if side.v != "" && !slices.Contains(lane.Versions, side.v) {
				p.add(append(at, side.field), "%s: lane %s has no version %q (it declares %s)", name, r.Lane, side.v, list(lane.Versions))
			}
		}
		if (r.Buggy == "" || r.Fixed == "") && r.NotRun == "" {
			p.add(at, "%s: a side is not captured (buggy or fixed is empty) but notRun does not say why", name)
		}
		if _, ok := lane.Configurations[r.Configuration]; !ok {
			p.add(append(at, "configuration"), "%s: lane %s has no configuration %q", name, r.Lane, r.Configuration)
		}
		for i, st := range r.Stages {
			if sd, ok := lane.Stages[st]; !ok || sd.Exposure != Observed {
				p.add(append(at, "stages", i), "%s: lane %s does not observe stage %q", name, r.Lane, st)
			}
		}
		for i, t := range r.Tasks {
			if _, ok := m.Tasks[t]; !ok {
				p.add(append(at, "tasks", i), "%s: unknown task %q", name, t)
			}
		}
		m.checkAtoms(p, at, name, r.Atoms)
	}
	for _, id := range SortedKeys(m.Profiles) {
		for i, fb := range m.Profiles[id].FixedBy {
			at := []any{"profiles", id, "fixedBy", i}
			name := joined(at)
			lane, ok := m.Lanes[fb.Lane]
			if !ok {
				p.add(append(at, "lane"), "%s: unknown lane %q (known: %s)", name, fb.Lane, list(SortedKeys(m.Lanes)))
				continue
			}
			for _, side := range []struct{ field, v string }{{"from", fb.From}, {"to", fb.To}} {
				if !slices.Contains(lane.Versions, side.v) {
					p.add(append(at, side.field), "%s: lane %s has no version %q (it declares %s)", name, fb.Lane, side.v, list(lane.Versions))
				}
			}
			if fb.From == fb.To {
				p.add(append(at, "to"), "%s: from and to are the same version %q: a fix needs two versions", name, fb.To)
			}
			m.checkEntries(p, at, "configurations", fb.Configurations, SortedKeys(lane.Configurations))
			m.checkEntries(p, at, "stages", fb.Stages, Stages[1:])
			m.checkEntries(p, at, "fixtures", fb.Fixtures, SortedKeys(m.Fixtures))
			m.checkEntries(p, at, "tasks", fb.Tasks, SortedKeys(m.Tasks))
			m.checkAtoms(p, at, name, fb.Atoms)
		}
	}
}

// checkAtoms requires every atom named to be an atom of the model.
func (m *Model) checkAtoms(p *problems, at []any, name string, atoms []string) {
	for i, a := range atoms {
		if _, ok := m.Atoms[a]; !ok {
			p.add(append(append([]any{}, at...), "atoms", i), "%s: unknown atom %q", name, a)
		}
	}
}
