// Package census is step 6 of the pipeline (strict JSON → schema → contract → projector → policy →
// census → report): it collapses repetitions into one outcome per binding, localizes where a
// distinction was lost, counts divergences between lanes and applies the profile's gate. It is pure
// bookkeeping over readings the policy step produced, so it is deterministic by construction: every
// map it fills is read back in sorted order.
//
// It holds millions of bindings in little memory: names are interned, a reading is a fixed-width
// entry of name ids written in sorted runs to a temporary file and merged for the report
// (runs.go), and what repetitions read (outcome, readout, diagnostics) is kept once per distinct
// reading. The report's results, localizations and upgrade changes are read back from disk and
// made when they are read, one at a time (result.Results), never all at once.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package census

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/spill"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Census accumulates readings. Add is not safe for concurrent use: one collector owns it.
type Census struct {
	model       *contract.Model
	profileName string
	profile     contract.Profile
	scope       *result.Scope // what the run was restricted to, nil when it was not

	names    interner
	groups   []group // what records share (entry.group)
	groupIDs map[group]int32
	lastRec  lastRecord
	variants variants
	// run is the readings added since the last run was written; runs the run file, which holds
	// the segments written (runs.go). runSize is how many entries a run holds (Options.RunSize).
	run      []entry
	runs     spill.Stream
	segments []segment
	runSize  int
	// byName and byVersion order the names for the runs' sort (ordering).
	byName, byVersion order
}

// Options are how a census keeps its readings. The zero value is the census's own choice.
type Options struct {
	// RunSize is how many readings a run holds before it is written to the run file (runs.go);
	// 0 is the census's own size (runSize). Tests give a few readings, so that a small census
	// goes through the run file and the merge of many runs as a run of millions of bindings does.
	RunSize int
}

// key is a binding as interned names.
type key struct{ fixture, lane, version, configuration, stage, task int32 }

// Restrict records that the run was restricted to a scope: the report says so, and a requirement
// that gates nothing within it is out of scope rather than an error, as long as another one gates
// something. A zero scope restricts nothing and is not recorded.
func (c *Census) Restrict(s result.Scope) {
	if !s.IsZero() {
		c.scope = &s
	}
}

// New starts a census for a profile of a model, with the census's own Options.
func New(m *contract.Model, profileName string) (*Census, error) {
	return NewWith(m, profileName, Options{})
}

// NewWith starts a census for a profile of a model, kept as opts say. A negative run size is an
// error.
func NewWith(m *contract.Model, profileName string, opts Options) (*Census, error) {
	p, ok := m.Profiles[profileName]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (the contracts define %s)", profileName, strings.Join(contract.SortedKeys(m.Profiles), ", "))
	}
	if opts.RunSize < 0 {
		return nil, fmt.Errorf("a census run of %d readings", opts.RunSize)
	}
	c := &Census{model: m, profileName: profileName, profile: p, names: newInterner(), variants: newVariants(),
		groupIDs: map[group]int32{}, lastRec: lastRecord{group: -1}, runSize: runSize,
		byName: order{compare: cmp.Compare[string]}, byVersion: order{compare: result.CompareVersions}}
	if opts.RunSize != 0 {
		c.runSize = opts.RunSize
	}
	return c, nil
}

// Add records one reading. Readings of one record are expected one after another (Add keeps what
// they share once); any order is correct. A second reading of the same repetition is an input
// error, which the report finds (Report): the observation records repeat themselves.
func (c *Census) Add(r result.Reading) error {
	g, version := c.recordOf(r)
	v, err := c.variants.intern(r)
	if err != nil {
		return err
	}
	c.run = append(c.run, entry{group: g, version: version, task: c.names.id(r.Task), number: int32(r.Repetition), line: int32(r.Line), variant: v})
	if len(c.run) >= c.runSize {
		c.spill()
	}
	return nil
}

