package census

import (
	"encoding/binary"
	"fmt"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/spill"
)

// upgradePairs compares consecutive versions of every lane observed at more than one version,
// per configuration: each binding present at both versions whose outcome or diagnostics differ is
// a change (an unmet binding that fails differently after an upgrade matters to whoever gates it).
// The versions are taken in the order the lane declares them, which is the upgrade path. A change
// is kept as the later binding's place and what the earlier one read, made into a result.Change
// when read. The table is read in report order, where a fixture and lane's versions come one
// after the other: the bindings of a version that is the earlier side of an upgrade are kept until
// the later version has been read (a lane that declares its versions out of version order keeps
// them to the end of the fixture and lane).
func (c *Census) upgradePairs(t *table) (upgradeSet, error) {
	var set upgradeSet
	walk, err := c.upgradeWalk(t, &set)
	if err != nil || len(set.upgrades) == 0 {
		return set, err
	}
	// The changes are found twice: counted, so that each upgrade's have a stretch of their own,
	// and then written there (changeStore), in the order found.
	counts := make([]int64, len(set.upgrades))
	if err := walk(func(u int, _ change) error { counts[u]++; return nil }); err != nil {
		return set, err
	}
	set.starts = make([]int64, len(counts)+1)
	for u, n := range counts {
		set.starts[u+1] = set.starts[u] + n
	}
	set.store = newChangeStore(c.variants.blobs.Dir, set.starts[len(counts)], len(c.segments) > 0)
	written := make([]int64, len(counts))
	err = walk(func(u int, ch change) error {
		err := set.store.put(set.starts[u]+written[u], ch)
		written[u]++
		return err
	})
	if err == nil {
		err = set.store.flush()
	}
	if err != nil {
		return set, fmt.Errorf("keep the upgrades' changes: %w", err)
	}
	return set, nil
}

