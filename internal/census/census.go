// Package census is step 6 of the pipeline (strict JSON → schema → contract → projector → policy →
// census → report): it collapses repetitions into one outcome per binding, localizes where a
// distinction was lost, counts divergences between lanes and applies the profile's gate. It is pure
// bookkeeping over readings the policy step produced, so it is deterministic by construction: every
// map it fills is read back in sorted order.
//
// It holds a million bindings in little memory: names are interned, a binding is six name ids and
// a list of repetitions, and what repetitions read (outcome, readout, diagnostics) is kept once per
// distinct reading. The report's results and upgrade changes are made from this compact form when
// they are read, one at a time (result.Results), never all at once.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package census

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Census accumulates readings. Add is not safe for concurrent use: one collector owns it.
type Census struct {
	model       *contract.Model
	profileName string
	profile     contract.Profile
	scope       *result.Scope // what the run was restricted to, nil when it was not

	names    interner
	table    bindingTable
	recs     paged[record] // every observation record read
	groups   []group       // what records share (record.group)
	groupIDs map[group]int32
	slots    paged[slot]     // every binding
	extra    paged[extraRep] // every repetition of a binding after its first
	lastRec  lastRecord
	variants variants
	// many indexes the repetitions of a slot with more than a few (repetition number to record),
	// so that recording N repetitions of one position costs O(N), not O(N²).
	many map[int32]map[int32]int32
}

// key is a binding as interned names.
type key struct{ fixture, lane, version, configuration, stage, task int32 }

// smallReps is how many repetitions a binding holds before they are indexed: captures record
// three, and a walk of a few beats a map.
const smallReps = 8

// Restrict records that the run was restricted to a scope: the report says so, and a requirement
// that gates nothing within it is out of scope rather than an error, as long as another one gates
// something. A zero scope restricts nothing and is not recorded.
func (c *Census) Restrict(s result.Scope) {
	if !s.IsZero() {
		c.scope = &s
	}
}

// New starts a census for a profile of a model.
func New(m *contract.Model, profileName string) (*Census, error) {
	p, ok := m.Profiles[profileName]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (the contracts define %s)", profileName, strings.Join(contract.SortedKeys(m.Profiles), ", "))
	}
	c := &Census{model: m, profileName: profileName, profile: p, names: newInterner(), variants: newVariants(),
		many: map[int32]map[int32]int32{}, groupIDs: map[group]int32{}, lastRec: lastRecord{id: -1}}
	c.table.init()
	return c, nil
}

// Add records one reading. A second reading of the same repetition is an input error: the
// observation records repeat themselves. Readings of one record are expected one after another
// (Add keeps what they share once); any order is correct.
func (c *Census) Add(r result.Reading) error {
	if c.table.cells == nil {
		c.table.rebuild(c) // Report let the table go
	}
	rec := c.recordOf(r)
	k := c.keyOf(c.recs.at(rec), c.names.id(r.Task))
	s, found := c.table.find(k, c)
	number := int32(r.Repetition)
	n := int32(0) // the slot's repetitions, when they are not indexed
	if found {
		prev := int32(-1)
		if idx := c.many[s]; idx != nil {
			if i, ok := idx[number]; ok {
				prev = i
			}
		} else {
			c.reps(s, func(rec, _ int32) bool {
				n++
				if c.recs.at(rec).number == number {
					prev = rec
					return false
				}
				return true
			})
		}
		if prev >= 0 {
			first := c.recs.at(prev)
			return fmt.Errorf("%s:%d: %s %s %s %s %s: repetition %d recorded twice (first at %s:%d)", r.File, r.Line, r.Fixture, r.Lane,
				r.LaneVersion, r.Configuration, r.Stage, r.Repetition, c.names.str(c.groupOf(first).file), first.line)
		}
	}
	v, err := c.variants.intern(r)
	if err != nil {
		return err
	}
	if !found {
		s = c.slots.add(slot{rec: rec, task: k.task, variant: v, more: -1})
		c.table.insert(s, c)
		return nil
	}
	sl := c.slots.at(s)
	sl.more = c.extra.add(extraRep{prev: sl.more, rec: rec, variant: v})
	switch idx := c.many[s]; {
	case idx != nil:
		idx[number] = rec
	case n+1 > smallReps:
		idx = make(map[int32]int32, 2*(n+1))
		c.reps(s, func(rec, _ int32) bool {
			idx[c.recs.at(rec).number] = rec
			return true
		})
		c.many[s] = idx
	}
	return nil
}

