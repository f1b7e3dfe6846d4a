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
func (c *Census) localize(results []report.Result) []report.Localization {
	out := []report.Localization{}
	type series struct {
		lane, version, configuration, task, fixture string
	}
	byKey := map[series][]*report.Result{}
	var order []series
	for i := range results {
		r := &results[i]
		k := series{r.Lane, r.LaneVersion, r.Configuration, r.Task, r.Fixture}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	for _, k := range order {
		lane := c.model.Lanes[k.lane]
		last := "W0" // the last stage that passed, "" when the chain is broken
		gap := false // an unobservable or unrecorded stage lies after last
		prev := 0    // index of the previous stage in the series
		for _, r := range byKey[k] {
			idx := contract.StageIndex(r.Stage)
			if idx > prev+1 {
				gap = true // a stage with no record hides the change as much as an unobservable one
			}
			prev = idx
			switch r.Outcome {
			case report.Pass:
				last, gap = r.Stage, false
			case report.NotObservable, report.NotApplicable:
				gap = true
			case report.Unmet:
				if last != "" {
					out = append(out, report.Localization{
						Fixture: k.fixture, Lane: k.lane, LaneVersion: k.version, Configuration: k.configuration,
						Task: k.task, From: last, To: r.Stage, Kind: boundaryKind(lane, last, r.Stage, gap),
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
