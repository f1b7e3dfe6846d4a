package check

import (
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// gateReached applies the profile's visibility.reached clause to a report whose gate and
// visibility readout are made: at each listed stage, every group of the readout whose records carry
// nothing of what was served (result.Visibility.NothingServed) is listed, and a gate that was
// satisfied becomes unmet — a run in which the model never saw a tool result (an agent that
// rejected every result and sent its own error) must not pass a gate that says the results
// reached the model. Another verdict is kept: it already says the gate is not satisfied, or that
// it has no verdict.
func gateReached(m *contract.Model, profile string, r *result.Report) {
	p, ok := m.Profiles[profile]
	if !ok || p.Visibility == nil || len(p.Visibility.Reached) == 0 {
		return
	}
	unmet := false
	for _, st := range p.Visibility.Reached {
		rr := result.ReachedResult{Name: "profiles." + profile + ".visibility.reached", Stage: st, Unreached: []result.UnreachedGroup{}}
		for _, v := range r.EachVisibility() {
			if v.Stage != st {
				continue
			}
			rr.Groups++
			if !v.NothingServed() {
				continue
			}
			g := result.UnreachedGroup{Lane: v.Lane, Version: v.Version, Configuration: v.Configuration, Records: []string{}}
			for _, f := range v.Fixtures {
				if f.State == "captured" {
					g.Records = append(g.Records, f.Record)
				}
			}
			rr.Unreached = append(rr.Unreached, g)
			unmet = true
		}
		r.Gate.Reached = append(r.Gate.Reached, rr)
	}
	if unmet && r.Gate.Verdict == result.VerdictSatisfied {
		r.Gate.Verdict, r.Gate.Satisfied = result.VerdictUnmet, false
	}
}
