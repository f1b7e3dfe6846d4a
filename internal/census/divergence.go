package census

import (
	"sort"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/report"
)

// divergences counts the (fixture, task) pairs where, at one stage, one lane passes and another has
// a captured unmet. Each lane version and configuration counts as its own lane here, so an upgrade
// that changes an outcome is a divergence; control lanes are left out, since they pass by
// construction. Primary tasks on primary families form the census; guard tasks and families
// reported apart are listed separately. The leave-one-lane-out recount drops every version and
// configuration of one lane and counts the unique primary divergences that remain. Only the
// results keep selects are counted: every result, or those of captured carriers, so that a
// reconstructed carrier never silently changes a headline number.
func (c *Census) divergences(results []report.Result, keep func(*report.Result) bool) report.Divergences {
	var counted []*report.Result
	lanes := map[string]bool{}
	for i := range results {
		r := &results[i]
		if !keep(r) || c.model.Lanes[r.Lane].Control || (r.Outcome != report.Pass && r.Outcome != report.Unmet) {
			continue
		}
		counted = append(counted, r)
		lanes[r.Lane] = true
	}
	d := report.Divergences{
		Unique: []report.Divergence{}, ByFamily: map[string]int{}, Guard: []report.Divergence{},
		Apart: []report.Divergence{}, LeaveOneOut: map[string]int{},
	}
	for _, div := range c.find(counted, "") {
		switch c.role(Binding{Position: report.Position{Fixture: div.Fixture}, Task: div.Task}) {
		case "guard":
			d.Guard = append(d.Guard, div)
		case "apart":
			d.Apart = append(d.Apart, div)
		default:
			d.Unique = append(d.Unique, div)
			d.Manifestations += len(div.Stages)
			d.ByFamily[div.Family]++
		}
	}
	for lane := range lanes {
		n := 0
		for _, div := range c.find(counted, lane) {
			if c.role(Binding{Position: report.Position{Fixture: div.Fixture}, Task: div.Task}) == "primary" {
				n++
			}
		}
		d.LeaveOneOut[lane] = n
	}
	return d
}

// find lists the divergences among results, leaving out lane when it is not "".
func (c *Census) find(results []*report.Result, without string) []report.Divergence {
	type pairStage struct{ fixture, task, stage string }
	type seen struct{ pass, unmet bool }
	at := map[pairStage]*seen{}
	for _, r := range results {
		if r.Lane == without {
			continue
		}
		k := pairStage{r.Fixture, r.Task, r.Stage}
		s, ok := at[k]
		if !ok {
			s = &seen{}
			at[k] = s
		}
		if r.Outcome == report.Pass {
			s.pass = true
		} else {
			s.unmet = true
		}
	}
	type pair struct{ fixture, task string }
	stages := map[pair][]string{}
	for k, s := range at {
		if s.pass && s.unmet {
			p := pair{k.fixture, k.task}
			stages[p] = append(stages[p], k.stage)
		}
	}
	out := make([]report.Divergence, 0, len(stages))
	for p, sts := range stages {
		sort.Slice(sts, func(i, j int) bool { return contract.StageIndex(sts[i]) < contract.StageIndex(sts[j]) })
		out = append(out, report.Divergence{Fixture: p.fixture, Task: p.task, Family: c.model.Fixtures[p.fixture].Family, Stages: sts})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Fixture != out[j].Fixture {
			return out[i].Fixture < out[j].Fixture
		}
		return out[i].Task < out[j].Task
	})
	return out
}