// collapsed is a binding's outcome when its repetitions agree: the reading's variant; -1 when
// they disagree (unstable). An ambiguous repetition (contractcheck record saw the item but could
// not prove which result it carried: docs/record.md, "Pairing") says nothing of the binding and
// is set aside, so that it never makes a binding unstable; a binding whose every repetition is
// ambiguous is ambiguous.
func (c *Census) collapsed(b *binding) int32 {
	const none = -2
	v, amb := int32(none), int32(-1)
	for _, e := range b.reps {
		switch {
		case c.variants.outcome(e.variant) == result.Ambiguous:
			amb = e.variant
		case v == none:
			v = e.variant
		case e.variant != v:
			v = -1
		}
		if v == -1 {
			break
		}
	}
	if v == none {
		return amb
	}
	return v
}

// outcomeOf is the outcome of a collapsed variant.
func (c *Census) outcomeOf(v int32) string {
	if v < 0 {
		return result.Unstable
	}
	return c.variants.outcome(v)
}

// outcome is a binding's collapsed outcome.
func (c *Census) outcome(b *binding) string { return c.outcomeOf(c.collapsed(b)) }

// first is the group of a binding's lowest repetition: its origin and error stand for the binding.
func (c *Census) first(b *binding) *group { return &c.groups[b.reps[0].group] }

// Report collapses the readings and computes localizations, divergences, upgrades and the gate.
// It merges the runs into the report's table (runs.go), and so it is where a repetition recorded
// twice is found: the error (a *RepeatedError) names both records. Readings may be added after a
// report, and the next report counts them too.
func (c *Census) Report() (*result.Report, error) {
	t, err := c.makeTable()
	if err != nil {
		return nil, err
	}
	// The readings' index (some 40 bytes a distinct reading) is let go: the report never looks a
	// reading up, and a later Add makes it again.
	c.variants.release()
	results := &compactResults{c: c, t: t}
	r := &result.Report{
		ReportVersion: result.Version,
		Profile:       c.profileName,
		NullPolicy:    c.profile.NullPolicy,
		Scope:         c.scope,
		Results:       results,
	}
	if c.profile.Cohort != nil {
		co := c.profile.Cohort.Selection()
		r.Cohort = &co
	}
	ups, err := c.upgradePairs(t)
	if err != nil {
		return nil, err
	}
	r.Upgrades = c.upgrades(t, ups)
	if err := t.each(c, func(b *binding) error { r.Summary.Add(c.outcome(b)); return nil }); err != nil {
		return nil, err
	}
	if r.Gate, err = c.gate(t); err != nil {
		return nil, err
	}
	if r.Localizations, err = c.localize(t); err != nil {
		return nil, err
	}
	if r.Divergences, err = c.divergences(t, func(*binding) bool { return true }); err != nil {
		return nil, err
	}
	capturedID := c.names.lookup("captured")
	if r.CapturedDivergences, err = c.divergences(t, func(b *binding) bool { return c.first(b).origin == capturedID }); err != nil {
		return nil, err
	}
	if r.Reported, err = c.reported(t); err != nil {
		return nil, err
	}
	return r, nil
}

// selection is what requirements see of a binding.
func (c *Census) selection(k key) contract.Selection {
	fixture := c.names.str(k.fixture)
	return contract.Selection{Fixture: fixture, Suite: c.model.Fixtures[fixture].Suite, Lane: c.names.str(k.lane),
		LaneVersion: c.names.str(k.version), Configuration: c.names.str(k.configuration), Stage: c.names.str(k.stage), Task: c.names.str(k.task)}
}

// role is "guard" for guard tasks, "apart" for primary tasks on a family reported apart, else "primary".
func (c *Census) role(fixture, task string) string {
	if c.model.Tasks[task].Role == "guard" {
		return "guard"
	}
	if c.model.Families[c.model.Fixtures[fixture].Family].Census == "apart" {
		return "apart"
	}
	return "primary"
}

// result makes a binding's report result: the common reading when every repetition agrees, else
// outcome unstable with each variant (no majority vote).
func (c *Census) result(b *binding) result.Result {
	res, vd := c.resultHeld(b, true)
	if vd != nil {
		res.Readout, res.Diagnostics = c.variants.values(vd)
	}
	return res
}

