package check

import (
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// matrix hands emit every position a captured carrier can be judged at within the scope of in's
// run, with the tasks its Evaluate would give it a binding for (instrument.Tasks): the bindings
// decision logs are expected to hold: every fixture with a source, lane, declared
// version, configuration and stage the lane observes, in sorted order (fixture, lane, version,
// configuration, stage in pipeline order). A stage a lane does not observe (not_observable,
// not_applicable) has no carrier, so no decision: it is left out. It stops when emit returns false.
func matrix(in *instrument.Instrument, emit func(pos result.Position, tasks []string) bool) {
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
