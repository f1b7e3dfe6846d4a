package instrument

import "github.com/contractcheck/contractcheck/internal/result"

// InScope reports whether a position is within the run's scope (a record at it would be read).
// The position's fixture must be one the model knows.
func (in *Instrument) InScope(pos result.Position) bool {
	return in.inScope(&Record{Observation: result.Observation{Position: pos}})
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
