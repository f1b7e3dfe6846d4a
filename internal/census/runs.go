package census

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/spill"
)

// How the census keeps its bindings (docs/design.md, "Speed and memory"): Add appends each reading
// as a fixed-width entry to a run in memory; a full run (runSize entries) is sorted in report order
// and written to the census's run file in the temporary directory (unlinked once open, as the
// readings' byte stream is), and the run starts again. Nothing looks a binding up while readings
// arrive: the report merges the runs (the one in memory among them) in report order, which puts a
// binding's repetitions side by side, finds a repetition recorded twice there, and writes the
// merged entries to the report's table, which the report's parts read through in order and its
// results read back one by one. A run that never fills one run writes no run file: it is merged
// from memory, by the same code. What stays in the heap is the names, the records' groups, the
// distinct readings, one run and, at the report, the merge's read buffers (mergeBuffers in all).

// runSize is how many entries a run holds before it is written to the run file: 64 Ki entries,
// 1.5 MiB, so that a run of up to about fifty thousand bindings of one repetition never writes
// one (the run is live heap to the end of the stream, where a million-binding check's peak is;
// 128 Ki until stop 56, docs/design.md "The 1M goal met").
const runSize = 1 << 16

// tableMemory is how many bytes of a report's table (its entries, and where each binding's
// entries start) stay in memory before the rest goes to a file, when the census wrote runs to its
// run file; a census whose readings fit in one run keeps its table in memory, as its run was.
const tableMemory = 256 << 10

// readChunk is how many bytes are read at once from a run or a table walked in order. A merge
// of many runs reads less of each at once: its read buffers together hold at most mergeBuffers
// bytes (a 10M-binding check of one repetition writes 153 runs: 4.8 MiB of 32 KiB buffers, live
// heap at the report, where the check's peak is), and each at least minChunk.
const (
	readChunk    = 32 << 10
	mergeBuffers = 1 << 20
	minChunk     = 4 << 10
)

// mergeChunk is how many bytes a merge of n runs reads at once from each.
func mergeChunk(n int) int64 {
	return max(minChunk, min(readChunk, mergeBuffers/int64(max(n, 1))))
}

// entry is one reading as the census keeps it until its report, 24 bytes: its record's group and
// version, its task, its repetition, its record's line and the distinct reading it read.
type entry struct {
	group, version, task, number, line, variant int32
}

// entrySize is an entry's size in a run file and a table.
const entrySize = 24

func (e *entry) put(b []byte) {
	binary.LittleEndian.PutUint32(b[0:], uint32(e.group))
	binary.LittleEndian.PutUint32(b[4:], uint32(e.version))
	binary.LittleEndian.PutUint32(b[8:], uint32(e.task))
	binary.LittleEndian.PutUint32(b[12:], uint32(e.number))
	binary.LittleEndian.PutUint32(b[16:], uint32(e.line))
	binary.LittleEndian.PutUint32(b[20:], uint32(e.variant))
}

func getEntry(b []byte) entry {
	return entry{
		group: int32(binary.LittleEndian.Uint32(b[0:])), version: int32(binary.LittleEndian.Uint32(b[4:])),
		task: int32(binary.LittleEndian.Uint32(b[8:])), number: int32(binary.LittleEndian.Uint32(b[12:])),
		line: int32(binary.LittleEndian.Uint32(b[16:])), variant: int32(binary.LittleEndian.Uint32(b[20:])),
	}
}

// segment is one run in the run file: where it starts and how many entries it holds.
type segment struct {
	off int64
	n   int64
}

// ordering compares entries in report order: by fixture, lane, version (CompareVersions),
// configuration, stage (in pipeline order), task and repetition, as positions sort. It orders
// the names the census holds when it is made; a name added later has no place in it, but two
// names keep their order whatever names come after, so a run sorted then merges with the others
// in the ordering of all the names.
type ordering struct {
	c           *Census
	rank, vrank []int32 // a name's place in string order, in version order
	stage       []int32 // a name's stage index (contract.StageIndex)
}

func (c *Census) ordering() *ordering {
	o := &ordering{c: c, rank: c.names.ranks(&c.byName), vrank: c.names.ranks(&c.byVersion), stage: make([]int32, len(c.names.strs))}
	for id, s := range c.names.strs {
		o.stage[id] = int32(contract.StageIndex(s))
	}
	return o
}

// compareKeys orders two entries' bindings; 0 when they are the same binding.
func (o *ordering) compareKeys(a, b *entry) int {
	if a.group != b.group {
		ga, gb := &o.c.groups[a.group], &o.c.groups[b.group]
		switch {
		case ga.fixture != gb.fixture:
			return int(o.rank[ga.fixture] - o.rank[gb.fixture])
		case ga.lane != gb.lane:
			return int(o.rank[ga.lane] - o.rank[gb.lane])
		}
		if a.version != b.version {
			return int(o.vrank[a.version] - o.vrank[b.version])
		}
		switch {
		case ga.configuration != gb.configuration:
			return int(o.rank[ga.configuration] - o.rank[gb.configuration])
		case ga.stage != gb.stage:
			if d := o.stage[ga.stage] - o.stage[gb.stage]; d != 0 {
				return int(d)
			}
			return int(o.rank[ga.stage] - o.rank[gb.stage])
		}
	} else if a.version != b.version {
		return int(o.vrank[a.version] - o.vrank[b.version])
	}
	return int(o.rank[a.task] - o.rank[b.task])
}

