package compare

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// readingKey is a (position, target) pair: the unit that has one collapsed reading.
type readingKey struct {
	result.Position
	target string
}

type variantAt struct {
	fingerprint string
	Variant
}

// collected is what the collector keeps of one reading: the first record and the variants.
type collectedReading struct {
	origin, err string
	family      string
	reps        []int
	variants    []variantAt
}

// collector collapses decoder readings across repetitions, as the census does for task outcomes:
// one reading when every repetition agrees on the state and every readout, else unstable.
type collector struct {
	model    *contract.Model
	readings map[readingKey]*collectedReading
}

func newCollector(m *contract.Model) *collector {
	return &collector{model: m, readings: map[readingKey]*collectedReading{}}
}

func (c *collector) add(rec *instrument.Record, t targetReading) error {
	k := readingKey{rec.Position(), t.target}
	cr, ok := c.readings[k]
	if !ok {
		cr = &collectedReading{origin: rec.Origin, err: rec.Error, family: c.model.Fixtures[rec.Fixture].Family}
		c.readings[k] = cr
	}
	if slices.Contains(cr.reps, rec.Repetition) {
		return fmt.Errorf("%s:%d: repetition %d recorded twice", rec.File, rec.Line, rec.Repetition)
	}
	cr.reps = append(cr.reps, rec.Repetition)
	b, err := strictjson.Marshal(map[string]any{"s": rec.State, "r": readoutsValue(t.readouts)})
	if err != nil {
		return fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
	}
	fp := string(b)
	for i := range cr.variants {
		if cr.variants[i].fingerprint == fp {
			cr.variants[i].Repetitions = append(cr.variants[i].Repetitions, rec.Repetition)
			return nil
		}
	}
	cr.variants = append(cr.variants, variantAt{fp, Variant{Repetitions: []int{rec.Repetition}, State: rec.State, Readouts: t.readouts}})
	return nil
}

func readoutsValue(m map[string]map[string]any) any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// collapse returns the collapsed readings in position order, targets in catalog order.
func (c *collector) collapse(in *instrument.Instrument) []Reading {
	keys := make([]readingKey, 0, len(c.readings))
	for k := range c.readings {
		keys = append(keys, k)
	}
	targetIndex := func(k readingKey) int { return slices.Index(c.model.Fixtures[k.Fixture].Targets, k.target) }
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Position != b.Position {
			return a.Position.Less(b.Position, contract.StageIndex)
		}
		return targetIndex(a) < targetIndex(b)
	})
	expected := map[[2]string]*Value{}
	out := make([]Reading, 0, len(keys))
	for _, k := range keys {
		cr := c.readings[k]
		ek := [2]string{k.Fixture, k.target}
		exp, ok := expected[ek]
		if !ok {
			if s, has := in.SourceView(k.Fixture)["structured"]; has {
				if v, found := strictjson.Lookup(s, k.target); found {
					exp = &Value{v}
				}
			}
			expected[ek] = exp
		}
		r := Reading{Position: k.Position, Family: cr.family, Target: k.target, Origin: cr.origin,
			Repetitions: len(cr.reps), Expected: exp}
		if len(cr.variants) == 1 {
			r.State = cr.variants[0].State
			r.Readouts = cr.variants[0].Readouts
			r.Error = cr.err
		} else {
			r.State = result.Unstable
			for _, v := range cr.variants {
				sort.Ints(v.Repetitions)
				r.Variants = append(r.Variants, v.Variant)
			}
			sort.Slice(r.Variants, func(i, j int) bool { return r.Variants[i].Repetitions[0] < r.Variants[j].Repetitions[0] })
		}
		out = append(out, r)
	}
	return out
}

func summarize(rs []Reading) Summary {
	s := Summary{Readings: len(rs)}
	for _, r := range rs {
		switch r.State {
		case "captured":
			s.Captured++
		case result.Unstable:
			s.Unstable++
		}
	}
	return s
}

// Kind returns a decoder's readout kind in a reading, "" when it has none.
func (r *Reading) Kind(decoder string) string {
	k, _ := r.Readouts[decoder]["kind"].(string)
	return k
}

// matches counts, per decoder, lane version, configuration and stage, the captured readings and
// their matches.
func matches(rs []Reading, decoders []string) []MatchCell {
	counts := map[result.Cell][2]int{} // per decoder index below
	var out []MatchCell
	for _, d := range decoders {
		clear(counts)
		for i := range rs {
			r := &rs[i]
			if r.State != "captured" {
				continue
			}
			k := r.Cell()
			c := counts[k]
			c[1]++
			if r.Kind(d) == Match {
				c[0]++
			}
			counts[k] = c
		}
		for _, k := range sortedCells(counts) {
			c := counts[k]
			out = append(out, MatchCell{Decoder: d, Cell: k, Match: c[0], Captured: c[1]})
		}
	}
	if out == nil {
		out = []MatchCell{}
	}
	return out
}

