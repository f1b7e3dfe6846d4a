package instrument

import (
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// InScope reports whether a position is within the run's scope (a record at it would be read).
// The position's fixture must be one the model knows.
func (in *Instrument) InScope(pos result.Position) bool {
	return in.inScope(&Record{Fixture: pos.Fixture, Lane: pos.Lane, LaneVersion: pos.LaneVersion, Configuration: pos.Configuration, Stage: pos.Stage})
}

// Tasks are the tasks Evaluate gives a binding for a record of fixture at stage: the profile's
// tasks of the fixture within the run's scope that are evaluated at the stage, in the fixture's
// order.
func (in *Instrument) Tasks(fixture, stage string) []string {
	var out []string
	for _, t := range in.tasksInScope(in.Model.ProfileTasks(in.Profile, in.Model.Fixtures[fixture])) {
		if in.Model.Tasks[t].AtStage(stage) {
			out = append(out, t)
		}
	}
	return out
}

// Matrix hands emit every position a captured carrier can be judged at within the run's scope,
// with the tasks Evaluate would give it a binding for: every fixture with a source, lane, declared
// version, configuration and stage the lane observes, in sorted order (fixture, lane, version,
// configuration, stage in pipeline order). A stage a lane does not observe (not_observable,
// not_applicable) has no carrier, so no decision: it is left out. It stops when emit returns false.
func (in *Instrument) Matrix(emit func(pos result.Position, tasks []string) bool) {
	for _, fixture := range contract.SortedKeys(in.Sources) {
		if _, ok := in.Model.Fixtures[fixture]; !ok {
			continue
		}
		for _, lane := range contract.SortedKeys(in.Model.Lanes) {
			l := in.Model.Lanes[lane]
			versions := slices.Sorted(slices.Values(l.Versions))
			for _, version := range versions {
				for _, conf := range contract.SortedKeys(l.Configurations) {
					for _, stage := range contract.Stages[1:] {
						sd, ok := l.Stages[stage]
						if !ok || sd.Exposure != contract.Observed {
							continue
						}
						pos := result.Position{Fixture: fixture, Lane: lane, LaneVersion: version, Configuration: conf, Stage: stage}
						if !in.InScope(pos) {
							continue
						}
						tasks := in.Tasks(fixture, stage)
						if len(tasks) == 0 {
							continue
						}
						if !emit(pos, tasks) {
							return
						}
					}
				}
			}
		}
	}
}
