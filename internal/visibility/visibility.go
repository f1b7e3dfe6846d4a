// Package visibility is the channel-visibility readout (docs/visibility.md): for every lane,
// version, configuration and model-facing stage, which channels of a source result (its content,
// its structuredContent, its isError marker) reach the carrier, and from those one category per
// group — content-only, structured-first, both, fallback, neither, or mixed. The judging is a Rego
// policy (contract model `visibility.policy`, built in contractcheck.visibility) with two rules:
// channels, evaluated on each record of a selected fixture at a selected stage, and category,
// evaluated once per group on the channels of its fixtures. This package prepares both queries,
// builds their inputs from the same views the tasks read, and collects the readings into the
// report's Visibility list.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package visibility

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/spill"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Compartments are the compartments whose views the channels rule reads, by the names the
// built-in tasks give them: the content list, the structured slot (with its content list) and the
// error flag. A stage that binds none of a name reads an empty view there.
var Compartments = []string{"content", "structured", "error"}

// Viewer reads sources through the contract model's canonical binding (the check instrument).
type Viewer interface {
	// SourceView is a fixture's W0 result through the canonical binding.
	SourceView(fixture string) project.View
}

// Observe reads a record's carrier through one compartment of its lane's stage: the view and the
// sha256 of its canonical encoding. The check instrument gives the views its tasks read, cached
// by the carrier's bytes, so a record the tasks projected is not projected again.
type Observe func(compartment string) (project.View, [sha256.Size]byte, error)

// Reading is the channels of one record (nil Channels unless it was captured).
type Reading struct {
	Group      Group
	Fixture    string
	Repetition int
	State      string
	Channels   map[string]string
	Record     string // file:line
}

// Group is a lane, version, configuration and stage: what one category describes.
type Group struct {
	Lane, Version, Configuration, Stage string
}

// Reader evaluates the visibility policy. It is safe for concurrent use.
type Reader struct {
	model     *contract.Model
	viewer    Viewer
	policy    string
	channels  *policy.ReadoutQuery
	category  *policy.ReadoutQuery
	stages    map[string]bool
	fixtures  map[string]bool
	sourceMu  sync.Mutex
	sources   map[string]*ast.Term // fixture → source view term
	bindingMu sync.Mutex
	bindings  map[[2]string]*ast.Term // lane, stage → binding term
	// memo is the readouts' memo, made on first use (readouts) and again after Release.
	memo     atomic.Pointer[lru.Cache[memoKey, map[string]string]]
	interned sync.Map // a channels readout's canonical text → the one map kept for it
}

// memoSize is how many channels readouts the memo keeps, the most recently used: repetitions and
// shared carriers repeat views, and they come close together in the records. The memo had kept
// the first 65,536 readouts for the rest of the run, which a million distinct records filled with
// views never seen again: 8 MB of the live heap at the end of the stream. 4,096 is the most it
// held when it kept two generations of 2,048.
const memoSize = 4 << 10

type memoKey struct {
	fixture, lane, stage string
	views                [sha256.Size]byte
}

// New prepares the visibility policy the model names on the engine, for the stages of a profile.
// It returns nil, and no error, when the model selects no fixture or no stage: there is nothing
// to read.
// kinds gives the kinds of block each fixture's W0 content holds (for a blockKinds selector).
func New(ctx context.Context, model *contract.Model, profile string, kinds map[string][]string, eng *policy.Engine, viewer Viewer) (*Reader, error) {
	r := &Reader{model: model, viewer: viewer, policy: model.Visibility.Policy, stages: map[string]bool{}, fixtures: map[string]bool{},
		sources: map[string]*ast.Term{}, bindings: map[[2]string]*ast.Term{}}
	for _, s := range model.VisibilityStages(profile) {
		r.stages[s] = true
	}
	for id, f := range model.Fixtures {
		if model.Visibility.Fixtures.Selects(id, f, kinds[id]) {
			r.fixtures[id] = true
		}
	}
	if len(r.stages) == 0 || len(r.fixtures) == 0 {
		return nil, nil
	}
	var err error
	if r.channels, err = eng.PrepareRule(ctx, r.policy, "channels"); err != nil {
		return nil, fmt.Errorf("visibility policy (contracts: visibility.policy): %w", err)
	}
	if r.category, err = eng.PrepareRule(ctx, r.policy, "category"); err != nil {
		return nil, fmt.Errorf("visibility policy (contracts: visibility.policy): %w", err)
	}
	return r, nil
}

