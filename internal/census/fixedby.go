package census

import (
	"fmt"
	"slices"
	"sort"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// fixes is what the profile's fixedBy clauses contribute to the gate.
type fixes struct {
	results []result.FixResult
	// unmet: a clause's fix did not land or something regressed; nothing: a clause selected no
	// binding (outside a restricted run); inScope counts the clauses that selected something.
	unmet, nothing bool
	inScope        int
}

// fixedBy evaluates each fixedBy clause on the collapsed results, on top of what the upgrade view
// compares: the same (configuration, fixture, stage, task) at two versions of one lane. A clause
// is fixed when at `from` some selected binding names one of its atoms, at `to` none does (and
// each of those runs), and no binding that passed at `from` fails to pass at `to`. A clause whose
// versions have no selected bindings selects nothing; one with nothing to fix at `from` is unmet,
// since a gate never passes on nothing.
func (c *Census) fixedBy(t *table) (fixes, error) {
	var out fixes
	for _, fb := range c.profile.FixedBy {
		// Only the two versions' bindings are made into results.
		lane, from, to := c.names.lookup(fb.Lane), c.names.lookup(fb.From), c.names.lookup(fb.To)
		results, err := c.resultsWhere(t, func(k key) bool {
			return k.lane == lane && (k.version == from || k.version == to)
		})
		if err != nil {
			return out, err
		}
		fr := c.fixedByOne(fb, results)
		switch fr.Status {
		case result.FixUnmet:
			out.unmet = true
			out.inScope++
		case result.FixSelectedNothing:
			if c.scope != nil {
				fr.OutOfScope = true
			} else {
				out.nothing = true
			}
		default:
			out.inScope++
		}
		out.results = append(out.results, fr)
	}
	return out, nil
}

// fixedByOne decides one clause on the results of its lane's two versions (fixedBy selects them).
func (c *Census) fixedByOne(fb contract.FixedBy, results []result.Result) result.FixResult {
	fr := result.FixResult{Clause: result.Clause{Name: fb.Name, Doc: fb.Doc, Position: fb.Pos}, Lane: fb.Lane, From: fb.From, To: fb.To,
		Atoms: fb.Atoms, Remaining: []result.FixBinding{}, Regressions: []result.FixBinding{}}
	type key struct{ configuration, fixture, stage, task string }
	side := map[string]map[key]*result.Result{fb.From: {}, fb.To: {}}
	var order []key // the `to` side's bindings in report order
	// Regressions are looked for in every binding of the two versions (of the selected
	// configurations): a fix at one fixture must not break another.
	all := map[string]map[key]*result.Result{fb.From: {}, fb.To: {}}
	var allOrder []key
	for i := range results {
		r := &results[i]
		if len(fb.Configurations) > 0 && !contract.Matches(fb.Configurations, r.Configuration) {
			continue
		}
		k := key{r.Configuration, r.Fixture, r.Stage, r.Task}
		all[r.LaneVersion][k] = r
		if r.LaneVersion == fb.To {
			allOrder = append(allOrder, k)
		}
		if !fb.Selects(r.Configuration, r.Stage, r.Fixture, r.Task) {
			continue
		}
		side[r.LaneVersion][k] = r
		if r.LaneVersion == fb.To {
			order = append(order, k)
		}
	}
	for _, v := range []string{fb.From, fb.To} {
		if len(side[v]) == 0 {
			fr.Status = result.FixSelectedNothing
			fr.Unmatched = fmt.Sprintf("no binding of lane %s version %s matches configurations %s, stages %s, fixtures %s, tasks %s",
				fb.Lane, v, quoted(fb.Configurations), quoted(fb.Stages), quoted(fb.Fixtures), quoted(fb.Tasks))
			return fr
		}
	}
	for _, k := range order {
		before, ok := side[fb.From][k]
		if !ok {
			continue
		}
		after := side[fb.To][k]
		fr.Compared++
		b := result.FixBinding{Fixture: k.fixture, Configuration: k.configuration, Stage: k.stage, Task: k.task,
			Before: before.Outcome, After: after.Outcome,
			AtomsBefore: namedAtoms(before, fb.Atoms), AtomsAfter: namedAtoms(after, fb.Atoms)}
		if len(b.AtomsBefore) > 0 {
			fr.Before++
		}
		ran := after.Outcome == result.Pass || after.Outcome == result.Unmet
		if len(b.AtomsAfter) > 0 || (len(b.AtomsBefore) > 0 && !ran) {
			fr.Remaining = append(fr.Remaining, b)
		}
	}
	for _, k := range allOrder {
		before, ok := all[fb.From][k]
		after := all[fb.To][k]
		if ok && before.Outcome == result.Pass && after.Outcome != result.Pass && !isUnobserved(after.Outcome) {
			fr.Regressions = append(fr.Regressions, result.FixBinding{Fixture: k.fixture, Configuration: k.configuration,
				Stage: k.stage, Task: k.task, Before: before.Outcome, After: after.Outcome})
		}
	}
	switch {
	case fr.Compared == 0:
		fr.Status = result.FixSelectedNothing
		fr.Unmatched = fmt.Sprintf("versions %s and %s of lane %s have no selected binding in common", fb.From, fb.To, fb.Lane)
	case fr.Before == 0:
		fr.Status = result.FixUnmet
		fr.Unmatched = fmt.Sprintf("no selected binding names %s at %s: there is nothing the upgrade could be shown to fix", quoted(fb.Atoms), fb.From)
	case len(fr.Remaining) > 0 || len(fr.Regressions) > 0:
		fr.Status = result.FixUnmet
	default:
		fr.Status = result.FixFixed
	}
	return fr
}

// namedAtoms lists, sorted, the atoms among atoms that a result's diagnostics name.
func namedAtoms(r *result.Result, atoms []string) []string {
	var out []string
	for _, d := range r.Diagnostics {
		if a, ok := d["atom"].(string); ok && slices.Contains(atoms, a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

func isUnobserved(outcome string) bool {
	return outcome == contract.NotApplicable || outcome == contract.NotObservable
}