// resultHeld is result without the common reading's readout and diagnostics, and the variant that
// holds them in their canonical encoding (nil when the repetitions disagree); the variants of
// disagreeing repetitions have theirs when values is set, none when it is not.
func (c *Census) resultHeld(b *binding, values bool) (result.Result, *variantData) {
	sel := c.selection(b.key)
	fixture := c.model.Fixtures[sel.Fixture]
	first := c.first(b)
	res := result.Result{
		Fixture: sel.Fixture, Suite: fixture.Suite, Family: fixture.Family,
		Lane: sel.Lane, LaneVersion: sel.LaneVersion, Configuration: sel.Configuration, Stage: sel.Stage,
		Task: sel.Task, Role: c.role(sel.Fixture, sel.Task), Compartment: c.model.Tasks[sel.Task].Compartment,
		Origin: c.names.str(first.origin), Repetitions: len(b.reps), Records: make([]result.RecordRef, len(b.reps)),
	}
	for i, e := range b.reps {
		res.Records[i] = result.RecordRef{File: c.names.str(c.groups[e.group].file), Line: int(e.line), Repetition: int(e.number)}
	}
	var held *variantData
	if v := c.collapsed(b); v >= 0 {
		held = c.variants.at(v)
		res.Outcome = c.variants.outcomes[held.outcome]
		if first.err >= 0 {
			res.Error = c.names.str(first.err)
		}
	} else {
		res.Outcome = result.Unstable
		byVariant := map[int32]int{}
		for _, e := range b.reps {
			i, ok := byVariant[e.variant]
			if !ok {
				vd := c.variants.at(e.variant)
				i = len(res.Variants)
				byVariant[e.variant] = i
				v := result.Variant{Outcome: c.variants.outcomes[vd.outcome]}
				if values {
					v.Readout, v.Diagnostics = c.variants.values(vd)
				}
				res.Variants = append(res.Variants, v)
			}
			res.Variants[i].Repetitions = append(res.Variants[i].Repetitions, int(e.number))
		}
	}
	res.RequiredBy = c.requiredBy(sel, res.Outcome)
	res.Required = len(res.RequiredBy) > 0
	return res, held
}

// resultsWhere makes the results of the bindings whose key keep selects, in report order: for the
// parts of a report that need whole results of a few bindings.
func (c *Census) resultsWhere(t *table, keep func(key) bool) ([]result.Result, error) {
	var out []result.Result
	err := t.each(c, func(b *binding) error {
		if keep(b.key) {
			out = append(out, c.result(b))
		}
		return nil
	})
	return out, err
}

// compactResults are the report's results, read back from its table when read.
type compactResults struct {
	c *Census
	t *table
}

func (r *compactResults) Len() int { return int(r.t.n) }
func (r *compactResults) At(i int) result.Result {
	b := r.t.at(r.c, int32(i))
	return r.c.result(&b)
}

// HeadAt implements result.HeadResults: the result without decoding a reading.
func (r *compactResults) HeadAt(i int) result.Result {
	b := r.t.at(r.c, int32(i))
	res, _ := r.c.resultHeld(&b, false)
	return res
}

// AppendJSON implements result.Appender: the readout and diagnostics are written from their
// canonical encoding, not decoded (TestAppendJSONIsAt).
func (r *compactResults) AppendJSON(dst []byte, i int) ([]byte, error) {
	b := r.t.at(r.c, int32(i))
	res, vd := r.c.resultHeld(&b, true)
	readout, diagnostics, err := r.c.variants.encoded(vd)
	if err != nil {
		return dst, err
	}
	return result.AppendResult(dst, &res, readout, diagnostics)
}

// variants interns what repetitions read: the outcome, readout and diagnostics, once per distinct
// reading (the fingerprint repetitions must agree on).
type variants struct {
	index *fpIndex // the fingerprints' index (index.go); nil after release
	// meta holds each distinct reading's variantData, metaSize bytes at v·metaSize, in a byte
	// stream of its own: its first metaInMemory bytes in memory, the rest in a file; outcomeIDs each
	// one's outcome, which every repetition's collapse reads, in memory, a byte each.
	meta       spill.Stream
	outcomeIDs paged[uint8]
	blobs      spill.Stream // the readouts and diagnostics
	outcomes   []string     // the outcomes the readings read, which variantData.outcome indexes
}

