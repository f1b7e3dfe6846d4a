package census

import (
	"slices"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// reported gives, per fixture whose catalog entry cites a public report, the outcome of the buggy
// and the fixed version at the report's stages and tasks, and which of the report's atoms each
// names. A fixture the run has no results for is left out.
func (c *Census) reported(t *table) ([]result.Reported, error) {
	// Only the bindings a report reads are made into results: its fixture, lane, configuration,
	// stages and tasks (a set with thousands of versions of the lane makes this most of them).
	type citedKey struct{ fixture, lane, configuration, stage, task int32 }
	cited := map[citedKey]bool{}
	for id, f := range c.model.Fixtures {
		rep := f.Report
		if rep == nil {
			continue
		}
		for _, st := range rep.Stages {
			for _, t := range rep.Tasks {
				ck := citedKey{c.names.lookup(id), c.names.lookup(rep.Lane), c.names.lookup(rep.Configuration), c.names.lookup(st), c.names.lookup(t)}
				if !slices.Contains([]int32{ck.fixture, ck.lane, ck.configuration, ck.stage, ck.task}, -1) {
					cited[ck] = true
				}
			}
		}
	}
	if len(cited) == 0 {
		return nil, nil
	}
	results, err := c.resultsWhere(t, func(k key) bool {
		return cited[citedKey{k.fixture, k.lane, k.configuration, k.stage, k.task}]
	})
	if err != nil {
		return nil, err
	}
	var out []result.Reported
	for _, id := range contract.SortedKeys(c.model.Fixtures) {
		rep := c.model.Fixtures[id].Report
		if rep == nil {
			continue
		}
		var mine []*result.Result
		for i := range results {
			r := &results[i]
			if r.Fixture == id && r.Lane == rep.Lane && r.Configuration == rep.Configuration &&
				slices.Contains(rep.Stages, r.Stage) && slices.Contains(rep.Tasks, r.Task) {
				mine = append(mine, r)
			}
		}
		if len(mine) == 0 {
			continue
		}
		out = append(out, result.Reported{
			Fixture: id, URL: rep.URL, Lane: rep.Lane, Configuration: rep.Configuration, Atoms: rep.Atoms,
			Buggy: side(mine, rep.Buggy, rep.Atoms), Fixed: side(mine, rep.Fixed, rep.Atoms), NotRun: rep.NotRun,
		})
	}
	return out, nil
}

func side(results []*result.Result, version string, atoms []string) result.Side {
	s := result.Side{Version: version, Outcome: "not captured"}
	if version == "" {
		return s
	}
	outcomes := map[string]bool{}
	named, others := map[string]bool{}, map[string]bool{}
	for _, r := range results {
		if r.LaneVersion != version {
			continue
		}
		outcomes[r.Outcome] = true
		for _, d := range r.Diagnostics {
			a, _ := d["atom"].(string)
			if slices.Contains(atoms, a) {
				named[a] = true
			} else if a != "" {
				others[a] = true
			}
		}
	}
	switch len(outcomes) {
	case 0:
		return s
	case 1:
		for o := range outcomes {
			s.Outcome = o
		}
	default:
		s.Outcome = "mixed"
		if outcomes[result.Unmet] {
			s.Outcome = result.Unmet
		}
	}
	s.Atoms, s.Others = contract.SortedKeys(named), contract.SortedKeys(others)
	return s
}