// repsOf lists a slot's repetitions in repetition order.
func (c *Census) repsOf(s int32) []rep {
	var out []rep
	c.reps(s, func(rec, variant int32) bool {
		out = append(out, rep{rec: rec, number: c.recs.at(rec).number, variant: variant})
		return true
	})
	slices.SortFunc(out, func(a, b rep) int { return int(a.number) - int(b.number) })
	return out
}

// collapsed is a binding's outcome when its repetitions agree: the reading's variant; -1 when
// they disagree (unstable). An ambiguous repetition (contractcheck record saw the item but could
// not prove which result it carried: docs/record.md, "Pairing") says nothing of the binding and
// is set aside, so that it never makes a binding unstable; a binding whose every repetition is
// ambiguous is ambiguous.
func (c *Census) collapsed(s int32) int32 {
	const none = -2
	v, amb := int32(none), int32(-1)
	c.reps(s, func(_, variant int32) bool {
		switch {
		case c.variants.at(variant).outcome == result.Ambiguous:
			amb = variant
		case v == none:
			v = variant
		case variant != v:
			v = -1
		}
		return v != -1
	})
	if v == none {
		return amb
	}
	return v
}

// outcome is a slot's collapsed outcome.
func (c *Census) outcome(s int32) string {
	v := c.collapsed(s)
	if v < 0 {
		return result.Unstable
	}
	return c.variants.at(v).outcome
}

// first is the record of a slot's lowest repetition: its origin and error stand for the binding.
func (c *Census) first(s int32) *record {
	best := c.recs.at(c.slots.at(s).rec)
	c.reps(s, func(rec, _ int32) bool {
		if r := c.recs.at(rec); r.number < best.number {
			best = r
		}
		return true
	})
	return best
}

// Report collapses the readings and computes localizations, divergences, upgrades and the gate.
func (c *Census) Report() *result.Report {
	order := c.sorted()
	results := &compactResults{c: c, order: order}
	r := &result.Report{
		ReportVersion: result.Version,
		Profile:       c.profileName,
		NullPolicy:    c.profile.NullPolicy,
		Scope:         c.scope,
		Results:       results,
	}
	if c.profile.Cohort != nil {
		co := c.profile.Cohort.Scope()
		r.Cohort = &co
	}
	// The upgrades are the one part that looks bindings up (a version's binding at the version
	// before it): their pairs are found first, and then the table (a cell per two bindings or
	// fewer, 4 bytes each: 8 MB at a million bindings, 128 MB at ten million) and the readings'
	// index (some 40 bytes a distinct reading) are let go before the other parts are made: the
	// report never looks a binding or a reading up again, and the parts, the order and the report
	// being written are the run's peak. A later Add makes both again.
	ups := c.upgradePairs(order)
	c.table.release()
	c.variants.release()
	r.Upgrades = c.upgrades(ups)
	for _, s := range order {
		r.Summary.Add(c.outcome(s))
	}
	r.Gate = c.gate(order)
	r.Localizations = c.localize(order)
	r.Divergences = c.divergences(order, func(int32) bool { return true })
	capturedID := c.names.lookup("captured")
	r.CapturedDivergences = c.divergences(order, func(s int32) bool { return c.groupOf(c.first(s)).origin == capturedID })
	r.Reported = c.reported(order)
	return r
}

