package census

import (
	"fmt"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/result"
)

// gate applies the profile's requirements to the collapsed results. Each requirement counts the
// bindings it selects, the ones it exempts (not_applicable and not_observable, unless it counts
// them) and the ones whose outcome it does not allow. The verdict is never "satisfied" on nothing:
// a profile without requirements, or a requirement that gates no binding, gives "selected_nothing"
// with the selector that matched nothing; any unstable binding gives "instrument_failed". In a run
// restricted to a scope, a requirement that gates nothing is out of scope, and the gate selects
// nothing only when no requirement gates a binding.
func (c *Census) gate(t *table) (result.Gate, error) {
	g := result.Gate{Violations: []result.Violation{}, Requirements: []result.RequirementResult{}}
	reqs := c.profile.Require
	for _, req := range reqs {
		g.Requirements = append(g.Requirements, result.RequirementResult{Clause: result.Clause{Name: req.Name, Doc: req.Doc, Position: req.Pos}})
	}
	unstable := 0
	err := t.each(c, func(b *binding) error {
		outcome := c.outcome(b)
		if outcome == result.Unstable {
			unstable++
		}
		sel := c.selection(b.key)
		for k, req := range reqs {
			if !req.Selects(sel) {
				continue
			}
			st := &g.Requirements[k]
			st.Selected++
			if req.Exempts(outcome) {
				st.Exempt++
				continue
			}
			if !req.Allows(outcome) {
				st.Violations++
				res := c.result(b)
				g.Violations = append(g.Violations, result.Violation{
					Position: res.Position(), Task: res.Task, Outcome: res.Outcome, Requirement: req.Doc, RequirementName: req.Name,
					Diagnostics: res.Diagnostics, Records: res.Records,
				})
			}
		}
		return nil
	})
	if err != nil {
		return g, err
	}
	nothing := len(reqs) == 0 && len(c.profile.FixedBy) == 0
	fixes, err := c.fixedBy(t)
	if err != nil {
		return g, err
	}
	g.FixedBy = fixes.results
	inScope := fixes.inScope
	for k, req := range reqs {
		st := &g.Requirements[k]
		if st.Selected > st.Exempt {
			inScope++
			continue
		}
		if st.Unmatched, err = c.whyNothing(req, t); err != nil {
			return g, err
		}
		if c.scope != nil {
			st.OutOfScope = true // the run was restricted away from it
		} else {
			nothing = true
		}
	}
	if c.scope != nil && inScope == 0 || fixes.nothing {
		nothing = true
	}
	switch {
	case unstable > 0:
		g.Verdict = result.VerdictInstrumentFailed
	case nothing:
		g.Verdict = result.VerdictSelectedNothing
	case len(g.Violations) > 0 || fixes.unmet:
		g.Verdict = result.VerdictUnmet
	default:
		g.Verdict = result.VerdictSatisfied
	}
	g.Satisfied = g.Verdict == result.VerdictSatisfied
	return g, nil
}

// requiredBy names the requirements that gate a binding with this selection and outcome.
func (c *Census) requiredBy(sel contract.Selection, outcome string) []string {
	var out []string
	for _, req := range c.profile.Require {
		if req.Selects(sel) && !req.Exempts(outcome) {
			out = append(out, req.Name)
		}
	}
	return out
}

// whyNothing explains a requirement that gates no binding: the first selector, from the widest,
// after which no binding is left, with the values the bindings before it had; or, when bindings
// were selected, that every one is exempt.
func (c *Census) whyNothing(req contract.Requirement, t *table) (string, error) {
	matches := func(sel contract.Selector, s contract.Selection) bool {
		return sel.Keeps(s)
	}
	selectors := req.Selectors()
	var applied []string
	for n, sel := range selectors {
		// The bindings every earlier selector keeps: what this one sees, and what it keeps.
		seen := map[string]bool{}
		kept := 0
		err := t.each(c, func(b *binding) error {
			x := c.selection(b.key)
			ok := true
			for _, before := range selectors[:n] {
				if !matches(before, x) {
					ok = false
					break
				}
			}
			if !ok {
				return nil
			}
			if len(seen) < 64 {
				seen[sel.Of(x)] = true
			}
			if matches(sel, x) {
				kept++
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		if kept == 0 {
			scope := "no binding of this run"
			if len(applied) > 0 {
				scope = "no binding with " + strings.Join(applied, " ")
			}
			return fmt.Sprintf("%s matches %s %s (seen: %s)", scope, sel.Name, quoted(sel.Entries), sample(seen)), nil
		}
		if len(sel.Entries) > 0 && !(len(sel.Entries) == 1 && sel.Entries[0] == "*") {
			applied = append(applied, sel.Name+" "+quoted(sel.Entries))
		}
		if n == len(selectors)-1 {
			return fmt.Sprintf("all %d selected bindings are not_applicable or not_observable, which the requirement exempts (unobserved: \"exempt\")", kept), nil
		}
	}
	return "the run has no bindings", nil
}

func quoted(entries []string) string {
	q := make([]string, len(entries))
	for i, e := range entries {
		q[i] = fmt.Sprintf("%q", e)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// sample lists up to eight of the values seen, sorted.
func sample(seen map[string]bool) string {
	vals := make([]string, 0, len(seen))
	for v := range seen {
		vals = append(vals, v)
	}
	sort.Strings(vals)
	if len(vals) == 0 {
		return "none"
	}
	if len(vals) > 8 {
		return strings.Join(vals[:8], ", ") + fmt.Sprintf(", … %d more", len(vals)-8)
	}
	return strings.Join(vals, ", ")
}
