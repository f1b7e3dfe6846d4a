package census

import "github.com/contractcheck/contractcheck/internal/result"

// How the census keeps a million bindings (docs/design.md, "Speed and memory"): what one
// observation record says of all its bindings is kept once per record, 16 bytes (its version,
// line and repetition, and a group for the names it shares with the records of its file at the
// same position but version: fixture, lane, configuration, stage, origin, execution failure); a
// binding is its first repetition's record, its task and what that repetition read, and a
// further repetition is three numbers. The tables grow by whole pages, so growing never copies
// them: a copy of a table of tens of megabytes, beside the old one until the next collection,
// was the run's highest point.

// pageBits sets the page size of paged tables: 16,384 elements.
const (
	pageBits = 14
	pageSize = 1 << pageBits
	pageMask = pageSize - 1
)

// paged is an append-only table kept in pages of pageSize elements. The first page grows as a
// slice does, so that a small census stays small; later pages are allocated whole, and no
// element ever moves.
type paged[T any] struct {
	pages [][]T
	n     int32
}

// add appends v and returns its index.
func (p *paged[T]) add(v T) int32 {
	if len(p.pages) == 0 || len(p.pages[len(p.pages)-1]) == pageSize {
		var page []T
		if len(p.pages) > 0 {
			page = make([]T, 0, pageSize)
		}
		p.pages = append(p.pages, page)
	}
	last := &p.pages[len(p.pages)-1]
	*last = append(*last, v)
	p.n++
	return p.n - 1
}

// at is the element at index i, in place.
func (p *paged[T]) at(i int32) *T { return &p.pages[i>>pageBits][i&pageMask] }

// len is how many elements the table holds.
func (p *paged[T]) len() int32 { return p.n }

// record is one observation record: its group, its lane version, where it is in its file and its
// repetition, 16 bytes.
type record struct {
	group   int32 // an index into the census's groups
	version int32
	line    int32
	number  int32 // the repetition
}

// group is what a record shares with the other records of its file at the same fixture, lane,
// configuration and stage, whatever their version: a million records of a few hundred
// positions per version keep these names once per group instead of once per record (a record
// was 40 bytes).
type group struct {
	fixture, lane, configuration, stage int32 // the position but its version
	file                                int32
	origin                              int32
	err                                 int32 // the execution failure's message, -1 for none
}

// slot is a binding: the record of its first repetition (which gives its position), its task,
// what that repetition read, and its further repetitions, a list through the census's extra.
type slot struct {
	rec     int32
	task    int32
	variant int32
	more    int32 // the last further repetition recorded, an index into extra; -1 for none
}

// extraRep is a further repetition of a binding: its record and what it read.
type extraRep struct {
	prev    int32 // the binding's previous further repetition, -1 for none
	rec     int32
	variant int32
}

// rep is one repetition of a binding as the report reads it.
type rep struct {
	rec     int32
	number  int32
	variant int32
}

// lastRecord is the record the previous reading came from, as the reading spelled it: readings
// arrive record by record, so a reading that matches it belongs to the same record.
type lastRecord struct {
	id                                                       int32
	fixture, lane, version, configuration, stage, file, orig string
	err                                                      string
	line, number                                             int
}

// recordOf returns the record a reading came from, adding it unless the previous reading came
// from the same one.
func (c *Census) recordOf(r result.Reading) int32 {
	l := &c.lastRec
	if l.id >= 0 && l.line == r.Line && l.number == r.Repetition && l.file == r.File && l.fixture == r.Fixture &&
		l.lane == r.Lane && l.version == r.LaneVersion && l.configuration == r.Configuration && l.stage == r.Stage &&
		l.orig == r.Origin && l.err == r.Error {
		return l.id
	}
	errID := int32(-1)
	if r.Error != "" {
		errID = c.names.id(r.Error)
	}
	g := group{fixture: c.names.id(r.Fixture), lane: c.names.id(r.Lane), configuration: c.names.id(r.Configuration),
		stage: c.names.id(r.Stage), file: c.names.id(r.File), origin: c.names.id(r.Origin), err: errID}
	gid, ok := c.groupIDs[g]
	if !ok {
		gid = int32(len(c.groups))
		c.groups = append(c.groups, g)
		c.groupIDs[g] = gid
	}
	id := c.recs.add(record{group: gid, version: c.names.id(r.LaneVersion), line: int32(r.Line), number: int32(r.Repetition)})
	*l = lastRecord{id: id, fixture: r.Fixture, lane: r.Lane, version: r.LaneVersion, configuration: r.Configuration,
		stage: r.Stage, file: r.File, orig: r.Origin, err: r.Error, line: r.Line, number: r.Repetition}
	return id
}

// key is a binding's key: its position and task as interned names.
func (c *Census) key(s int32) key {
	sl := c.slots.at(s)
	return c.keyOf(c.recs.at(sl.rec), sl.task)
}

// keyOf is the key of a record's binding for a task.
func (c *Census) keyOf(rc *record, task int32) key {
	g := &c.groups[rc.group]
	return key{g.fixture, g.lane, rc.version, g.configuration, g.stage, task}
}

// groupOf is a record's group.
func (c *Census) groupOf(rc *record) *group { return &c.groups[rc.group] }

// reps calls f with each repetition of a slot, the first recorded first and then the others from
// the last recorded back, until f returns false.
func (c *Census) reps(s int32, f func(rec, variant int32) bool) {
	sl := c.slots.at(s)
	if !f(sl.rec, sl.variant) {
		return
	}
	for i := sl.more; i >= 0; {
		e := c.extra.at(i)
		if !f(e.rec, e.variant) {
			return
		}
		i = e.prev
	}
}
