package census

import (
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// upgradePairs compares consecutive versions of every lane observed at more than one version,
// per configuration: each binding present at both versions whose outcome or diagnostics differ is
// a change (an unmet binding that fails differently after an upgrade matters to whoever gates it).
// The versions are taken in the order the lane declares them, which is the upgrade path. A change
// is kept as the two bindings' slots, made into a result.Change when read. It looks bindings up in
// the binding table; upgrades makes the report's list from what it found.
func (c *Census) upgradePairs(order []int32) upgradeSet {
	type at struct{ lane, version, configuration int32 }
	observed := map[at]bool{}
	for _, s := range order {
		k := c.key(s)
		observed[at{k.lane, k.version, k.configuration}] = true
	}
	// previous maps a (lane, version, configuration) to the version observed before it on the
	// lane's declared path, and to the upgrade it belongs to.
	type step struct {
		from    int32
		upgrade int
	}
	previous := map[at]step{}
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
				set.upgrades = append(set.upgrades, result.Upgrade{Lane: laneID, Configuration: cfg, From: c.names.str(versions[i-1]), To: c.names.str(versions[i])})
				set.pairs = append(set.pairs, nil)
			}
		}
	}
	// Walking the later version's bindings in report order keeps the changes in that order too.
	for _, s := range order {
		k := c.key(s)
		st, ok := previous[at{k.lane, k.version, k.configuration}]
		if !ok {
			continue
		}
		before := k
		before.version = st.from
		b, found := c.table.find(before, c)
		if !found {
			continue
		}
		vb, va := c.collapsed(b), c.collapsed(s)
		if c.outcome(b) == c.outcome(s) && c.sameDiagnostics(vb, va) {
			continue
		}
		set.pairs[st.upgrade] = append(set.pairs[st.upgrade], [2]int32{b, s})
	}
	return set
}

// upgradeSet is what upgradePairs found: the upgrades, and each one's changes as pairs of slots
// (before, after).
type upgradeSet struct {
	upgrades []result.Upgrade
	pairs    [][][2]int32
}

// upgrades is the report's list of upgrades, each one's changes made from the census when read.
func (c *Census) upgrades(set upgradeSet) []result.Upgrade {
	out := set.upgrades
	if out == nil {
		out = []result.Upgrade{}
	}
	for i := range out {
		out[i].Changes = &compactChanges{c: c, pairs: set.pairs[i]}
	}
	return out
}

// compactChanges are an upgrade's changes, made from the census when read.
type compactChanges struct {
	c     *Census
	pairs [][2]int32 // before, after slots
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
	c := ch.c
	b, a := ch.pairs[i][0], ch.pairs[i][1]
	k := c.key(a)
	out := result.Change{Fixture: c.names.str(k.fixture), Stage: c.names.str(k.stage), Task: c.names.str(k.task),
		Before: c.outcome(b), After: c.outcome(a)}
	var before, after *variantData
	if v := c.collapsed(b); v >= 0 {
		before = c.variants.at(v)
	}
	if v := c.collapsed(a); v >= 0 {
		after = c.variants.at(v)
	}
	return out, before, after
}
