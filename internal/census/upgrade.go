package census

import (
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
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
	type at struct{ lane, version, configuration int32 }
	observed := map[at]bool{}
	err := t.each(c, func(b *binding) error {
		observed[at{b.key.lane, b.key.version, b.key.configuration}] = true
		return nil
	})
	if err != nil {
		return upgradeSet{}, err
	}
	// previous maps a (lane, version, configuration) to the version observed before it on the
	// lane's declared path, and to the upgrade it belongs to; next the other way.
	type step struct {
		from    int32
		upgrade int
	}
	previous := map[at]step{}
	next := map[at]int32{}
	var set upgradeSet
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
				set.pairs = append(set.pairs, nil)
			}
		}
	}
	if len(set.upgrades) == 0 {
		return set, nil
	}
	vrank := c.names.ranks(result.CompareVersions)
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
	blocks := map[side]map[stageTask]held{}
	var pending []waiting
	pair := func(upgrade int, before, after held) {
		if c.outcomeOf(before.v) == c.outcomeOf(after.v) && c.sameDiagnostics(before.v, after.v) {
			return
		}
		set.pairs[upgrade] = append(set.pairs[upgrade], change{after: after.i, before: before.v})
	}
	endWindow := func() {
		for _, w := range pending {
			if before, ok := blocks[w.from][w.at]; ok {
				pair(w.upgrade, before, w.after)
			}
		}
		pending = pending[:0]
		clear(blocks)
	}
	var last key
	first := true
	// Walking the later version's bindings in report order keeps the changes in that order too.
	err = t.each(c, func(b *binding) error {
		k := b.key
		switch {
		case first:
		case k.fixture != last.fixture || k.lane != last.lane:
			endWindow()
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
			switch {
			case vrank[st.from] > vrank[k.version]:
				pending = append(pending, waiting{upgrade: st.upgrade, from: from, at: at, after: h})
			default:
				if before, ok := blocks[from][at]; ok {
					pair(st.upgrade, before, h)
				}
			}
		}
		return nil
	})
	if err != nil {
		return upgradeSet{}, err
	}
	endWindow()
	return set, nil
}

// change is an upgrade's change as the census keeps it, 8 bytes: the later binding's place in
// report order and the variant the earlier one collapsed to (-1 for unstable).
type change struct{ after, before int32 }

// upgradeSet is what upgradePairs found: the upgrades, and each one's changes.
type upgradeSet struct {
	upgrades []result.Upgrade
	pairs    [][]change
}

// upgrades is the report's list of upgrades, each one's changes made from the census when read.
func (c *Census) upgrades(t *table, set upgradeSet) []result.Upgrade {
	out := set.upgrades
	if out == nil {
		out = []result.Upgrade{}
	}
	for i := range out {
		out[i].Changes = &compactChanges{c: c, t: t, pairs: set.pairs[i]}
	}
	return out
}

// compactChanges are an upgrade's changes, made from the census when read.
type compactChanges struct {
	c     *Census
	t     *table
	pairs []change
}

func (ch *compactChanges) Len() int { return len(ch.pairs) }

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
	c, p := ch.c, ch.pairs[i]
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