// sorted orders the slots by fixture, lane, version, configuration, stage (in pipeline order) and
// task, as positions sort. No two slots have the same key, so the order is the one order of the
// keys however it is found: the slots are placed by fixture first (counted, then placed, so no
// second list), and each fixture's run is sorted by one of as many goroutines as there are
// processors (the sort of a million slots was 0.8 s on one).
func (c *Census) sorted() []int32 {
	rank := c.names.ranks(cmp.Compare[string])
	vrank := c.names.ranks(result.CompareVersions)
	stage := make(map[int32]int, 4)
	starts := make([]int, len(rank)+1) // by fixture rank: where its run starts, then where it ends
	for i := range c.slots.len() {
		k := c.key(int32(i))
		starts[rank[k.fixture]+1]++
		if _, ok := stage[k.stage]; !ok {
			stage[k.stage] = contract.StageIndex(c.names.str(k.stage))
		}
	}
	for f := 1; f < len(starts); f++ {
		starts[f] += starts[f-1]
	}
	order := make([]int32, c.slots.len())
	next := slices.Clone(starts[:len(starts)-1])
	for i := range c.slots.len() {
		f := rank[c.key(int32(i)).fixture]
		order[next[f]] = int32(i)
		next[f]++
	}
	cmp := func(x, y int32) int {
		a, b := c.key(x), c.key(y)
		switch {
		case a.fixture != b.fixture:
			return rank[a.fixture] - rank[b.fixture]
		case a.lane != b.lane:
			return rank[a.lane] - rank[b.lane]
		case a.version != b.version:
			return vrank[a.version] - vrank[b.version]
		case a.configuration != b.configuration:
			return rank[a.configuration] - rank[b.configuration]
		case a.stage != b.stage:
			return stage[a.stage] - stage[b.stage]
		}
		return rank[a.task] - rank[b.task]
	}
	var runs atomic.Int64 // the next fixture rank to sort
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for f := int(runs.Add(1)) - 1; f < len(starts)-1; f = int(runs.Add(1)) - 1 {
				if run := order[starts[f]:starts[f+1]]; len(run) > 1 {
					slices.SortFunc(run, cmp)
				}
			}
		})
	}
	wg.Wait()
	return order
}