// variantData is one distinct reading. They grow with the bindings (a run whose diagnostics name
// each version has a distinct reading per version and stage, a tenth of the bindings at a million)
// and are read to the end of the report, so the heap holds only their outcome, a byte each; the
// rest is in the census's byte streams (metaSize bytes each) and read back when a result is made.
// The readout and diagnostics are kept in their canonical encoding (strictjson.Marshal) in the
// census's byte stream (blobs), and decoded when a result is made: as Go maps a reading costs
// about a kilobyte, a third of the census at a million bindings (docs/design.md, "Speed and
// memory").
type variantData struct {
	blob blob // the readout and diagnostics, each none (nil) when its length is 0
	// diagnosed is the first 8 bytes of the diagnostics' own hash, which upgrades compare: two
	// readings whose diagnostics differ here differ; the same here, their bytes are compared
	// (sameDiagnostics).
	diagnosed uint64
	outcome   uint8 // the outcome, an index into variants.outcomes
}

// metaSize is a variantData's size in variants.meta: the blob's offset and lengths, diagnosed.
// metaInMemory is how many bytes of them stay in memory before the rest goes to a file.
const (
	metaSize     = 24
	metaInMemory = 256 << 10
)

func (vd *variantData) put(b []byte) {
	binary.LittleEndian.PutUint64(b[0:], uint64(vd.blob.off))
	binary.LittleEndian.PutUint32(b[8:], vd.blob.rlen)
	binary.LittleEndian.PutUint32(b[12:], vd.blob.dlen)
	binary.LittleEndian.PutUint64(b[16:], vd.diagnosed)
}

func newVariants() variants {
	return variants{index: newFPIndex(""), blobs: spill.Stream{Limit: spillAfter}, meta: spill.Stream{Limit: metaInMemory}}
}

// len is how many distinct readings vs holds.
func (vs *variants) len() int32 { return vs.outcomeIDs.len() }

// intern returns the id of the reading's variant. An execution failure's message is not part of
// it: it may carry a port or a process id.
func (vs *variants) intern(r result.Reading) (int32, error) {
	fp := r.Fingerprint
	if fp == ([sha256.Size]byte{}) {
		var err error
		if fp, err = result.Fingerprint(r.Outcome, r.Readout, r.Diagnostics); err != nil {
			return 0, fmt.Errorf("fingerprint %s %s: %w", r.Fixture, r.Task, err)
		}
	}
	if vs.index == nil {
		if err := vs.rebuild(); err != nil {
			return 0, err
		}
	}
	vs.index.dir = vs.blobs.Dir
	return vs.index.find(&fp, func() (int32, error) { return vs.add(r) })
}

// add keeps a reading the index does not hold as a new distinct reading, and returns its id.
func (vs *variants) add(r result.Reading) (int32, error) {
	d, err := result.MarshalDiagnostics(r.Diagnostics)
	if err != nil {
		return 0, fmt.Errorf("fingerprint %s %s: %w", r.Fixture, r.Task, err)
	}
	o, err := vs.outcomeIndex(r.Outcome)
	if err != nil {
		return 0, fmt.Errorf("fingerprint %s %s: %w", r.Fixture, r.Task, err)
	}
	sum := sha256.Sum256(d)
	vd := variantData{outcome: o, diagnosed: binary.LittleEndian.Uint64(sum[:8])}
	var readout, diagnostics []byte
	if r.Diagnostics != nil {
		diagnostics = d
	}
	if r.Readout != nil {
		if readout, err = strictjson.Marshal(r.Readout); err != nil {
			return 0, fmt.Errorf("readout %s %s: %w", r.Fixture, r.Task, err)
		}
	}
	if vd.blob, err = addBlob(&vs.blobs, readout, diagnostics); err != nil {
		return 0, fmt.Errorf("keep the reading of %s %s: %w", r.Fixture, r.Task, err)
	}
	if vs.len() == math.MaxInt32 {
		return 0, fmt.Errorf("more than %d distinct readings", math.MaxInt32)
	}
	var m [metaSize]byte
	vd.put(m[:])
	vs.meta.Dir = vs.blobs.Dir
	vs.meta.Append(m[:])
	return vs.outcomeIDs.add(o), nil
}