// readouts is the readouts' memo, made on first use.
func (r *Reader) readouts() *lru.Cache[memoKey, map[string]string] {
	if m := r.memo.Load(); m != nil {
		return m
	}
	m, err := lru.New[memoKey, map[string]string](memoSize)
	if err != nil {
		panic(fmt.Sprintf("visibility: a memo of %d readouts: %v", memoSize, err)) // memoSize is positive: lru.New fails on nothing else
	}
	r.memo.CompareAndSwap(nil, m)
	return r.memo.Load()
}

// Release forgets what the reader remembered of the records it read (their readouts, the
// fixtures' source views and the stages' bindings as the policy reads them); a Read after it
// remembers afresh. A run calls it once its records are all read, as it calls the instrument's
// ReleaseCaches. Release on a nil Reader (nothing to read) does nothing.
func (r *Reader) Release() {
	if r == nil {
		return
	}
	r.memo.Store(nil)
	r.sourceMu.Lock()
	r.sources = map[string]*ast.Term{}
	r.sourceMu.Unlock()
	r.bindingMu.Lock()
	r.bindings = map[[2]string]*ast.Term{}
	r.bindingMu.Unlock()
}

// Policy is the package the reader evaluates.
func (r *Reader) Policy() string { return r.policy }

// Reads reports whether a record of this fixture at this stage gets a reading.
func (r *Reader) Reads(fixture, stage string) bool {
	return r != nil && r.fixtures[fixture] && r.stages[stage]
}

// Read evaluates the channels rule on one record, its envelope rec, reading its carrier through
// observe (called only for a captured record); nil when the record gets no reading (Reads), or
// records a stage the lane does not expose (not_applicable, not_observable): nothing was there to
// reach the model.
func (r *Reader) Read(ctx context.Context, rec result.Observation, observe Observe) (*Reading, error) {
	if !r.Reads(rec.Fixture, rec.Stage) || rec.State == "not_applicable" || rec.State == "not_observable" || !r.binds(rec.Lane, rec.Stage) {
		return nil, nil
	}
	out := &Reading{
		Group:   Group{rec.Lane, rec.LaneVersion, rec.Configuration, rec.Stage},
		Fixture: rec.Fixture, Repetition: rec.Repetition, State: rec.State,
		Record: fmt.Sprintf("%s:%d", rec.File, rec.Line),
	}
	if rec.State != "captured" {
		return out, nil
	}
	views := map[string]any{}
	h := sha256.New()
	for _, c := range Compartments {
		v, sum, err := observe(c)
		if err != nil {
			return nil, fmt.Errorf("%s: visibility: %w", out.Record, err)
		}
		h.Write([]byte(c))
		h.Write(sum[:])
		views[c] = v
	}
	k := memoKey{rec.Fixture, rec.Lane, rec.Stage, [sha256.Size]byte(h.Sum(nil))}
	if v, ok := r.readouts().Get(k); ok {
		out.Channels = v
		return out, nil
	}
	observed, err := policy.Input(views)
	if err != nil {
		return nil, fmt.Errorf("%s: visibility: %w", out.Record, err)
	}
	src, err := r.source(rec.Fixture)
	if err != nil {
		return nil, err
	}
	input := ast.NewObject(
		[2]*ast.Term{ast.StringTerm("fixture"), ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("id"), ast.StringTerm(rec.Fixture)},
			[2]*ast.Term{ast.StringTerm("family"), ast.StringTerm(r.model.Fixtures[rec.Fixture].Family)})},
		[2]*ast.Term{ast.StringTerm("stage"), ast.StringTerm(rec.Stage)},
		[2]*ast.Term{ast.StringTerm("source"), src},
		[2]*ast.Term{ast.StringTerm("observed"), ast.NewTerm(observed)},
		[2]*ast.Term{ast.StringTerm("binding"), r.binding(rec.Lane, rec.Stage)},
	)
	ro, err := r.channels.Eval(ctx, input)
	if err != nil {
		return nil, fmt.Errorf("%s: visibility policy %s: %w", out.Record, r.policy, err)
	}
	ch, err := names(ro, "channels")
	if err != nil {
		return nil, fmt.Errorf("%s: visibility policy %s: %w", out.Record, r.policy, err)
	}
	ch = r.intern(ch)
	r.readouts().Add(k, ch)
	out.Channels = ch
	return out, nil
}