// compare orders two entries: their bindings, then their repetitions.
func (o *ordering) compare(a, b entry) int {
	if d := o.compareKeys(&a, &b); d != 0 {
		return d
	}
	return int(a.number - b.number)
}

// spill sorts the run in memory and writes it to the run file.
func (c *Census) spill() {
	o := c.ordering()
	slices.SortStableFunc(c.run, o.compare)
	seg := segment{off: c.runs.Size(), n: int64(len(c.run))}
	writeEntries(&c.runs, c.run)
	c.runs.Seal()
	c.segments = append(c.segments, seg)
	c.run = c.run[:0]
}

// writeEntries appends entries to a byte stream, a chunk at a time.
func writeEntries(bs *spill.Stream, es []entry) {
	buf := make([]byte, 0, readChunk)
	for i := range es {
		buf = buf[:len(buf)+entrySize]
		es[i].put(buf[len(buf)-entrySize:])
		if len(buf)+entrySize > cap(buf) || i == len(es)-1 {
			bs.Append(buf)
			buf = buf[:0]
		}
	}
}

// entryReader reads entries in order from a byte stream, from off for n entries.
type entryReader struct {
	bs     *spill.Stream
	off    int64
	n      int64  // entries left to read
	buf    []byte // the chunk being read
	own    []byte // the reader's buffer, which a chunk is read into unless it lies in memory whole
	chunk  int64  // how many bytes to read at once: readChunk when 0
	at     int
	mem    []entry // a run in memory instead of a stream
	memPos int
}

// next is the next entry; ok is false at the end.
func (r *entryReader) next() (e entry, ok bool, err error) {
	if r.mem != nil || r.bs == nil {
		if r.memPos == len(r.mem) {
			return entry{}, false, nil
		}
		r.memPos++
		return r.mem[r.memPos-1], true, nil
	}
	if r.at == len(r.buf) {
		if r.n == 0 {
			return entry{}, false, nil
		}
		chunk := r.chunk
		if chunk == 0 {
			chunk = readChunk
		}
		k := min(r.n, max(1, chunk/entrySize))
		b, err := r.bs.ReadInto(r.off, k*entrySize, &r.own)
		if err != nil {
			return entry{}, false, err
		}
		r.buf, r.at = b, 0
		r.off += k * entrySize
		r.n -= k
	}
	e = getEntry(r.buf[r.at:])
	r.at += entrySize
	return e, true, nil
}

// merge sorts the run in memory and merges it with the runs in the run file, calling yield with
// every entry in report order (the entries of one repetition in the order they were added).
func (c *Census) merge(o *ordering, yield func(entry) error) error {
	slices.SortStableFunc(c.run, o.compare)
	runs := make([]func() (entry, bool, error), 0, len(c.segments)+1)
	chunk := mergeChunk(len(c.segments))
	for _, seg := range c.segments {
		r := &entryReader{bs: &c.runs, off: seg.off, n: seg.n, chunk: chunk}
		runs = append(runs, func() (entry, bool, error) {
			e, ok, err := r.next()
			if err != nil {
				return e, false, fmt.Errorf("read back a run of the census: %w", err)
			}
			return e, ok, nil
		})
	}
	if len(c.run) > 0 {
		r := &entryReader{mem: c.run}
		runs = append(runs, r.next)
	}
	return spill.Merge(runs, o.compare, yield)
}

// table is a report's bindings in report order, each binding's repetitions in repetition order:
// the merged entries, and where each binding's entries start. It is written once and then only
// read, from many goroutines at once.
type table struct {
	entries spill.Stream
	index   spill.Stream // int64 per binding, the index of its first entry, and one past the last
	n       int32        // bindings
	total   int64        // entries
}

// binding is one binding of a report as its table gives it back: its place in report order, its
// key and its repetitions, lowest first.
type binding struct {
	i    int32
	key  key
	reps []entry
}

// RepeatedError is a repetition recorded twice: the observation records repeat themselves.
type RepeatedError struct{ msg string }

// Error names the repetition, where it was recorded again and where first.
func (e *RepeatedError) Error() string { return e.msg }

