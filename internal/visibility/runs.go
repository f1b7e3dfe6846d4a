package visibility

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/spill"
)

// How the collector keeps a run of millions of bindings off the heap (issue 45): its groups' entries
// grow with the set's lane versions (some 200,000 at ten million bindings, 40% of the check's live
// heap at its peak when they were all held). Once the groups hold entriesInMemory entries, they are
// written out as a run, sorted in the report's order (group, then fixture), to a byte stream
// (spill.Stream: in memory up to a limit, the rest in a temporary file), and the collector starts
// again with no group. Report merges the runs: the entries of one group's fixture from several
// runs become one as Add would have made it (the lowest repetition's reading; unstable when
// either part is or their readings differ), each group is judged as the merge completes it, and
// the judged groups are written to a second stream that the report's list reads group by group
// (readout.At). A run that never reaches entriesInMemory entries keeps everything in memory, as
// before: the built-in check and the 1M set never write a run.

// entriesInMemory is how many entries the collector's groups hold before they are written out as
// a run (some 2 MB of heap).
var entriesInMemory = 1 << 15

// runsInMemory is how many bytes of the runs, and of the judged list, stay in memory before the
// rest goes to a temporary file.
const runsInMemory = 256 << 10

// runEntrySize is an entry's size in a run: its group's four names, its fixture, state, file and
// repetition, its line, its channels' id and whether it is unstable.
const runEntrySize = 48

// runs are the entries the collector has written out, and the channels they name by id.
type runs struct {
	stream  spill.Stream
	segs    []segment
	chanIDs map[string]int32 // the channels as their canonical text → id
	chans   []map[string]string
}

// segment is one run in the stream: n entries from off.
type segment struct{ off, n int64 }

// runEntry is an entry with its group's key, as a run holds it.
type runEntry struct {
	key [4]int32
	entry
}

// spillFull writes the groups' entries out as a run once they are entriesInMemory.
func (c *Collector) spillFull() {
	if c.held >= entriesInMemory {
		c.writeRun()
	}
}

// writeRun writes every entry the groups hold as one run, sorted by group (the report's order)
// and fixture, and lets the groups go.
func (c *Collector) writeRun() {
	list := make([]runEntry, 0, c.held)
	for g := range c.groups {
		for _, e := range c.groups[g].entries {
			list = append(list, runEntry{key: c.groups[g].key, entry: e})
		}
	}
	// Within a run a group's fixture has one entry: the order is total.
	slices.SortFunc(list, c.compareRun)
	r := &c.runs
	if r.stream.Limit == 0 {
		r.stream.Limit = runsInMemory
	}
	seg := segment{off: r.stream.Size(), n: int64(len(list))}
	buf := make([]byte, 0, 1024*runEntrySize)
	for i := range list {
		buf = r.appendEntry(buf, &list[i])
		if len(buf) == cap(buf) || i == len(list)-1 {
			r.stream.Append(buf)
			buf = buf[:0]
		}
	}
	r.stream.Seal()
	r.segs = append(r.segs, seg)
	c.groups, c.groupIDs, c.held = nil, map[[4]int32]int32{}, 0
}

// compareRun orders a run's entries: by group as the report lists them, then by fixture.
func (c *Collector) compareRun(a, b runEntry) int {
	if n := c.compareGroups(&a.key, &b.key); n != 0 {
		return n
	}
	return cmp.Compare(c.strs[a.fixture], c.strs[b.fixture])
}

// chanID is the id of a reading's channels (-1 for none), kept once by their content: the reader
// interns them, but may make an equal map again.
func (r *runs) chanID(ch map[string]string) int32 {
	if ch == nil {
		return -1
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(ch)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(ch[k])
		b.WriteByte(0)
	}
	key := b.String()
	if id, ok := r.chanIDs[key]; ok {
		return id
	}
	if r.chanIDs == nil {
		r.chanIDs = map[string]int32{}
	}
	id := int32(len(r.chans))
	r.chanIDs[key] = id
	r.chans = append(r.chans, ch)
	return id
}

// channels is the channels of id (nil for -1).
func (r *runs) channels(id int32) map[string]string {
	if id < 0 {
		return nil
	}
	return r.chans[id]
}

// appendEntry appends e as a run holds it.
func (r *runs) appendEntry(buf []byte, e *runEntry) []byte {
	for _, k := range e.key {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(k))
	}
	for _, v := range []int32{e.fixture, e.state, e.file, e.repetition, r.chanID(e.channels)} {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	buf = binary.LittleEndian.AppendUint64(buf, uint64(int64(e.line)))
	var unstable byte
	if e.unstable {
		unstable = 1
	}
	return append(buf, unstable, 0, 0, 0)
}