// binds reports whether a lane's stage binds any of the Compartments or declares it unbound: in
// a model of a user's own (--no-builtin) whose compartments go by other names the readout has
// nothing to read, which is not "neither".
func (r *Reader) binds(lane, stage string) bool {
	st := r.model.Lanes[lane].Stages[stage]
	for _, c := range Compartments {
		if _, ok := st.Compartments[c]; ok {
			return true
		}
		if _, ok := st.Unbound[c]; ok {
			return true
		}
	}
	return false
}

// intern returns the map kept for readouts equal to ch: a collector holds one per group and
// fixture, and they take a handful of values.
func (r *Reader) intern(ch map[string]string) map[string]string {
	var b strings.Builder
	for _, k := range contract.SortedKeys(ch) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(ch[k])
		b.WriteByte(0)
	}
	v, _ := r.interned.LoadOrStore(b.String(), ch)
	return v.(map[string]string)
}

func (r *Reader) source(fixture string) (*ast.Term, error) {
	r.sourceMu.Lock()
	defer r.sourceMu.Unlock()
	if t, ok := r.sources[fixture]; ok {
		return t, nil
	}
	v, err := policy.Input(r.viewer.SourceView(fixture))
	if err != nil {
		return nil, fmt.Errorf("fixture %s: visibility: %w", fixture, err)
	}
	t := ast.NewTerm(v)
	r.sources[fixture] = t
	return t, nil
}

// binding is the stage's structured slot binding as the policy reads it: {"structured": {path,
// decode, inner?}}, or {} when the stage binds no structured slot.
func (r *Reader) binding(lane, stage string) *ast.Term {
	r.bindingMu.Lock()
	defer r.bindingMu.Unlock()
	k := [2]string{lane, stage}
	if t, ok := r.bindings[k]; ok {
		return t
	}
	obj := ast.NewObject()
	if c, ok := r.model.Lanes[lane].Stages[stage].Compartments["structured"]; ok && c.Structured != nil {
		f := ast.NewObject(
			[2]*ast.Term{ast.StringTerm("path"), ast.StringTerm(c.Structured.Path)},
			[2]*ast.Term{ast.StringTerm("decode"), ast.StringTerm(c.Structured.Decode)})
		if c.Structured.Inner != nil {
			f.Insert(ast.StringTerm("inner"), ast.StringTerm(*c.Structured.Inner))
		}
		obj.Insert(ast.StringTerm("structured"), ast.NewTerm(f))
	}
	t := ast.NewTerm(obj)
	r.bindings[k] = t
	return t
}

