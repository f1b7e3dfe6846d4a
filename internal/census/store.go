package census

import "github.com/contractcheck/contractcheck/internal/result"

// How the census keeps a million bindings (docs/design.md, "Speed and memory"): what the
// readings of one observation record share with the records of its file at the same position but
// version (fixture, lane, configuration, stage, origin, execution failure) is kept once, as a
// group; a reading is an entry of six numbers (runs.go), in memory until its run is full and then
// in the run file. The tables that grow with the readings' variety (the distinct readings) grow by
// whole pages, so growing never copies them.

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

// lastRecord is the record the previous reading came from, as the reading spelled it: readings
// arrive record by record, so a reading that matches it belongs to the same record, and shares
// its group and version.
type lastRecord struct {
	group, versionID                                             int32
	fixture, lane, laneVersion, configuration, stage, file, orig string
	err                                                          string
}

// recordOf returns the group and the version id of the record a reading came from, adding the
// group unless another record has it.
func (c *Census) recordOf(r result.Reading) (int32, int32) {
	l := &c.lastRec
	if l.group >= 0 && l.file == r.File && l.fixture == r.Fixture &&
		l.lane == r.Lane && l.laneVersion == r.LaneVersion && l.configuration == r.Configuration && l.stage == r.Stage &&
		l.orig == r.Origin && l.err == r.Error {
		return l.group, l.versionID
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
	*l = lastRecord{group: gid, versionID: c.names.id(r.LaneVersion), fixture: r.Fixture, lane: r.Lane, laneVersion: r.LaneVersion,
		configuration: r.Configuration, stage: r.Stage, file: r.File, orig: r.Origin, err: r.Error}
	return l.group, l.versionID
}