// outcomeIndex is the index of an outcome in vs.outcomes, added when new: a few outcomes exist
// (result.Outcomes), so more than 256 is not a policy's reading.
func (vs *variants) outcomeIndex(outcome string) (uint8, error) {
	if i := slices.Index(vs.outcomes, outcome); i >= 0 {
		return uint8(i), nil
	}
	if len(vs.outcomes) == math.MaxUint8+1 {
		return 0, fmt.Errorf("more than %d outcomes (a reading's outcome %q)", math.MaxUint8+1, outcome)
	}
	vs.outcomes = append(vs.outcomes, outcome)
	return uint8(len(vs.outcomes) - 1), nil
}

// outcome is variant v's outcome.
func (vs *variants) outcome(v int32) string { return vs.outcomes[*vs.outcomeIDs.at(v)] }

// release lets the index go (a report never interns a reading); rebuild makes it again.
func (vs *variants) release() { vs.index = nil }

// rebuild makes the index of every variant again, after release: each variant's fingerprint is
// that of its readout and diagnostics decoded from their canonical bytes, which are the values
// the fingerprint was first computed on.
func (vs *variants) rebuild() error {
	x := newFPIndex(vs.blobs.Dir)
	for v := range vs.len() {
		vd, err := vs.read(v)
		if err != nil {
			return fmt.Errorf("index the readings again: %w", err)
		}
		r, d, err := getBlob(&vs.blobs, vd.blob)
		if err != nil {
			return fmt.Errorf("index the readings again: %w", err)
		}
		fp, err := result.Fingerprint(vs.outcomes[vd.outcome], readoutValue(r), diagnosticsOf(d))
		if err != nil {
			return fmt.Errorf("index the readings again: %w", err)
		}
		if _, err := x.find(&fp, func() (int32, error) { return v, nil }); err != nil {
			return fmt.Errorf("index the readings again: %w", err)
		}
	}
	vs.index = x
	return nil
}

// read is variant v as its byte stream keeps it.
func (vs *variants) read(v int32) (variantData, error) {
	var buf [metaSize]byte
	b := buf[:]
	p, err := vs.meta.ReadInto(int64(v)*metaSize, metaSize, &b)
	if err != nil {
		return variantData{}, fmt.Errorf("read back a distinct reading: %w", err)
	}
	return variantData{
		blob:      blob{off: int64(binary.LittleEndian.Uint64(p)), rlen: binary.LittleEndian.Uint32(p[8:]), dlen: binary.LittleEndian.Uint32(p[12:])},
		diagnosed: binary.LittleEndian.Uint64(p[16:]),
		outcome:   *vs.outcomeIDs.at(v),
	}, nil
}

// at is variant v. The byte stream is the census's own, open and unlinked: a failure to read it
// back is a broken machine, and panics (result.Results.At returns no error).
func (vs *variants) at(v int32) *variantData {
	vd, err := vs.read(v)
	if err != nil {
		panic(fmt.Sprintf("census: %v", err))
	}
	return &vd
}

// encoded is the canonical encoding of a variant's readout and diagnostics, each nil for none;
// both nil for no variant.
func (vs *variants) encoded(vd *variantData) (readout, diagnostics []byte, err error) {
	if vd == nil {
		return nil, nil, nil
	}
	return getBlob(&vs.blobs, vd.blob)
}

// values is a variant's readout and diagnostics as the policy gave them, each nil for none.
func (vs *variants) values(vd *variantData) (map[string]any, []result.Diagnostic) {
	r, d := mustGetBlob(&vs.blobs, vd.blob)
	return readoutValue(r), diagnosticsOf(d)
}

// unbounded decodes what Marshal wrote, whatever its size: the bytes are the census's own.
var unbounded = strictjson.Limits{MaxBytes: math.MaxInt64, MaxDepth: math.MaxInt, MaxExponent: math.MaxInt, MaxDigits: math.MaxInt}

// readoutValue decodes a readout's canonical encoding, nil for none.
func readoutValue(b []byte) map[string]any {
	if b == nil {
		return nil
	}
	return decodeOwn(b).(map[string]any)
}