// upgradeWalk finds the upgrades (into set) and returns the walk that finds their changes, which
// calls emit with each one's upgrade and change.
func (c *Census) upgradeWalk(t *table, set *upgradeSet) (func(emit func(int, change) error) error, error) {
	type at struct{ lane, version, configuration int32 }
	observed := map[at]bool{}
	err := t.each(c, func(b *binding) error {
		observed[at{b.key.lane, b.key.version, b.key.configuration}] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	// previous maps a (lane, version, configuration) to the version observed before it on the
	// lane's declared path, and to the upgrade it belongs to; next the other way.
	type step struct {
		from    int32
		upgrade int
	}
	previous := map[at]step{}
	next := map[at]int32{}
	for _, laneID := range contract.SortedKeys(c.model.Lanes) {
		lane := c.model.Lanes[laneID]
		l := c.names.lookup(laneID)
		if l < 0 {
			continue
		}
		for _, cfg := range contract.SortedKeys(lane.Configurations) {
			cf := c.names.lookup(cfg)
			if cf < 0 {
				continue
			}
			var versions []int32
			for _, v := range lane.Versions {
				if id := c.names.lookup(v); id >= 0 && observed[at{l, id, cf}] {
					versions = append(versions, id)
				}
			}
			for i := 1; i < len(versions); i++ {
				previous[at{l, versions[i], cf}] = step{versions[i-1], len(set.upgrades)}
				next[at{l, versions[i-1], cf}] = versions[i]
				set.upgrades = append(set.upgrades, result.Upgrade{Lane: laneID, Configuration: cfg, From: c.names.str(versions[i-1]), To: c.names.str(versions[i])})
			}
		}
	}
	if len(set.upgrades) == 0 {
		return nil, nil
	}
	vrank := c.names.ranks(&c.byVersion)
	// Within one fixture and lane: the bindings of each earlier side (version, configuration),
	// by stage and task, as their place and collapsed variant; and the later side's bindings
	// whose earlier side comes after them in report order, looked up at the end.
	type side struct{ version, configuration int32 }
	type stageTask struct{ stage, task int32 }
	type held struct{ i, v int32 }
	type waiting struct {
		upgrade int
		from    side
		at      stageTask
		after   held
	}
	return func(emit func(int, change) error) error {
		blocks := map[side]map[stageTask]held{}
		var pending []waiting
		pair := func(upgrade int, before, after held) error {
			if c.outcomeOf(before.v) == c.outcomeOf(after.v) && c.sameDiagnostics(before.v, after.v) {
				return nil
			}
			return emit(upgrade, change{after: after.i, before: before.v})
		}
		endWindow := func() error {
			for _, w := range pending {
				if before, ok := blocks[w.from][w.at]; ok {
					if err := pair(w.upgrade, before, w.after); err != nil {
						return err
					}
				}
			}
			pending = pending[:0]
			clear(blocks)
			return nil
		}
		var last key
		first := true
		// Walking the later version's bindings in report order keeps the changes in that order too.
		err := t.each(c, func(b *binding) error {
			k := b.key
			switch {
			case first:
			case k.fixture != last.fixture || k.lane != last.lane:
				if err := endWindow(); err != nil {
					return err
				}
			case k.version != last.version:
				// A version is over: an earlier side whose later side comes before this version
				// is done with.
				for s := range blocks {
					if to := next[at{k.lane, s.version, s.configuration}]; vrank[s.version] < vrank[to] && vrank[to] < vrank[k.version] {
						delete(blocks, s)
					}
				}
			}
			first, last = false, k
			a := at{k.lane, k.version, k.configuration}
			_, isFrom := next[a]
			st, isTo := previous[a]
			if !isFrom && !isTo {
				return nil
			}
			h := held{i: b.i, v: c.collapsed(b)}
			if isFrom {
				s := side{k.version, k.configuration}
				if blocks[s] == nil {
					blocks[s] = map[stageTask]held{}
				}
				blocks[s][stageTask{k.stage, k.task}] = h
			}
			if isTo {
				from, at := side{st.from, k.configuration}, stageTask{k.stage, k.task}
				if vrank[st.from] > vrank[k.version] {
					pending = append(pending, waiting{upgrade: st.upgrade, from: from, at: at, after: h})
				} else if before, ok := blocks[from][at]; ok {
					return pair(st.upgrade, before, h)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		return endWindow()
	}, nil
}

// change is an upgrade's change as the census keeps it, 8 bytes: the later binding's place in
// report order and the variant the earlier one collapsed to (-1 for unstable).
type change struct{ after, before int32 }

// upgradeSet is what upgradePairs found: the upgrades, and their changes, upgrade u's at
// starts[u] to starts[u+1] in store.
type upgradeSet struct {
	upgrades []result.Upgrade
	starts   []int64
	store    *changeStore
}

// upgrades is the report's list of upgrades, each one's changes made from the census when read.
func (c *Census) upgrades(t *table, set upgradeSet) []result.Upgrade {
	out := set.upgrades
	if out == nil {
		out = []result.Upgrade{}
	}
	for i := range out {
		out[i].Changes = &compactChanges{c: c, t: t, store: set.store, start: set.starts[i], n: int(set.starts[i+1] - set.starts[i])}
	}
	return out
}

// compactChanges are an upgrade's changes, made from the census when read.
type compactChanges struct {
	c     *Census
	t     *table
	store *changeStore
	start int64 // the first change's place in store
	n     int
}

func (ch *compactChanges) Len() int { return ch.n }

func (ch *compactChanges) At(i int) result.Change {
	out, before, after := ch.held(i)
	if before != nil {
		_, out.DiagnosticsBefore = ch.c.variants.values(before)
	}
	if after != nil {
		_, out.DiagnosticsAfter = ch.c.variants.values(after)
	}
	return out
}

// AppendJSON implements result.Appender, as compactResults' does.
func (ch *compactChanges) AppendJSON(dst []byte, i int) ([]byte, error) {
	out, before, after := ch.held(i)
	_, db, err := ch.c.variants.encoded(before)
	if err != nil {
		return dst, err
	}
	_, da, err := ch.c.variants.encoded(after)
	if err != nil {
		return dst, err
	}
	return result.AppendChange(dst, &out, db, da), nil
}

// held is change i without its diagnostics, and the variants before and after that hold them (nil
// where the repetitions disagree).
func (ch *compactChanges) held(i int) (result.Change, *variantData, *variantData) {
	c, p := ch.c, ch.store.get(ch.start+int64(i))
	b := ch.t.at(c, p.after)
	k, va := b.key, c.collapsed(&b)
	out := result.Change{Fixture: c.names.str(k.fixture), Stage: c.names.str(k.stage), Task: c.names.str(k.task),
		Before: c.outcomeOf(p.before), After: c.outcomeOf(va)}
	var before, after *variantData
	if p.before >= 0 {
		before = c.variants.at(p.before)
	}
	if va >= 0 {
		after = c.variants.at(va)
	}
	return out, before, after
}

// changeStore holds a report's upgrade changes, 8 bytes each, each upgrade's in a stretch of its
// own: in memory for a census that fits in one run, else in a temporary file (in $TMPDIR,
// unlinked once open, as the readings' bytes are), written at their place and read back (pread)
// one at a time. Where no file can be made they are kept in memory.
type changeStore struct {
	mem    []byte
	file   *spill.File
	buf    []byte // changes waiting to be written to the file, from bufOff on
	bufOff int64
}

func newChangeStore(dir string, n int64, onDisk bool) *changeStore {
	s := &changeStore{}
	if onDisk && n > 0 {
		if f, err := spill.Open(s, dir); err == nil {
			s.file = f
			s.buf = make([]byte, 0, readChunk)
			return s
		}
	}
	s.mem = make([]byte, n*8)
	return s
}

// put writes change i.
func (s *changeStore) put(i int64, ch change) error {
	if s.file == nil {
		ch.put(s.mem[i*8:])
		return nil
	}
	if len(s.buf) > 0 && (s.bufOff+int64(len(s.buf)) != i*8 || len(s.buf) == cap(s.buf)) {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if len(s.buf) == 0 {
		s.bufOff = i * 8
	}
	s.buf = s.buf[:len(s.buf)+8]
	ch.put(s.buf[len(s.buf)-8:])
	return nil
}

// flush writes the changes waiting.
func (s *changeStore) flush() error {
	if s.file == nil || len(s.buf) == 0 {
		return nil
	}
	if _, err := s.file.WriteAt(s.buf, s.bufOff); err != nil {
		return err
	}
	s.buf = s.buf[:0]
	return nil
}

// get is change i. The file is the census's own: a failure to read it back is a broken machine,
// and panics (result.Changes.At returns no error).
func (s *changeStore) get(i int64) change {
	if s.file == nil {
		return getChange(s.mem[i*8:])
	}
	var b [8]byte
	if _, err := s.file.ReadAt(b[:], i*8); err != nil {
		panic(fmt.Sprintf("census: read back the upgrades' changes kept in %s: %v", s.file.Name(), err))
	}
	return getChange(b[:])
}

func (ch change) put(b []byte) {
	binary.LittleEndian.PutUint32(b, uint32(ch.after))
	binary.LittleEndian.PutUint32(b[4:], uint32(ch.before))
}

func getChange(b []byte) change {
	return change{after: int32(binary.LittleEndian.Uint32(b)), before: int32(binary.LittleEndian.Uint32(b[4:]))}
}