// selection is what requirements see of a slot.
func (c *Census) selection(s int32) contract.Selection {
	k := c.key(s)
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

// result makes a slot's report result: the common reading when every repetition agrees, else
// outcome unstable with each variant (no majority vote).
func (c *Census) result(s int32) result.Result {
	res, vd := c.resultHeld(s, true)
	if vd != nil {
		res.Readout, res.Diagnostics = c.variants.values(vd)
	}
	return res
}

// resultHeld is result without the common reading's readout and diagnostics, and the variant that
// holds them in their canonical encoding (nil when the repetitions disagree); the variants of
// disagreeing repetitions have theirs when values is set, none when it is not.
func (c *Census) resultHeld(s int32, values bool) (result.Result, *variantData) {
	sel := c.selection(s)
	fixture := c.model.Fixtures[sel.Fixture]
	reps := c.repsOf(s)
	first := c.groupOf(c.recs.at(reps[0].rec))
	res := result.Result{
		Fixture: sel.Fixture, Suite: fixture.Suite, Family: fixture.Family,
		Lane: sel.Lane, LaneVersion: sel.LaneVersion, Configuration: sel.Configuration, Stage: sel.Stage,
		Task: sel.Task, Role: c.role(sel.Fixture, sel.Task), Compartment: c.model.Tasks[sel.Task].Compartment,
		Origin: c.names.str(first.origin), Repetitions: len(reps), Records: make([]result.RecordRef, len(reps)),
	}
	for i, rp := range reps {
		rc := c.recs.at(rp.rec)
		res.Records[i] = result.RecordRef{File: c.names.str(c.groupOf(rc).file), Line: int(rc.line), Repetition: int(rp.number)}
	}
	var held *variantData
	if v := c.collapsed(s); v >= 0 {
		held = c.variants.at(v)
		res.Outcome = held.outcome
		if first.err >= 0 {
			res.Error = c.names.str(first.err)
		}
	} else {
		res.Outcome = result.Unstable
		byVariant := map[int32]int{}
		for _, rp := range reps {
			i, ok := byVariant[rp.variant]
			if !ok {
				vd := c.variants.at(rp.variant)
				i = len(res.Variants)
				byVariant[rp.variant] = i
				v := result.Variant{Outcome: vd.outcome}
				if values {
					v.Readout, v.Diagnostics = c.variants.values(vd)
				}
				res.Variants = append(res.Variants, v)
			}
			res.Variants[i].Repetitions = append(res.Variants[i].Repetitions, int(rp.number))
		}
	}
	res.RequiredBy = c.requiredBy(sel, res.Outcome)
	res.Required = len(res.RequiredBy) > 0
	return res, held
}

// resultsWhere makes the results of the slots whose key keep selects, in report order: for the
// parts of a report that need whole results of a few bindings.
func (c *Census) resultsWhere(order []int32, keep func(key) bool) []result.Result {
	var out []result.Result
	for _, s := range order {
		if keep(c.key(s)) {
			out = append(out, c.result(s))
		}
	}
	return out
}

// compactResults are the report's results, made from the census when read.
type compactResults struct {
	c     *Census
	order []int32
}

func (r *compactResults) Len() int               { return len(r.order) }
func (r *compactResults) At(i int) result.Result { return r.c.result(r.order[i]) }

// HeadAt implements result.HeadResults: the result without decoding a reading.
func (r *compactResults) HeadAt(i int) result.Result {
	res, _ := r.c.resultHeld(r.order[i], false)
	return res
}

// AppendJSON implements result.Appender: the readout and diagnostics are written from their
// canonical encoding, not decoded (TestAppendJSONIsAt).
func (r *compactResults) AppendJSON(dst []byte, i int) ([]byte, error) {
	res, vd := r.c.resultHeld(r.order[i], true)
	readout, diagnostics, err := r.c.variants.encoded(vd)
	if err != nil {
		return dst, err
	}
	return result.AppendResult(dst, &res, readout, diagnostics)
}

// variants interns what repetitions read: the outcome, readout and diagnostics, once per distinct
// reading (the fingerprint repetitions must agree on).
type variants struct {
	index map[[sha256.Size]byte]int32
	list  paged[variantData]
	blobs blobs // the readouts and diagnostics
}

// variantData is one distinct reading. The readout and diagnostics are kept in their canonical
// encoding (strictjson.Marshal) in the census's byte stream (blobs), and decoded when a result is
// made: as Go maps a reading costs about a kilobyte, and a run whose diagnostics name each version
// (a _meta entry carrying it) has a distinct reading per version and stage, a third of the census
// at a million bindings (docs/design.md, "Speed and memory").
type variantData struct {
	outcome   string
	blob      blob              // the readout and diagnostics, each none (nil) when its length is 0
	diagnosed [sha256.Size]byte // the diagnostics' own hash, which upgrades compare
}

func newVariants() variants {
	return variants{index: map[[sha256.Size]byte]int32{}, blobs: blobs{limit: spillAfter}}
}

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
	if id, ok := vs.index[fp]; ok {
		return id, nil
	}
	d, err := result.MarshalDiagnostics(r.Diagnostics)
	if err != nil {
		return 0, fmt.Errorf("fingerprint %s %s: %w", r.Fixture, r.Task, err)
	}
	vd := variantData{outcome: r.Outcome, diagnosed: sha256.Sum256(d)}
	var readout, diagnostics []byte
	if r.Diagnostics != nil {
		diagnostics = d
	}
	if r.Readout != nil {
		if readout, err = strictjson.Marshal(r.Readout); err != nil {
			return 0, fmt.Errorf("readout %s %s: %w", r.Fixture, r.Task, err)
		}
	}
	if vd.blob, err = vs.blobs.add(readout, diagnostics); err != nil {
		return 0, fmt.Errorf("keep the reading of %s %s: %w", r.Fixture, r.Task, err)
	}
	id := vs.list.add(vd)
	vs.index[fp] = id
	return id, nil
}

// release lets the index go (a report never interns a reading); rebuild makes it again.
func (vs *variants) release() { vs.index = nil }

