package census

import (
	"sort"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// divergences counts the (fixture, task) pairs where, at one stage, one lane passes and another has
// a captured unmet. Each lane version and configuration counts as its own lane here, so an upgrade
// that changes an outcome is a divergence; control lanes are left out, since they pass by
// construction. Primary tasks on primary families form the census; guard tasks and families
// reported apart are listed separately. The leave-one-lane-out recount drops every version and
// configuration of one lane and counts the unique primary divergences that remain. Only the
// bindings keep selects are counted: every one, or those of captured carriers, so that a
// reconstructed carrier never silently changes a headline number.
//
// Unique divergences and manifestations are each counted by family and by origin
// (result.OriginCounts): a manifestation is captured when bindings of captured carriers alone show
// it, a unique divergence when any of its manifestations is.
func (c *Census) divergences(t *table, keep func(*binding) bool) (result.Divergences, error) {
	// Per (fixture, task, stage), which lanes pass and which are unmet there, and whether a
	// binding of a captured carrier is among either: one pass over the bindings serves the census
	// and every leave-one-lane-out recount.
	type pairStage struct{ fixture, task, stage int32 }
	type seen struct {
		pass, unmet                 map[int32]bool
		capturedPass, capturedUnmet bool
	}
	at := map[pairStage]*seen{}
	lanes := map[int32]bool{}
	capturedID := c.names.lookup("captured")
	err := t.each(c, func(b *binding) error {
		k := b.key
		if !keep(b) || c.model.Lanes[c.names.str(k.lane)].Control {
			return nil
		}
		outcome := c.outcome(b)
		if outcome != result.Pass && outcome != result.Unmet {
			return nil
		}
		ps := pairStage{k.fixture, k.task, k.stage}
		x, ok := at[ps]
		if !ok {
			x = &seen{pass: map[int32]bool{}, unmet: map[int32]bool{}}
			at[ps] = x
		}
		captured := c.first(b).origin == capturedID
		if outcome == result.Pass {
			x.pass[k.lane] = true
			x.capturedPass = x.capturedPass || captured
		} else {
			x.unmet[k.lane] = true
			x.capturedUnmet = x.capturedUnmet || captured
		}
		lanes[k.lane] = true
		return nil
	})
	if err != nil {
		return result.Divergences{}, err
	}
	// found is a divergence and how many of its manifestations captured carriers alone show.
	type found struct {
		result.Divergence
		captured int
	}
	// find lists the divergences, leaving out one lane when without is not -1.
	find := func(without int32) []found {
		has := func(ls map[int32]bool) bool {
			for l := range ls {
				if l != without {
					return true
				}
			}
			return false
		}
		type pair struct{ fixture, task int32 }
		stages := map[pair][]string{}
		captured := map[pair]int{}
		for ps, x := range at {
			if has(x.pass) && has(x.unmet) {
				p := pair{ps.fixture, ps.task}
				stages[p] = append(stages[p], c.names.str(ps.stage))
				if x.capturedPass && x.capturedUnmet {
					captured[p]++
				}
			}
		}
		out := make([]found, 0, len(stages))
		for p, sts := range stages {
			sort.Slice(sts, func(i, j int) bool { return contract.StageIndex(sts[i]) < contract.StageIndex(sts[j]) })
			fixture := c.names.str(p.fixture)
			out = append(out, found{result.Divergence{Fixture: fixture, Task: c.names.str(p.task), Family: c.model.Fixtures[fixture].Family, Stages: sts}, captured[p]})
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Fixture != out[j].Fixture {
				return out[i].Fixture < out[j].Fixture
			}
			return out[i].Task < out[j].Task
		})
		return out
	}
	d := result.Divergences{
		Unique: []result.Divergence{}, UniqueByFamily: map[string]int{}, ManifestationsByFamily: map[string]int{},
		Guard: []result.Divergence{}, Apart: []result.Divergence{}, LeaveOneOut: map[string]int{},
	}
	for _, f := range find(-1) {
		div := f.Divergence
		switch c.role(div.Fixture, div.Task) {
		case "guard":
			d.Guard = append(d.Guard, div)
		case "apart":
			d.Apart = append(d.Apart, div)
		default:
			d.Unique = append(d.Unique, div)
			d.Manifestations += len(div.Stages)
			d.UniqueByFamily[div.Family]++
			d.ManifestationsByFamily[div.Family] += len(div.Stages)
			d.ManifestationsByOrigin.Captured += f.captured
			d.ManifestationsByOrigin.Reconstructed += len(div.Stages) - f.captured
			if f.captured > 0 {
				d.UniqueByOrigin.Captured++
			} else {
				d.UniqueByOrigin.Reconstructed++
			}
		}
	}
	for lane := range lanes {
		n := 0
		for _, div := range find(lane) {
			if c.role(div.Fixture, div.Task) == "primary" {
				n++
			}
		}
		d.LeaveOneOut[c.names.str(lane)] = n
	}
	return d, nil
}