// makeTable merges the runs into a report's table, and refuses a repetition recorded twice.
func (c *Census) makeTable() (*table, error) {
	// A census that wrote runs writes the one in memory too, and lets its buffer go: the
	// report's peak does not hold it (a later Add starts a new one).
	if len(c.segments) > 0 && len(c.run) > 0 {
		c.spill()
		c.run = nil
	}
	o := c.ordering()
	t := &table{entries: c.reportStream(), index: c.reportStream()}
	entries, index := newChunkWriter(&t.entries), newChunkWriter(&t.index)
	var prev entry
	have := false
	err := c.merge(o, func(e entry) error {
		if !have || o.compareKeys(&prev, &e) != 0 {
			if t.n == 1<<31-1 {
				return fmt.Errorf("more than %d bindings", 1<<31-1)
			}
			index.buf = binary.LittleEndian.AppendUint64(index.buf, uint64(t.total))
			t.n++
			index.room(8)
		} else if prev.number == e.number {
			return c.repeated(prev, e)
		}
		prev, have = e, true
		entries.buf = entries.buf[:len(entries.buf)+entrySize]
		e.put(entries.buf[len(entries.buf)-entrySize:])
		t.total++
		entries.room(entrySize)
		return nil
	})
	if err != nil {
		return nil, err
	}
	index.buf = binary.LittleEndian.AppendUint64(index.buf, uint64(t.total))
	entries.flush()
	index.flush()
	t.entries.Seal()
	t.index.Seal()
	return t, nil
}

// reportStream is a byte stream of the census's own for what a report reads back (its table, its
// localizations): all in memory when the census wrote no run, else its first tableMemory bytes in
// memory and the rest in a temporary file beside the runs.
func (c *Census) reportStream() spill.Stream {
	limit := int64(math.MaxInt64)
	if len(c.segments) > 0 {
		limit = tableMemory
	}
	return spill.Stream{Limit: limit, Dir: c.variants.blobs.Dir}
}

// chunkWriter writes fixed-size records to a stream a chunk (readChunk bytes) at a time: the
// caller appends a record to buf, then calls room with the size of the next one, which writes
// the chunk when that would not fit; flush writes what is left.
type chunkWriter struct {
	to  *spill.Stream
	buf []byte
}

func newChunkWriter(to *spill.Stream) chunkWriter {
	return chunkWriter{to: to, buf: make([]byte, 0, readChunk)}
}

// room writes the buffer when n more bytes would not fit in it.
func (w *chunkWriter) room(n int) {
	if len(w.buf)+n > cap(w.buf) {
		w.flush()
	}
}

// flush writes what the buffer holds.
func (w *chunkWriter) flush() {
	if len(w.buf) > 0 {
		w.to.Append(w.buf)
		w.buf = w.buf[:0]
	}
}

// repeated is the error for a repetition recorded twice, first as first, again as again.
func (c *Census) repeated(first, again entry) error {
	g, gf := &c.groups[again.group], &c.groups[first.group]
	n := c.names.str
	return &RepeatedError{fmt.Sprintf("%s:%d: %s %s %s %s %s: repetition %d recorded twice (first at %s:%d)", n(g.file), again.line, n(g.fixture), n(g.lane),
		n(again.version), n(g.configuration), n(g.stage), again.number, n(gf.file), first.line)}
}

// keyOfEntry is an entry's binding as interned names.
func (c *Census) keyOfEntry(e *entry) key {
	g := &c.groups[e.group]
	return key{g.fixture, g.lane, e.version, g.configuration, g.stage, e.task}
}

// each calls f with every binding of the table in report order, until f returns an error. The
// binding is f's only while it runs: its repetitions are read into one buffer.
func (t *table) each(c *Census, f func(b *binding) error) error {
	r := entryReader{bs: &t.entries, n: t.total}
	var b binding
	b.i = -1
	for {
		e, ok, err := r.next()
		if err != nil {
			return fmt.Errorf("read back the census's table: %w", err)
		}
		if ok && b.i >= 0 && c.keyOfEntry(&e) == b.key {
			b.reps = append(b.reps, e)
			continue
		}
		if b.i >= 0 {
			if err := f(&b); err != nil {
				return err
			}
		}
		if !ok {
			return nil
		}
		b.i++
		b.key = c.keyOfEntry(&e)
		b.reps = append(b.reps[:0], e)
	}
}

// at is binding i. The table is the census's own, written and open: a failure to read it back is
// a broken machine, and panics (result.Results.At returns no error).
func (t *table) at(c *Census, i int32) binding {
	p, err := t.index.Read(int64(i)*8, 16)
	if err != nil {
		panic(fmt.Sprintf("census: read back the table: %v", err))
	}
	start, end := int64(binary.LittleEndian.Uint64(p)), int64(binary.LittleEndian.Uint64(p[8:]))
	q, err := t.entries.Read(start*entrySize, (end-start)*entrySize)
	if err != nil {
		panic(fmt.Sprintf("census: read back the table: %v", err))
	}
	b := binding{i: i, reps: make([]entry, end-start)}
	for k := range b.reps {
		b.reps[k] = getEntry(q[k*entrySize:])
	}
	b.key = c.keyOfEntry(&b.reps[0])
	return b
}