// word is what a channel, shape or category may be called: it is printed in every report.
var word = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// key is what a channel may be called (content, structured, isError).
var key = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{0,39}$`)

// maxChannels bounds the channels one readout names.
const maxChannels = 16

// names reads an object of words (a channels readout, the shapes of a category); channels has
// keys of its own to check, shapes is keyed by the group's fixtures.
func names(v any, what string) (map[string]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, want an object", what, v)
	}
	if what == "channels" && len(m) > maxChannels {
		return nil, fmt.Errorf("channels names %d channels, at most %d", len(m), maxChannels)
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		if what == "channels" && !key.MatchString(k) {
			return nil, fmt.Errorf("channels has the key %q, want a name (%s)", k, key)
		}
		s, ok := x.(string)
		if !ok || !word.MatchString(s) {
			return nil, fmt.Errorf("%s[%q] is %s, want a lowercase word (%s)", what, k, describe(x), word)
		}
		out[k] = s
	}
	return out, nil
}

func words(v any, what string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is %T, want a list", what, v)
	}
	out := make([]string, len(list))
	for i, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d] is %s, want a string", what, i, describe(x))
		}
		out[i] = s
	}
	return out, nil
}

func describe(v any) string {
	b, err := strictjson.Marshal(v)
	if err != nil || len(b) > 80 {
		return fmt.Sprintf("a %T", v)
	}
	return string(b)
}

// Collector gathers readings, in any order, into the report's Visibility list. It keeps one entry
// per group and fixture, not one per record: the first repetition's state, channels and record,
// and whether another repetition disagreed. A run has a group per lane version and stage read,
// so the entries grow with the versions a set holds (tens of thousands at a million bindings,
// some 200,000 at ten million), and they are live to the end of the report: an entry keeps no
// reading and no string of its own, only ids of the names the collector keeps once (a reading's
// are its record's, one copy a record), its record as a file's id and a line, and the channels
// the reader interned; a group is its names' ids and its entries, an entry found by its
// fixture's id in the group (a scan of a group's few entries; a map of its own for a group of many:
// a map of every group's entries was a third of the collector, some 4 MB at ten million bindings).
// The report's list is made of the same entries (Report), each group made when read. Once the
// groups hold entriesInMemory entries they are written out as a sorted run and merged at the
// report, the judged groups then kept in a byte stream, not the heap (runs.go).
type Collector struct {
	r        *Reader
	ids      map[string]int32 // the names entries and groups keep, each once, by id
	strs     []string
	groupIDs map[[4]int32]int32 // lane, version, configuration and stage → index in groups
	groups   []collected
	held     int // the entries groups hold
	// runs are the entries written out each time held reached entriesInMemory (runs.go).
	runs runs
}

// collected is one group's entries: its lane, version, configuration and stage, as ids.
type collected struct {
	key     [4]int32
	entries []entry
	// byFixture finds an entry by its fixture's id once the group has more than scanEntries;
	// until then a scan of the entries does.
	byFixture map[int32]int32
}

// scanEntries is how many entries a group finds by a scan before it keeps a map of them: a group
// (a lane version and a stage) mostly has a few fixtures, a suite's at most.
const scanEntries = 16

// find is the index of fixture's entry in the group, if it has one.
func (gr *collected) find(fixture int32) (int32, bool) {
	if gr.byFixture != nil {
		i, ok := gr.byFixture[fixture]
		return i, ok
	}
	for i := range gr.entries {
		if gr.entries[i].fixture == fixture {
			return int32(i), true
		}
	}
	return 0, false
}

// add appends e to the group's entries and returns its index.
func (gr *collected) add(e entry) int32 {
	i := int32(len(gr.entries))
	gr.entries = append(gr.entries, e)
	switch {
	case gr.byFixture != nil:
		gr.byFixture[e.fixture] = i
	case len(gr.entries) > scanEntries:
		gr.byFixture = make(map[int32]int32, 2*len(gr.entries))
		for j := range gr.entries {
			gr.byFixture[gr.entries[j].fixture] = int32(j)
		}
	}
	return i
}

// entry is what a group's records of one fixture read: the lowest repetition's state, channels
// and record (file and line), and whether any repetition read otherwise; once the group is
// judged (Report), the shape the category rule gave it. Names are the collector's ids.
type entry struct {
	fixture, state, file, shape int32
	repetition                  int32
	unstable                    bool
	line                        int
	channels                    map[string]string
}

// NewCollector collects the readings of r (nil: none).
func NewCollector(r *Reader) *Collector {
	return &Collector{r: r, ids: map[string]int32{}, groupIDs: map[[4]int32]int32{}}
}

// id is the id of name s, a copy of which the collector keeps once.
func (c *Collector) id(s string) int32 {
	if id, ok := c.ids[s]; ok {
		return id
	}
	s = strings.Clone(s)
	id := int32(len(c.strs))
	c.ids[s] = id
	c.strs = append(c.strs, s)
	return id
}

// Add keeps one reading; nil is ignored. Readings are added before Report, never after it.
func (c *Collector) Add(rd *Reading) {
	if rd == nil {
		return
	}
	key := [4]int32{c.id(rd.Group.Lane), c.id(rd.Group.Version), c.id(rd.Group.Configuration), c.id(rd.Group.Stage)}
	g, ok := c.groupIDs[key]
	if !ok {
		g = int32(len(c.groups))
		c.groups = append(c.groups, collected{key: key})
		c.groupIDs[key] = g
	}
	gr := &c.groups[g]
	fixture := c.id(rd.Fixture)
	i, ok := gr.find(fixture)
	if !ok {
		i = gr.add(entry{fixture: fixture, repetition: -1})
		c.held++
		defer c.spillFull()
	}
	e := &gr.entries[i]
	if ok && (rd.State != c.strs[e.state] || !maps.Equal(rd.Channels, e.channels)) {
		e.unstable = true
	}
	if e.repetition < 0 || rd.Repetition < int(e.repetition) {
		file, line := splitRecord(rd.Record)
		e.state, e.channels, e.file, e.line, e.repetition = c.id(rd.State), rd.Channels, c.id(file), line, int32(min(rd.Repetition, math.MaxInt32))
	}
}

// splitRecord splits a reading's record, file:line, at its last colon (a file name may hold one);
// a record that is not file:line as Read writes it is kept whole, line -1.
func splitRecord(record string) (string, int) {
	i := strings.LastIndexByte(record, ':')
	if i < 0 {
		return record, -1
	}
	line, err := strconv.Atoi(record[i+1:])
	if err != nil || line < 0 || strconv.Itoa(line) != record[i+1:] {
		return record, -1
	}
	return record[:i], line
}

// Report evaluates the category of every group and returns the groups in lane, version
// (result.CompareVersions), configuration and stage order, each fixture in id order; nil when
// there is none. A fixture whose repetitions read different channels is "unstable", one not
// captured keeps its state: neither is given to the category rule. Report is the collector's last
// use: the list it returns is made of the collector's entries and names, each group made when it
// is read (result.Visibilities), so that the report's peak holds the entries (some 60 bytes a
// fixture), not them and a list of Visibility values made from them (its records' strings, its
// names' headers: some 200 bytes a fixture more).
func (c *Collector) Report(ctx context.Context) (result.Visibilities, error) {
	if c.r == nil || len(c.groups) == 0 && len(c.runs.segs) == 0 {
		return nil, nil
	}
	c.groupIDs = nil // no reading is added after the report
	if len(c.runs.segs) > 0 {
		out, err := c.reportRuns(ctx)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	order := make([]int32, len(c.groups))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return c.compareGroups(&c.groups[x].key, &c.groups[y].key) })
	out := &readout{groups: make([]judged, 0, len(order))}
	for _, g := range order {
		j, err := c.judge(ctx, &c.groups[g])
		if err != nil {
			return nil, err
		}
		c.groups[g].entries, c.groups[g].byFixture = nil, nil
		out.groups = append(out.groups, j)
	}
	c.groups, c.ids = nil, nil
	out.strs = c.strs
	return out, nil
}

// compareGroups orders groups as the report lists them: by lane, version (result.CompareVersions),
// configuration and stage (in contract.Stages' order), and by the names as written where those
// tie (two versions CompareVersions holds equal).
func (c *Collector) compareGroups(a, b *[4]int32) int {
	stage := func(s int32) int { return slices.Index(contract.Stages, c.strs[s]) }
	if n := cmp.Compare(c.strs[a[0]], c.strs[b[0]]); n != 0 {
		return n
	}
	if n := result.CompareVersions(c.strs[a[1]], c.strs[b[1]]); n != 0 {
		return n
	}
	if n := cmp.Compare(c.strs[a[2]], c.strs[b[2]]); n != 0 {
		return n
	}
	if n := cmp.Compare(stage(a[3]), stage(b[3])); n != 0 {
		return n
	}
	if n := cmp.Compare(c.strs[a[3]], c.strs[b[3]]); n != 0 {
		return n
	}
	return cmp.Compare(c.strs[a[1]], c.strs[b[1]])
}

// judged is a group of the report's list: its names and its category's words as the collector's
// ids, its fixtures its entries in fixture order, each with its shape.
type judged struct {
	key                                  [4]int32
	category, nearest, onError, rendered int32
	lists                                *judgedLists // nil when the category rule gave neither list
	entries                              []entry
}

// judgedLists are what few groups have: the fixtures a mixed category's nearest does not fit, the
// categories an undetermined one cannot tell apart.
type judgedLists struct {
	disagree, candidates []string
}

// judge evaluates the category of a group (sorting its entries by fixture) and returns it as the
// list keeps it.
func (c *Collector) judge(ctx context.Context, gr *collected) (judged, error) {
	unstable, none := c.id("unstable"), c.id("")
	entries := gr.entries
	if cap(entries) > len(entries) {
		entries = slices.Clone(entries) // the list holds them to the end of the report: no spare room
	}
	for i := range entries {
		e := &entries[i]
		if e.unstable {
			e.state, e.channels = unstable, nil
		}
		e.shape = none
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(c.strs[a.fixture], c.strs[b.fixture]) })
	j := judged{key: gr.key, category: none, nearest: none, onError: none, rendered: none, entries: entries}
	v := made(c.strs, &j)
	input := ast.NewObject()
	for _, f := range v.Fixtures {
		if f.State == "captured" {
			ch := ast.NewObject()
			for _, k := range contract.SortedKeys(f.Channels) {
				ch.Insert(ast.StringTerm(k), ast.StringTerm(f.Channels[k]))
			}
			input.Insert(ast.StringTerm(f.Fixture), ast.ObjectTerm([2]*ast.Term{ast.StringTerm("channels"), ast.NewTerm(ch)}))
		}
	}
	if input.Len() == 0 {
		j.category = c.id("unread") // no fixture of the group was captured and stable
		return j, nil
	}
	where := fmt.Sprintf("%s %s %s %s", v.Lane, v.Version, v.Configuration, v.Stage)
	ro, err := c.r.category.Eval(ctx, ast.NewObject([2]*ast.Term{ast.StringTerm("fixtures"), ast.NewTerm(input)}))
	if err != nil {
		return j, fmt.Errorf("visibility policy %s, category of %s: %w", c.r.policy, where, err)
	}
	if err := readCategory(ro, &v); err != nil {
		return j, fmt.Errorf("visibility policy %s, category of %s: %w", c.r.policy, where, err)
	}
	// The policy's words are made afresh for every group: the list keeps one copy of each.
	j.category, j.nearest, j.onError, j.rendered = c.id(v.Category), c.id(v.Nearest), c.id(v.OnError), c.id(v.Rendered)
	for i := range j.entries {
		j.entries[i].shape = c.id(v.Fixtures[i].Shape)
	}
	if v.Disagree != nil || v.Candidates != nil {
		j.lists = &judgedLists{disagree: v.Disagree, candidates: v.Candidates}
	}
	return j, nil
}

// made is group j as the report gives it, its names s[id].
func made(s []string, j *judged) result.Visibility {
	v := result.Visibility{Lane: s[j.key[0]], Version: s[j.key[1]], Configuration: s[j.key[2]], Stage: s[j.key[3]],
		Category: s[j.category], Nearest: s[j.nearest], OnError: s[j.onError], Rendered: s[j.rendered]}
	if j.lists != nil {
		v.Disagree, v.Candidates = slices.Clone(j.lists.disagree), slices.Clone(j.lists.candidates)
	}
	v.Fixtures = make([]result.VisibilityFixture, len(j.entries))
	for i := range j.entries {
		e := &j.entries[i]
		record := s[e.file]
		if e.line >= 0 {
			record += ":" + strconv.Itoa(e.line)
		}
		v.Fixtures[i] = result.VisibilityFixture{Fixture: s[e.fixture], State: s[e.state], Shape: s[e.shape], Channels: e.channels, Record: record}
	}
	return v
}

// readout is the report's Visibility list as Report returns it: the judged groups in report order
// and the names their ids stand for. It is not changed once made, so At is safe for concurrent
// use.
type readout struct {
	strs   []string
	groups []judged
	// list holds the judged groups instead, encoded one after the other (runs.go), group i at
	// offs[i], when the collector wrote runs; chans are the channels their entries name by id.
	list  *spill.Stream
	offs  []int64
	chans []map[string]string
}

// Len implements result.Indexed.
func (l *readout) Len() int {
	if l.list != nil {
		return len(l.offs) - 1
	}
	return len(l.groups)
}

// At implements result.Indexed: group i, made afresh.
func (l *readout) At(i int) result.Visibility {
	if l.list != nil {
		j := l.read(i)
		return made(l.strs, &j)
	}
	return made(l.strs, &l.groups[i])
}

// MarshalJSON writes the list as the list of groups it stands for.
func (l *readout) MarshalJSON() ([]byte, error) {
	return json.Marshal(result.Collect[result.Visibility](l))
}

// readCategory reads the category rule's value into v: category (a word) and shapes (a word by
// fixture), nearest, disagree, candidates, onError and rendered when present.
func readCategory(ro map[string]any, v *result.Visibility) error {
	cat, ok := ro["category"].(string)
	if !ok || !word.MatchString(cat) {
		return fmt.Errorf("category is %s, want a lowercase word (%s)", describe(ro["category"]), word)
	}
	v.Category = cat
	for key, dst := range map[string]*string{"nearest": &v.Nearest, "onError": &v.OnError, "rendered": &v.Rendered} {
		if n, ok := ro[key]; ok {
			s, ok := n.(string)
			if !ok || !word.MatchString(s) {
				return fmt.Errorf("%s is %s, want a lowercase word", key, describe(n))
			}
			*dst = s
		}
	}
	var err error
	if v.Disagree, err = words(ro["disagree"], "disagree"); err != nil {
		return err
	}
	if v.Candidates, err = words(ro["candidates"], "candidates"); err != nil {
		return err
	}
	for _, s := range v.Candidates {
		if !word.MatchString(s) {
			return fmt.Errorf("candidates holds %q, want lowercase words", s)
		}
	}
	if sh, ok := ro["shapes"]; ok {
		shapes, err := names(sh, "shapes")
		if err != nil {
			return err
		}
		for i := range v.Fixtures {
			v.Fixtures[i].Shape = shapes[v.Fixtures[i].Fixture]
		}
	}
	for _, id := range v.Disagree {
		if !slices.ContainsFunc(v.Fixtures, func(f result.VisibilityFixture) bool { return f.Fixture == id }) {
			return fmt.Errorf("disagree names %q, which is not a fixture of the group", id)
		}
	}
	return nil
}