// sortedCells returns the cells of a table in result.Cell order: lane, version
// (result.CompareVersions), configuration, stage (pipeline order).
func sortedCells[V any](cells map[result.Cell]V) []result.Cell {
	keys := make([]result.Cell, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j], contract.StageIndex) })
	return keys
}

// WholeTarget is the target that reads the whole structured value (the empty JSON pointer).
const WholeTarget = ""

// totals counts each decoder's readouts by kind over the framework lanes, of every target when
// only is nil, else of the readings whose target only accepts.
func totals(m *contract.Model, rs []Reading, decoders []string, only func(target string) bool) []Totals {
	out := make([]Totals, 0, len(decoders))
	for _, d := range decoders {
		t := Totals{Decoder: d, Counts: NewCounts(Kinds)}
		for i := range rs {
			r := &rs[i]
			if r.State != "captured" || m.Lanes[r.Lane].Control || (only != nil && !only(r.Target)) {
				continue
			}
			t.Add(r.Kind(d))
		}
		out = append(out, t)
	}
	return out
}

// isWhole accepts the whole-value target.
func isWhole(target string) bool { return target == WholeTarget }

// Difference says how the decoders' readouts of a captured reading relate: LaneLoss when every
// decoder's readout is wrong or missing (the lane lost the value; no decoder can be blamed),
// else Differs when at least two decoders give different kinds, else neither (they agree).
func (r *Reading) Difference(decoders []string) (differs, laneLoss bool) {
	if r.State != "captured" || len(decoders) == 0 {
		return false, false
	}
	laneLoss = true
	first := r.Kind(decoders[0])
	for _, d := range decoders {
		k := r.Kind(d)
		if k != Wrong && k != Missing {
			laneLoss = false
		}
		if k != first {
			differs = true
		}
	}
	if laneLoss {
		return false, true
	}
	return differs, false
}

// differences counts, per lane version, configuration and stage (in the match matrix's order),
// the captured readings where the decoders differ and the lane losses.
func differences(rs []Reading, decoders []string) []DifferenceCell {
	cells := map[result.Cell]*DifferenceCell{}
	for i := range rs {
		r := &rs[i]
		if r.State != "captured" {
			continue
		}
		k := r.Cell()
		c := cells[k]
		if c == nil {
			c = &DifferenceCell{Cell: k}
			cells[k] = c
		}
		c.Captured++
		differs, loss := r.Difference(decoders)
		if differs {
			c.Differs++
		}
		if loss {
			c.LaneLoss++
		}
	}
	keys := sortedCells(cells)
	out := make([]DifferenceCell, len(keys))
	for i, k := range keys {
		out[i] = *cells[k]
	}
	return out
}

