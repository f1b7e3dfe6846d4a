package census

import (
	"encoding/json"
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// localize bounds every change: a pass followed by an unmet at a later stage of the same lane,
// version, configuration and task. W0, the source, always passes. The kind says what lies between:
// an unobservable stage makes it an interval; two readouts of one shared carrier are a compartment
// boundary; otherwise it is a transformation between successive objects. Results arrive sorted by
// position, so each series is already in stage order, and the series of one fixture, lane,
// version and configuration lie in one run of slots: they are walked a run at a time, in the
// order their tasks first appear, and nothing is kept per binding. The slots are walked twice, to
// count the localizations and then to make them into a list of that length: a list grown by
// appending (tens of thousands of localizations at a million bindings) left each outgrown copy as
// free heap at the run's highest point.
func (c *Census) localize(slots []int32) result.Localizations {
	n := 0
	c.eachLocalization(slots, func(localization) { n++ })
	out := &compactLocalizations{c: c, list: make([]localization, 0, n)}
	c.eachLocalization(slots, func(l localization) { out.list = append(out.list, l) })
	return out
}

// localization is a localization as the census keeps it, 12 bytes: the slot of the unmet binding
// it ends at (its fixture, lane, version, configuration, task and stage To), the slot of the pass
// it starts from (its stage From; -1 for W0, the carrier before any stage) and its kind. As a
// result.Localization of eight strings it was 128 bytes, a tenth of the census's live heap at a
// million bindings, held until the report was written.
type localization struct {
	to, from int32
	kind     uint8 // an index into localizationKinds
}

// localizationKinds are the kinds a localization may have, as localization.kind indexes them.
var localizationKinds = [...]string{result.Transformation, result.Interval, result.CompartmentBound}

// compactLocalizations are the report's localizations, made from the census when read.
type compactLocalizations struct {
	c    *Census
	list []localization
}

func (l *compactLocalizations) Len() int { return len(l.list) }

func (l *compactLocalizations) At(i int) result.Localization {
	c, x := l.c, l.list[i]
	k := c.key(x.to)
	from := "W0"
	if x.from >= 0 {
		from = c.names.str(c.key(x.from).stage)
	}
	return result.Localization{
		Fixture: c.names.str(k.fixture), Lane: c.names.str(k.lane), LaneVersion: c.names.str(k.version),
		Configuration: c.names.str(k.configuration), Task: c.names.str(k.task),
		From: from, To: c.names.str(k.stage), Kind: localizationKinds[x.kind],
	}
}

// MarshalJSON writes the localizations as the list they stand for.
func (l *compactLocalizations) MarshalJSON() ([]byte, error) {
	list := make(result.LocalizationList, l.Len())
	for i := range list {
		list[i] = l.At(i)
	}
	return json.Marshal(list)
}

// eachLocalization calls yield with each localization of the slots, in report order.
func (c *Census) eachLocalization(slots []int32, yield func(localization)) {
	var tasks []int32
	for start := 0; start < len(slots); {
		k0 := c.key(slots[start])
		end := start + 1
		tasks = append(tasks[:0], k0.task)
		for ; end < len(slots); end++ {
			k := c.key(slots[end])
			if k.fixture != k0.fixture || k.lane != k0.lane || k.version != k0.version || k.configuration != k0.configuration {
				break
			}
			if !slices.Contains(tasks, k.task) {
				tasks = append(tasks, k.task)
			}
		}
		for _, task := range tasks {
			c.localizeSeries(k0, task, slots[start:end], yield)
		}
		start = end
	}
}

// localizeSeries yields the localizations of one series: the slots of run (one fixture, lane,
// version and configuration) whose task is task, in stage order.
func (c *Census) localizeSeries(k0 key, task int32, run []int32, yield func(localization)) {
	lane := c.model.Lanes[c.names.str(k0.lane)]
	last := "W0"          // the last stage that passed, "" when the chain is broken
	lastSlot := int32(-1) // its slot, -1 for W0
	gap := false          // an unobservable or unrecorded stage lies after last
	prev := 0             // index of the previous stage in the series
	for _, s := range run {
		k := c.key(s)
		if k.task != task {
			continue
		}
		stage := c.names.str(k.stage)
		idx := contract.StageIndex(stage)
		if idx > prev+1 {
			gap = true // a stage with no record hides the change as much as an unobservable one
		}
		prev = idx
		switch c.outcome(s) {
		case result.Pass:
			last, lastSlot, gap = stage, s, false
		case result.NotObservable, result.NotApplicable:
			gap = true
		case result.Unmet:
			if last != "" {
				kind := uint8(slices.Index(localizationKinds[:], boundaryKind(lane, last, stage, gap)))
				yield(localization{to: s, from: lastSlot, kind: kind})
			}
			last, gap = "", false
		default: // execution_failed, not_reached, ambiguous, unstable: nothing can be bounded across them
			last, gap = "", false
		}
	}
}

func boundaryKind(lane contract.Lane, from, to string, gap bool) string {
	if gap {
		return result.Interval
	}
	if sharedRoot(lane, to) == sharedRoot(lane, from) && from != "W0" {
		return result.CompartmentBound
	}
	return result.Transformation
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
