package census

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/spill"
)

// localize bounds every change: a pass followed by an unmet at a later stage of the same lane,
// version, configuration and task. W0, the source, always passes. The kind says what lies between:
// an unobservable stage makes it an interval; two readouts of one shared carrier are a compartment
// boundary; otherwise it is a transformation between successive objects. Results arrive sorted by
// position, so each series is already in stage order, and the series of one fixture, lane,
// version and configuration lie in one run of slots: they are walked a run at a time, in the
// order their tasks first appear, and nothing is kept per binding. The localizations grow with
// the bindings (some 9% of them in the bench set: about a million at ten million bindings), so
// they are written to a byte stream of the census's own, localizationSize bytes each, in memory
// as the report's table is (a census that wrote no run) or else its first tableMemory bytes,
// the rest in a temporary file; they were a list of 12-byte entries in the heap, live to the end
// of the report.
func (c *Census) localize(t *table) (result.Localizations, error) {
	out := &compactLocalizations{c: c, t: t, list: c.reportStream()}
	w := newChunkWriter(&out.list)
	err := c.eachLocalization(t, func(l localization) {
		w.buf = l.append(w.buf)
		out.n++
		w.room(localizationSize)
	})
	if err != nil {
		return nil, err
	}
	w.flush()
	out.list.Seal()
	return out, nil
}

// localization is a localization as the census keeps it, localizationSize bytes: the binding of
// the unmet it ends at (its place in report order: its fixture, lane, version, configuration, task
// and stage To), the stage of the pass it starts from (-1 for W0, the carrier before any stage)
// and its kind. As a result.Localization of eight strings it was 128 bytes, a tenth of the
// census's live heap at a million bindings, held until the report was written.
type localization struct {
	to, from int32
	kind     uint8 // an index into localizationKinds
}

// localizationSize is a localization's size in the census's byte stream.
const localizationSize = 9

// append appends l's bytes to b.
func (l localization) append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(l.to))
	b = binary.LittleEndian.AppendUint32(b, uint32(l.from))
	return append(b, l.kind)
}

// localizationKinds are the kinds a localization may have, as localization.kind indexes them.
var localizationKinds = [...]string{result.Transformation, result.Interval, result.CompartmentBound}

// compactLocalizations are the report's localizations, made from the census when read.
type compactLocalizations struct {
	c    *Census
	t    *table
	list spill.Stream // the localizations, localizationSize bytes each
	n    int
}

func (l *compactLocalizations) Len() int { return l.n }

// at is localization i. The stream is the census's own, written and open: a failure to read it
// back is a broken machine, and panics (result.Localizations.At returns no error), as table.at.
func (l *compactLocalizations) at(i int) localization {
	var buf [localizationSize]byte
	b := buf[:]
	p, err := l.list.ReadInto(int64(i)*localizationSize, localizationSize, &b)
	if err != nil {
		panic(fmt.Sprintf("census: read back the localizations: %v", err))
	}
	return localization{to: int32(binary.LittleEndian.Uint32(p)), from: int32(binary.LittleEndian.Uint32(p[4:])), kind: p[8]}
}

func (l *compactLocalizations) At(i int) result.Localization {
	c, x := l.c, l.at(i)
	k := l.t.at(c, x.to).key
	from := "W0"
	if x.from >= 0 {
		from = c.names.str(x.from)
	}
	return result.Localization{
		Fixture: c.names.str(k.fixture), Lane: c.names.str(k.lane), LaneVersion: c.names.str(k.version),
		Configuration: c.names.str(k.configuration), Task: c.names.str(k.task),
		From: from, To: c.names.str(k.stage), Kind: localizationKinds[x.kind],
	}
}

// MarshalJSON writes the localizations as the list they stand for.
func (l *compactLocalizations) MarshalJSON() ([]byte, error) {
	return json.Marshal(result.Collect[result.Localization](l))
}

// placed is a binding of a localization's window: its place, key and outcome.
type placed struct {
	i       int32
	key     key
	outcome string
}

// eachLocalization calls yield with each localization of the table, in report order. The
// bindings of one fixture, lane, version and configuration (a window) are kept while it is read.
func (c *Census) eachLocalization(t *table, yield func(localization)) error {
	var window []placed
	var tasks []int32
	flush := func() {
		tasks = tasks[:0]
		for _, p := range window {
			if !slices.Contains(tasks, p.key.task) {
				tasks = append(tasks, p.key.task)
			}
		}
		for _, task := range tasks {
			c.localizeSeries(window[0].key, task, window, yield)
		}
		window = window[:0]
	}
	err := t.each(c, func(b *binding) error {
		if len(window) > 0 {
			k0, k := window[0].key, b.key
			if k.fixture != k0.fixture || k.lane != k0.lane || k.version != k0.version || k.configuration != k0.configuration {
				flush()
			}
		}
		window = append(window, placed{i: b.i, key: b.key, outcome: c.outcome(b)})
		return nil
	})
	if err != nil {
		return err
	}
	if len(window) > 0 {
		flush()
	}
	return nil
}

// localizeSeries yields the localizations of one series: the bindings of run (one fixture, lane,
// version and configuration) whose task is task, in stage order.
func (c *Census) localizeSeries(k0 key, task int32, run []placed, yield func(localization)) {
	lane := c.model.Lanes[c.names.str(k0.lane)]
	last := "W0"           // the last stage that passed, "" when the chain is broken
	lastStage := int32(-1) // its stage id, -1 for W0
	gap := false           // an unobservable or unrecorded stage lies after last
	prev := 0              // index of the previous stage in the series
	for _, p := range run {
		k := p.key
		if k.task != task {
			continue
		}
		stage := c.names.str(k.stage)
		idx := contract.StageIndex(stage)
		if idx > prev+1 {
			gap = true // a stage with no record hides the change as much as an unobservable one
		}
		prev = idx
		switch p.outcome {
		case result.Pass:
			last, lastStage, gap = stage, k.stage, false
		case result.NotObservable, result.NotApplicable:
			gap = true
		case result.Unmet:
			if last != "" {
				kind := uint8(slices.Index(localizationKinds[:], boundaryKind(lane, last, stage, gap)))
				yield(localization{to: p.i, from: lastStage, kind: kind})
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
