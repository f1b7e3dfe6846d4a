package instrument

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// checkScope refuses a filter entry that names nothing the model knows (or a glob that matches
// nothing), the way a requirement's selectors are checked: a misspelt --lane would otherwise
// filter everything out.
func checkScope(m *contract.Model, s result.Scope) error {
	var lanes, versions, configurations, suites, fixtures, tasks []string
	for _, id := range contract.SortedKeys(m.Lanes) {
		lanes = append(lanes, id)
		l := m.Lanes[id]
		versions = appendNew(versions, l.Versions...)
		configurations = appendNew(configurations, contract.SortedKeys(l.Configurations)...)
	}
	for _, id := range contract.SortedKeys(m.Fixtures) {
		fixtures = append(fixtures, id)
		suites = appendNew(suites, m.Fixtures[id].Suite)
	}
	tasks = contract.SortedKeys(m.Tasks)
	var errs []string
	for _, f := range []struct {
		flag           string
		entries, known []string
	}{{"--lane", s.Lanes, lanes}, {"--version", s.Versions, versions}, {"--configuration", s.Configurations, configurations},
		{"--stage", s.Stages, contract.Stages[1:]}, {"--suite", s.Suites, suites}, {"--fixture", s.Fixtures, fixtures}, {"--task", s.Tasks, tasks}} {
		for _, e := range f.entries {
			if !contract.AnyMatch(e, f.known) {
				errs = append(errs, fmt.Sprintf("%s %q matches nothing the contracts define (known: %s)", f.flag, e, strings.Join(f.known, ", ")))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

func appendNew(list []string, vals ...string) []string {
	for _, v := range vals {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// within reports whether v is selected by one of a scope's selector lists: an empty list
// restricts nothing.
func within(entries []string, v string) bool {
	return len(entries) == 0 || contract.Matches(entries, v)
}

// OutsideScope reports whether a position known only in part is outside the run's scope: some
// member it names ("" is unknown) is one the scope leaves out (a fixture's suite is judged when
// the contracts know the fixture). A position that names nothing is never outside.
func (in *Instrument) OutsideScope(pos result.Position) bool {
	s := in.opts.Scope
	out := func(entries []string, v string) bool { return v != "" && !within(entries, v) }
	suite := ""
	if f, ok := in.Model.Fixtures[pos.Fixture]; ok {
		suite = f.Suite
	}
	return out(s.Lanes, pos.Lane) || out(s.Versions, pos.LaneVersion) || out(s.Configurations, pos.Configuration) ||
		out(s.Stages, pos.Stage) || out(s.Fixtures, pos.Fixture) || out(s.Suites, suite)
}

// inScope reports whether a record's position is within the run's scope; tasks are filtered
// where they are evaluated.
func (in *Instrument) inScope(rec *Record) bool {
	s := in.opts.Scope
	return within(s.Lanes, rec.Lane) && within(s.Versions, rec.LaneVersion) && within(s.Configurations, rec.Configuration) &&
		within(s.Stages, rec.Stage) && within(s.Fixtures, rec.Fixture) && within(s.Suites, in.Model.Fixtures[rec.Fixture].Suite)
}

// tasksInScope narrows a fixture's tasks to the scope's.
func (in *Instrument) tasksInScope(tasks []string) []string {
	if len(in.opts.Scope.Tasks) == 0 {
		return tasks
	}
	var out []string
	for _, t := range tasks {
		if within(in.opts.Scope.Tasks, t) {
			out = append(out, t)
		}
	}
	return out
}