// rebuild makes the index of every variant again, after release: each variant's fingerprint is
// that of its readout and diagnostics decoded from their canonical bytes, which are the values
// the fingerprint was first computed on.
func (vs *variants) rebuild() error {
	vs.index = make(map[[sha256.Size]byte]int32, vs.list.len())
	for v := range vs.list.len() {
		vd := vs.list.at(v)
		r, d, err := vs.blobs.get(vd.blob)
		if err != nil {
			return fmt.Errorf("index the readings again: %w", err)
		}
		fp, err := result.Fingerprint(vd.outcome, readoutValue(r), diagnosticsOf(d))
		if err != nil {
			return fmt.Errorf("index the readings again: %w", err)
		}
		vs.index[fp] = v
	}
	return nil
}

// at is variant v, in place.
func (vs *variants) at(v int32) *variantData { return vs.list.at(v) }

// encoded is the canonical encoding of a variant's readout and diagnostics, each nil for none;
// both nil for no variant.
func (vs *variants) encoded(vd *variantData) (readout, diagnostics []byte, err error) {
	if vd == nil {
		return nil, nil, nil
	}
	return vs.blobs.get(vd.blob)
}

// values is a variant's readout and diagnostics as the policy gave them, each nil for none.
func (vs *variants) values(vd *variantData) (map[string]any, []result.Diagnostic) {
	r, d := vs.blobs.mustGet(vd.blob)
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

// ranks gives each id its place in the order compare gives the names.
func (n *interner) ranks(compare func(a, b string) int) []int {
	ids := make([]int32, len(n.strs))
	for i := range ids {
		ids[i] = int32(i)
	}
	slices.SortFunc(ids, func(a, b int32) int { return compare(n.strs[a], n.strs[b]) })
	rank := make([]int, len(ids))
	for r, id := range ids {
		rank[id] = r
	}
	return rank
}

// bindingTable finds a binding's slot: open addressing over slot indices, the keys themselves
// made from the census's slots and records.
type bindingTable struct {
	cells []int32 // slot+1, 0 for empty
	used  int
}

func (t *bindingTable) init() { t.cells = make([]int32, 1024) }

// release lets the cells go; rebuild makes them again.
func (t *bindingTable) release() { t.cells, t.used = nil, 0 }

// rebuild makes the cells of every slot of c again, after release.
func (t *bindingTable) rebuild(c *Census) {
	n := 1024
	for n < 2*int(c.slots.len())+2 {
		n *= 2
	}
	t.cells, t.used = make([]int32, n), 0
	for s := range c.slots.len() {
		t.place(c.key(s), s)
	}
}

func hashKey(k key) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range [6]int32{k.fixture, k.lane, k.version, k.configuration, k.stage, k.task} {
		h ^= uint64(uint32(x))
		h *= 1099511628211
		h ^= h >> 29
	}
	return h
}

func (t *bindingTable) find(k key, c *Census) (int32, bool) {
	mask := uint64(len(t.cells) - 1)
	for i := hashKey(k) & mask; ; i = (i + 1) & mask {
		cell := t.cells[i]
		if cell == 0 {
			return 0, false
		}
		if c.key(cell-1) == k {
			return cell - 1, true
		}
	}
}

// insert adds slot s, whose key find did not find.
func (t *bindingTable) insert(s int32, c *Census) {
	if 2*(t.used+1) > len(t.cells) {
		old := t.cells
		t.cells = make([]int32, 2*len(old))
		t.used = 0
		for _, cell := range old {
			if cell != 0 {
				t.place(c.key(cell-1), cell-1)
			}
		}
	}
	t.place(c.key(s), s)
}

func (t *bindingTable) place(k key, s int32) {
	mask := uint64(len(t.cells) - 1)
	i := hashKey(k) & mask
	for t.cells[i] != 0 {
		i = (i + 1) & mask
	}
	t.cells[i] = s + 1
	t.used++
}

// sameDiagnostics reports whether two variants' diagnostics are the same.
func (c *Census) sameDiagnostics(a, b int32) bool {
	if a < 0 || b < 0 {
		return a == b
	}
	return c.variants.at(a).diagnosed == c.variants.at(b).diagnosed
}
