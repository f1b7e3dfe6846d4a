package census

import (
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/report"
)

// localize bounds every change: a pass followed by an unmet at a later stage of the same lane,
// version, configuration and task. W0, the source, always passes. The kind says what lies between:
// an unobservable stage makes it an interval; two readouts of one shared carrier are a compartment
// boundary; otherwise it is a transformation between successive objects. Results arrive sorted by
// position, so each series is already in stage order.
func (c *Census) localize(slots []int32) []report.Localization {
	out := []report.Localization{}
	type series struct{ lane, version, configuration, task, fixture int32 }
	byKey := map[series][]int32{}
	var order []series
	for _, s := range slots {
		k := c.keys[s]
		sk := series{k.lane, k.version, k.configuration, k.task, k.fixture}
		if _, ok := byKey[sk]; !ok {
			order = append(order, sk)
		}
		byKey[sk] = append(byKey[sk], s)
	}
	for _, sk := range order {
		lane := c.model.Lanes[c.names.str(sk.lane)]
		last := "W0" // the last stage that passed, "" when the chain is broken
		gap := false // an unobservable or unrecorded stage lies after last
		prev := 0    // index of the previous stage in the series
		for _, s := range byKey[sk] {
			stage := c.names.str(c.keys[s].stage)
			idx := contract.StageIndex(stage)
			if idx > prev+1 {
				gap = true // a stage with no record hides the change as much as an unobservable one
			}
			prev = idx
			switch c.outcome(s) {
			case report.Pass:
				last, gap = stage, false
			case report.NotObservable, report.NotApplicable:
				gap = true
			case report.Unmet:
				if last != "" {
					out = append(out, report.Localization{
						Fixture: c.names.str(sk.fixture), Lane: c.names.str(sk.lane), LaneVersion: c.names.str(sk.version),
						Configuration: c.names.str(sk.configuration), Task: c.names.str(sk.task),
						From: last, To: stage, Kind: boundaryKind(lane, last, stage, gap),
					})
				}
				last, gap = "", false
			default: // execution_failed, not_reached, unstable: nothing can be bounded across them
				last, gap = "", false
			}
		}
	}
	return out
}

func boundaryKind(lane contract.Lane, from, to string, gap bool) string {
	if gap {
		return report.Interval
	}
	if sharedRoot(lane, to) == sharedRoot(lane, from) && from != "W0" {
		return report.CompartmentBound
	}
	return report.Transformation
}

// sharedRoot follows sharedWith links to the stage that owns the carrier object.
func sharedRoot(lane contract.Lane, stage string) string {
	for i := 0; i < len(contract.Stages); i++ {
		sd, ok := lane.Stages[stage]
		if !ok || sd.SharedWith == "" {
			return stage
		}
		stage = sd.SharedWith
	}
	return stage
}