// diagnosticsOf decodes diagnostics' canonical encoding, nil for none.
func diagnosticsOf(b []byte) []result.Diagnostic {
	if b == nil {
		return nil
	}
	list := decodeOwn(b).([]any)
	out := make([]result.Diagnostic, len(list))
	for i, d := range list {
		out[i] = d.(result.Diagnostic)
	}
	return out
}

// decodeOwn decodes bytes the census encoded itself; they cannot fail to decode.
func decodeOwn(b []byte) any {
	v, err := strictjson.Decode("", b, unbounded)
	if err != nil {
		panic(fmt.Sprintf("census: decode its own encoding: %v", err))
	}
	return v
}

// interner holds each name once and gives it a dense id.
type interner struct {
	ids  map[string]int32
	strs []string
}

func newInterner() interner { return interner{ids: map[string]int32{}} }

func (n *interner) id(s string) int32 {
	if id, ok := n.ids[s]; ok {
		return id
	}
	id := int32(len(n.strs))
	n.ids[s] = id
	n.strs = append(n.strs, s)
	return id
}

// lookup is a name's id, or -1 when the census never saw it.
func (n *interner) lookup(s string) int32 {
	if id, ok := n.ids[s]; ok {
		return id
	}
	return -1
}

func (n *interner) str(id int32) string { return n.strs[id] }

// order keeps the interner's ids sorted in one order of the names, as far as the names it has
// seen, so that the next ranks sorts only the names added since and merges them in: the census
// ranks its names at every run it writes, and a run of a million bindings has a hundred thousand
// version names, whose comparison (result.CompareVersions) parses them.
type order struct {
	compare func(a, b string) int
	ids     []int32 // sorted
}

// ranks gives each id its place in o's order of the names.
func (n *interner) ranks(o *order) []int32 {
	if len(o.ids) < len(n.strs) {
		cmpIDs := func(a, b int32) int { return o.compare(n.strs[a], n.strs[b]) }
		fresh := make([]int32, 0, len(n.strs)-len(o.ids))
		for id := len(o.ids); id < len(n.strs); id++ {
			fresh = append(fresh, int32(id))
		}
		slices.SortFunc(fresh, cmpIDs)
		merged := make([]int32, 0, len(n.strs))
		i, j := 0, 0
		for i < len(o.ids) && j < len(fresh) {
			if cmpIDs(o.ids[i], fresh[j]) <= 0 {
				merged = append(merged, o.ids[i])
				i++
			} else {
				merged = append(merged, fresh[j])
				j++
			}
		}
		o.ids = append(append(merged, o.ids[i:]...), fresh[j:]...)
	}
	rank := make([]int32, len(o.ids))
	for r, id := range o.ids {
		rank[id] = int32(r)
	}
	return rank
}

// sameDiagnostics reports whether two variants' diagnostics are the same: their canonical
// encodings, none being the empty list's (a reading's diagnostics hash is of its list, "[]" for
// none). Most variants that differ differ in the first bytes of their hash; the others' bytes are
// read back and compared.
func (c *Census) sameDiagnostics(a, b int32) bool {
	if a < 0 || b < 0 || a == b {
		return a == b
	}
	return c.variants.sameDiagnostics(c.variants.at(a), c.variants.at(b))
}

// sameDiagnostics is Census.sameDiagnostics on two distinct readings as their stream keeps them.
func (vs *variants) sameDiagnostics(va, vb *variantData) bool {
	if va.diagnosed != vb.diagnosed {
		return false
	}
	return bytes.Equal(vs.diagnosticsBytes(va), vs.diagnosticsBytes(vb))
}

// emptyDiagnostics is the canonical encoding of no diagnostics (result.MarshalDiagnostics).
var emptyDiagnostics = []byte("[]")

// diagnosticsBytes is a variant's diagnostics' canonical encoding, the empty list's for none.
func (vs *variants) diagnosticsBytes(vd *variantData) []byte {
	_, d := mustGetBlob(&vs.blobs, vd.blob)
	if d == nil {
		return emptyDiagnostics
	}
	return d
}
