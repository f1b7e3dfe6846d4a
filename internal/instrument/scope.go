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
// filter everything out. A --lane LANE@CONFIGURATION must name a configuration of that lane.
func checkScope(m *contract.Model, s result.Scope) error {
	var versions, configurations, suites, fixtures, tasks []string
	for _, id := range contract.SortedKeys(m.Lanes) {
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
	m.CheckLaneEntries(s.Lanes, func(_ int, msg string) { errs = append(errs, "--lane "+msg) })
	for _, f := range []struct {
		flag           string
		entries, known []string
	}{{"--version", s.Versions, versions}, {"--configuration", s.Configurations, configurations},
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

// scopes are the selections a record must be within: the run's scope (its --lane, --stage, …
// flags) and the profile's cohort.
func (in *Instrument) scopes() [2]result.Scope {
	return [2]result.Scope{in.opts.Scope, in.Profile.Cohort.Selection()}
}

// OutsideScope reports whether a position known only in part is outside the run's scope or the
// profile's cohort: some member it names ("" is unknown) is one they leave out (a fixture's suite
// is judged when the contracts know the fixture). A position that names nothing is never outside.
func (in *Instrument) OutsideScope(pos result.Position) bool {
	out := func(entries []string, v string) bool { return v != "" && !within(entries, v) }
	suite := ""
	if f, ok := in.Model.Fixtures[pos.Fixture]; ok {
		suite = f.Suite
	}
	for _, s := range in.scopes() {
		lane := false
		switch {
		case pos.Lane != "" && pos.Configuration != "":
			lane = !contract.LaneSelected(s, pos.Lane, pos.Configuration)
		case pos.Lane != "":
			lane = !contract.LaneNamed(s, pos.Lane)
		case pos.Configuration != "":
			lane = !contract.ConfigurationNamed(s, pos.Configuration)
		}
		if lane || out(s.Versions, pos.LaneVersion) || out(s.Stages, pos.Stage) || out(s.Fixtures, pos.Fixture) || out(s.Suites, suite) {
			return true
		}
	}
	return false
}

// Narrowed reports whether the run's scope or the profile's cohort may leave records out: the
// records are then read envelope first (inputs.DecodeEnvelope), and the carrier of one left out is
// checked but never built. A run without either reads every record whole (inputs.DecodeRecord),
// which costs less than a scan and a decode for each.
func (in *Instrument) Narrowed() bool {
	for _, s := range in.scopes() {
		s.Tasks = nil // tasks select among a record's bindings, not records
		if !s.IsZero() {
			return true
		}
	}
	return false
}

// inScope reports whether a record's position is within the run's scope and the profile's
// cohort; tasks are filtered where they are evaluated.
func (in *Instrument) inScope(rec *Record) bool {
	for _, s := range in.scopes() {
		if !contract.LaneSelected(s, rec.Lane, rec.Configuration) || !within(s.Versions, rec.LaneVersion) ||
			!within(s.Stages, rec.Stage) || !within(s.Fixtures, rec.Fixture) || !within(s.Suites, in.Model.Fixtures[rec.Fixture].Suite) {
			return false
		}
	}
	return true
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