// readEntry is the entry of a run's bytes b.
func (r *runs) readEntry(b []byte) runEntry {
	var e runEntry
	for i := range e.key {
		e.key[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	e.fixture = int32(binary.LittleEndian.Uint32(b[16:]))
	e.state = int32(binary.LittleEndian.Uint32(b[20:]))
	e.file = int32(binary.LittleEndian.Uint32(b[24:]))
	e.repetition = int32(binary.LittleEndian.Uint32(b[28:]))
	e.channels = r.channels(int32(binary.LittleEndian.Uint32(b[32:])))
	e.line = int(int64(binary.LittleEndian.Uint64(b[36:])))
	e.unstable = b[44] == 1
	return e
}

// runReader reads one run's entries in order, a chunk at a time.
type runReader struct {
	r     *runs
	seg   segment
	next  int64 // the index of the next entry to read
	buf   []byte
	chunk []byte // the entries read and not yet taken
}

// read is the run's next entry; false at the run's end.
func (rr *runReader) read() (runEntry, bool, error) {
	if len(rr.chunk) == 0 {
		if rr.next == rr.seg.n {
			return runEntry{}, false, nil
		}
		k := min(rr.seg.n-rr.next, 1024)
		b, err := rr.r.stream.ReadInto(rr.seg.off+rr.next*runEntrySize, k*runEntrySize, &rr.buf)
		if err != nil {
			return runEntry{}, false, fmt.Errorf("read back the visibility readout's entries: %w", err)
		}
		rr.chunk, rr.next = b, rr.next+k
	}
	e := rr.r.readEntry(rr.chunk[:runEntrySize])
	rr.chunk = rr.chunk[runEntrySize:]
	return e, true, nil
}

// merged is the entry of one group's fixture made of two parts read in that order: the lower
// repetition's reading (the earlier part's on a tie, as Add keeps the first), unstable when either
// part is or their states or channels differ.
func merged(a, b entry) entry {
	unstable := a.unstable || b.unstable || a.state != b.state || !maps.Equal(a.channels, b.channels)
	if b.repetition < a.repetition {
		a = b
	}
	a.unstable = unstable
	return a
}

// reportRuns is Report for a collector that wrote runs: what the groups hold is written as the
// last run, the runs are merged group by group, each group judged and written to the list.
func (c *Collector) reportRuns(ctx context.Context) (*readout, error) {
	if c.held > 0 {
		c.writeRun()
	}
	r := &c.runs
	reads := make([]func() (runEntry, bool, error), len(r.segs))
	for i, seg := range r.segs {
		reads[i] = (&runReader{r: r, seg: seg}).read
	}
	out := &readout{list: &spill.Stream{Limit: runsInMemory, Dir: r.stream.Dir}}
	var gr collected
	flush := func() error {
		if len(gr.entries) == 0 {
			return nil
		}
		j, err := c.judge(ctx, &gr)
		if err != nil {
			return err
		}
		out.offs = append(out.offs, out.list.Append(r.appendJudged(nil, &j)))
		gr = collected{}
		return nil
	}
	err := spill.Merge(reads, c.compareRun, func(e runEntry) error {
		switch {
		case len(gr.entries) > 0 && gr.key != e.key:
			if err := flush(); err != nil {
				return err
			}
			fallthrough
		case len(gr.entries) == 0:
			gr.key = e.key
			gr.entries = append(gr.entries, e.entry)
		case gr.entries[len(gr.entries)-1].fixture == e.fixture:
			gr.entries[len(gr.entries)-1] = merged(gr.entries[len(gr.entries)-1], e.entry)
		default:
			gr.entries = append(gr.entries, e.entry)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	out.list.Seal()
	out.offs = append(out.offs, out.list.Size())
	// The names and channels as judging left them (it adds the policy's words).
	out.strs, out.chans = c.strs, r.chans
	c.groups, c.ids = nil, nil
	return out, nil
}

// appendJudged appends a judged group as the list holds it: its names, its entries (fixture,
// state, file, shape, line, channels) and its lists, counted.
func (r *runs) appendJudged(buf []byte, j *judged) []byte {
	u32 := func(v int32) { buf = binary.LittleEndian.AppendUint32(buf, uint32(v)) }
	for _, k := range j.key {
		u32(k)
	}
	u32(j.category)
	u32(j.nearest)
	u32(j.onError)
	u32(j.rendered)
	u32(int32(len(j.entries)))
	for i := range j.entries {
		e := &j.entries[i]
		u32(e.fixture)
		u32(e.state)
		u32(e.file)
		u32(e.shape)
		u32(r.chanID(e.channels))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(int64(e.line)))
	}
	words := func(ws []string) {
		if ws == nil {
			u32(-1)
			return
		}
		u32(int32(len(ws)))
		for _, w := range ws {
			u32(int32(len(w)))
			buf = append(buf, w...)
		}
	}
	if j.lists == nil {
		u32(-1)
		return buf
	}
	u32(0)
	words(j.lists.disagree)
	words(j.lists.candidates)
	return buf
}

// read is group i of the list, as appendJudged wrote it. The stream is the collector's own, open
// and unlinked: a failure to read it back is a broken machine (result.Indexed's At cannot fail).
func (l *readout) read(i int) judged {
	b, err := l.list.Read(l.offs[i], l.offs[i+1]-l.offs[i])
	if err != nil {
		panic(fmt.Sprintf("visibility: %v", err))
	}
	u32 := func() int32 {
		v := int32(binary.LittleEndian.Uint32(b))
		b = b[4:]
		return v
	}
	var j judged
	for k := range j.key {
		j.key[k] = u32()
	}
	j.category, j.nearest, j.onError, j.rendered = u32(), u32(), u32(), u32()
	j.entries = make([]entry, u32())
	for k := range j.entries {
		e := &j.entries[k]
		e.fixture, e.state, e.file, e.shape = u32(), u32(), u32(), u32()
		if id := u32(); id >= 0 {
			e.channels = l.chans[id]
		}
		e.line = int(int64(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	words := func() []string {
		n := u32()
		if n < 0 {
			return nil
		}
		ws := make([]string, n)
		for k := range ws {
			n := u32()
			ws[k] = string(b[:n])
			b = b[n:]
		}
		return ws
	}
	if u32() == 0 {
		j.lists = &judgedLists{disagree: words(), candidates: words()}
	}
	return j
}
