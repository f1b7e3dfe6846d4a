// Package capture is the body of `contractcheck capture direct`: the control lane's observation
// records for the sources of a fixtures layer, each source read back unchanged at every stage the
// lane observes, as examples/capture/direct writes them for the built-in fixtures. The sources
// are read and validated as check reads them (internal/instrument). cmd/contractcheck/capture.go
// binds the flags and says what was written.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/result"
)

// ControlLane is the lane Direct writes the records of: the control, every source read back
// unchanged (contracts/lanes.cue).
const ControlLane = "direct"

// Capture is what Direct wrote.
type Capture struct {
	// Lane, Version and Configuration are the records' position: the control lane at its one
	// version, configuration default.
	Lane, Version, Configuration string
	// Fixtures are the fixtures recorded, in the order written; Stages the stages each is recorded
	// at.
	Fixtures, Stages []string
	// Repetitions is how many times each (fixture, stage) is recorded; Records how many records
	// were written in all.
	Repetitions, Records int
}

// Direct writes to w the control lane's observation records (JSONL) for the sources of a
// fixtures layer: each source read back unchanged, compacted (json.Compact: numbers, escapes and
// key order kept), at every stage the lane declares observed, in pipeline order, as a captured
// carrier with the source's sha256, origin the lane's. The records are those
// examples/capture/direct writes for the built-in fixtures, byte for byte, and go where check
// reads a layer's records: <layer>/observations/direct/<version>/default.jsonl.
//
// The fixtures are those whose source lies in one of the --fixtures layers (opts.Fixtures), or,
// with none, in the built-in layer; each catalogued one, and each source no catalogue entry names
// (instrument.DeriveFixtures, at opts.Revision); then narrowed by opts.Scope's suites and fixtures. Every
// source is read and validated against its revision first, as check reads it: a bad one is an
// input error and nothing is written. Records are written repetition by repetition (1 to
// repetitions), each repetition the fixtures in id order: the order of three runs of
// examples/capture/direct appended to one file.
func Direct(ctx context.Context, opts inputs.Options, repetitions int, w io.Writer) (Capture, error) {
	if repetitions < 1 {
		return Capture{}, result.AsInput(fmt.Errorf("--repetitions %d: want at least 1", repetitions))
	}
	v, err := inputs.NewValidator(opts.BuiltinFS(), opts.SchemaLayers(), !opts.NoBuiltin)
	if err != nil {
		return Capture{}, result.AsInput(err)
	}
	m, err := contract.LoadLimited(ctx, opts.ContractLayers())
	if err != nil {
		return Capture{}, result.AsInput(fmt.Errorf("load contracts: %w", err))
	}
	if err := instrument.CheckRevisions(v, m); err != nil {
		return Capture{}, result.AsInput(fmt.Errorf("load contracts: %w", err))
	}
	lane, ok := m.Lanes[ControlLane]
	if !ok {
		return Capture{}, result.AsInput(fmt.Errorf("the contracts define no lane %s (the control lane, contracts/lanes.cue): --no-builtin leaves it out unless a --contracts layer declares it", ControlLane))
	}
	if len(lane.Versions) != 1 {
		return Capture{}, result.AsInput(fmt.Errorf("lane %s declares versions %v: capture direct writes the records of a control lane of one version", ControlLane, lane.Versions))
	}
	c := Capture{Lane: ControlLane, Version: lane.Versions[0], Configuration: "default", Repetitions: repetitions}
	if _, ok := lane.Configurations[c.Configuration]; !ok {
		return Capture{}, result.AsInput(fmt.Errorf("lane %s has no configuration %s", ControlLane, c.Configuration))
	}
	for _, st := range contract.Stages {
		if sd, ok := lane.Stages[st]; ok && sd.Exposure == contract.Observed {
			c.Stages = append(c.Stages, st)
		}
	}
	layers := opts.FixtureLayers()
	for _, d := range layers {
		if err := d.Check("--fixtures"); err != nil {
			return Capture{}, result.AsInput(err)
		}
	}
	bindings, err := instrument.CompileBindings(m)
	if err != nil {
		return Capture{}, result.AsInput(err)
	}
	derived, err := instrument.DeriveFixtures(v, m, bindings, layers, opts.Revision)
	if err != nil {
		return Capture{}, result.AsInput(err)
	}
	sources, err := instrument.LoadSources(v, m, layers, derived)
	if err != nil {
		return Capture{}, result.AsInput(err)
	}
	from := layers
	if len(opts.Fixtures) > 0 {
		from = slices.DeleteFunc(slices.Clone(layers), func(d inputs.Dir) bool { return d.Builtin })
	}
	type source struct {
		id, sha string
		carrier []byte
	}
	var selected []source
	for _, id := range contract.SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		if !selects(opts.Scope.Suites, f.Suite) || !selects(opts.Scope.Fixtures, id) {
			continue
		}
		in, err := holds(from, "sources/"+f.Suite+"/"+id+".json")
		if err != nil {
			return Capture{}, result.AsInput(fmt.Errorf("fixture %s: %w", id, err))
		}
		if !in {
			continue
		}
		s := sources[id]
		var carrier bytes.Buffer
		if err := json.Compact(&carrier, s.Data); err != nil {
			return Capture{}, result.AsInput(fmt.Errorf("%s: %w", s.File, err)) // cannot happen: the source decoded
		}
		selected = append(selected, source{id: id, sha: s.Sha256, carrier: carrier.Bytes()})
		c.Fixtures = append(c.Fixtures, id)
	}
	if len(selected) == 0 {
		var where []string
		for _, d := range from {
			_, display := d.Path("sources")
			where = append(where, display)
		}
		return Capture{}, result.AsInput(fmt.Errorf("capture direct: no source to record: the fixture layers' sources (%v) hold none within --suite and --fixture", where))
	}
	// The records are encoded as probe and record encode theirs (laneout.Encode): their members
	// in the order examples/capture/direct writes them (the built-in records,
	// fixtures/observations/direct/).
	origin := lane.OriginOf(c.Version)
	for rep := 1; rep <= repetitions; rep++ {
		for _, s := range selected {
			for _, st := range c.Stages {
				line, err := laneout.Encode(laneout.Record{
					Position:   result.Position{Fixture: s.id, Lane: c.Lane, LaneVersion: c.Version, Configuration: c.Configuration, Stage: st},
					Repetition: rep, State: "captured", Carrier: s.carrier, SourceSha256: s.sha, Origin: origin,
				})
				if err == nil {
					_, err = w.Write(line)
				}
				if err != nil {
					return Capture{}, fmt.Errorf("capture direct: write the records: %w", err)
				}
				c.Records++
			}
		}
	}
	return c, nil
}

// holds reports whether one of layers holds the file at rel.
func holds(layers []inputs.Dir, rel string) (bool, error) {
	for _, d := range layers {
		p, display := d.Path(rel)
		switch _, err := fs.Stat(d.FS, p); {
		case err == nil:
			return true, nil
		case !errors.Is(err, fs.ErrNotExist):
			return false, fmt.Errorf("%s: %w", display, err)
		}
	}
	return false, nil
}

// selects reports whether a scope's entries (none: all) select v.
func selects(entries []string, v string) bool {
	return len(entries) == 0 || contract.Matches(entries, v)
}