// configurations compares, for every lane version with more than one configuration, the default
// configuration (else the first) with each other one: task outcomes that differ where both have
// a result, and decoder readout kinds that differ where both captured.
func configurations(m *contract.Model, rb *result.Report, rs []Reading, decoders []string) []ConfigurationDiff {
	type taskKey struct{ lane, version, configuration, fixture, stage, task string }
	results := map[taskKey]*result.Result{}
	for _, r := range rb.Each() {
		results[taskKey{r.Lane, r.LaneVersion, r.Configuration, r.Fixture, r.Stage, r.Task}] = r
	}
	type readKey struct{ lane, version, configuration, fixture, stage, target string }
	readings := map[readKey]*Reading{}
	for i := range rs {
		r := &rs[i]
		readings[readKey{r.Lane, r.LaneVersion, r.Configuration, r.Fixture, r.Stage, r.Target}] = r
	}
	out := []ConfigurationDiff{}
	for _, lane := range contract.SortedKeys(m.Lanes) {
		l := m.Lanes[lane]
		if len(l.Configurations) < 2 {
			continue
		}
		configs := contract.SortedKeys(l.Configurations)
		from := configs[0]
		if _, ok := l.Configurations["default"]; ok {
			from = "default"
		}
		versions := slices.Clone(l.Versions)
		for _, version := range versions {
			for _, to := range configs {
				if to == from {
					continue
				}
				d := ConfigurationDiff{Lane: lane, LaneVersion: version, From: from, To: to, Tasks: []TaskChange{}, Decoders: []DecoderChange{}}
				for _, fx := range contract.SortedKeys(m.Fixtures) {
					f := m.Fixtures[fx]
					for _, st := range contract.Stages[1:] {
						for _, task := range f.Tasks {
							a := results[taskKey{lane, version, from, fx, st, task}]
							b := results[taskKey{lane, version, to, fx, st, task}]
							if a == nil || b == nil || a.Outcome == b.Outcome {
								continue
							}
							d.Tasks = append(d.Tasks, TaskChange{Fixture: fx, Stage: st, Task: task, Role: a.Role,
								Before: a.Outcome, After: b.Outcome, DiagnosticsBefore: a.Diagnostics, DiagnosticsAfter: b.Diagnostics})
						}
						for _, target := range f.Targets {
							a := readings[readKey{lane, version, from, fx, st, target}]
							b := readings[readKey{lane, version, to, fx, st, target}]
							if a == nil || b == nil || a.State != "captured" || b.State != "captured" {
								continue
							}
							for _, dec := range decoders {
								if ka, kb := a.Kind(dec), b.Kind(dec); ka != kb {
									d.Decoders = append(d.Decoders, DecoderChange{Fixture: fx, Stage: st, Target: target, Decoder: dec, Before: ka, After: kb})
								}
							}
						}
					}
				}
				if len(d.Tasks) > 0 || len(d.Decoders) > 0 {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// sensitivity compares the check under the base profile with the check under the other one.
func sensitivity(m *contract.Model, rb, ro *result.Report) NullSensitivity {
	s := NullSensitivity{Base: nullRun(m, rb), Other: nullRun(m, ro), Tasks: []string{}, Changes: []NullChange{}}
	optional := m.OptionalAtoms()
	for _, id := range contract.SortedKeys(m.Tasks) {
		for _, a := range m.Tasks[id].Atoms {
			if slices.Contains(optional, a) {
				s.Tasks = append(s.Tasks, id)
				break
			}
		}
	}
	type key struct {
		result.Position
		task string
	}
	other := map[key]*result.Result{}
	for _, r := range ro.Each() {
		other[key{r.Position(), r.Task}] = r
	}
	for _, a := range rb.Each() { // in the census's sorted order
		b := other[key{a.Position(), a.Task}]
		if b == nil || a.Outcome == b.Outcome {
			continue
		}
		s.Changes = append(s.Changes, NullChange{Position: a.Position(), Task: a.Task,
			BaseOutcome: a.Outcome, OtherOutcome: b.Outcome, Atoms: changedAtoms(a.Diagnostics, b.Diagnostics)})
	}
	s.OnlyBase = divergenceDiff(rb.Divergences.Unique, ro.Divergences.Unique)
	s.OnlyOther = divergenceDiff(ro.Divergences.Unique, rb.Divergences.Unique)
	return s
}

func nullRun(m *contract.Model, r *result.Report) NullRun {
	d := r.Divergences
	return NullRun{Profile: r.Profile, NullPolicy: r.NullPolicy, WithholdPrivateMeta: m.Profiles[r.Profile].WithholdPrivateMeta, Unique: len(d.Unique), Manifestations: d.Manifestations,
		UniqueByFamily: d.UniqueByFamily, ManifestationsByFamily: d.ManifestationsByFamily, Guard: len(d.Guard), Apart: len(d.Apart), LeaveOneOut: d.LeaveOneOut,
		Pass: r.Summary.Pass, Unmet: r.Summary.Unmet}
}

// changedAtoms names the atoms whose diagnostics are in one run and not the other, sorted.
func changedAtoms(a, b []result.Diagnostic) []string {
	enc := func(ds []result.Diagnostic) map[string]string {
		out := map[string]string{}
		for _, d := range ds {
			bs, err := strictjson.Marshal(d)
			if err != nil {
				bs = []byte(fmt.Sprint(d))
			}
			atom, _ := d["atom"].(string)
			out[string(bs)] = atom
		}
		return out
	}
	ea, eb := enc(a), enc(b)
	seen := map[string]bool{}
	for k, atom := range ea {
		if _, ok := eb[k]; !ok {
			seen[atom] = true
		}
	}
	for k, atom := range eb {
		if _, ok := ea[k]; !ok {
			seen[atom] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// divergenceDiff lists the divergences of a whose (fixture, task) pair is not in b.
func divergenceDiff(a, b []result.Divergence) []result.Divergence {
	in := map[[2]string]bool{}
	for _, d := range b {
		in[[2]string{d.Fixture, d.Task}] = true
	}
	out := []result.Divergence{}
	for _, d := range a {
		if !in[[2]string{d.Fixture, d.Task}] {
			out = append(out, d)
		}
	}
	return out
}
