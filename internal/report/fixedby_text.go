package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractcheck/contractcheck/internal/result"
)

// writeFixes writes one block per fixedBy clause: its status, then the bindings where an atom
// remains and those that regressed; each string of the data escape.Terminal.
func writeFixes(w io.Writer, fixes []result.FixResult) {
	for _, f := range fixes {
		mark := "✓"
		if f.Status != result.FixFixed {
			mark = "✗"
		}
		fmt.Fprintf(w, "fixed-by %s %s %s → %s (%s): %s — %d of %d compared bindings named them before\n",
			mark, term(f.Lane), term(f.From), term(f.To), strings.Join(terms(f.Atoms), ", "), term(f.Status), f.Before, f.Compared)
		if f.Unmatched != "" {
			fmt.Fprintf(w, "      %s\n", term(f.Unmatched))
		}
		for _, b := range f.Remaining {
			fmt.Fprintf(w, "      remains: %s %s %s %s: %s → %s %s\n", term(b.Fixture), term(b.Configuration), term(b.Stage), term(b.Task),
				term(b.Before), term(b.After), strings.Join(terms(b.AtomsAfter), ", "))
		}
		for _, b := range f.Regressions {
			fmt.Fprintf(w, "      regressed: %s %s %s %s: %s → %s\n", term(b.Fixture), term(b.Configuration), term(b.Stage), term(b.Task), term(b.Before), term(b.After))
		}
		fmt.Fprintf(w, "      %s: %s\n", term(f.Name), term(oneLine(f.Doc)))
	}
}

// unmetFixes counts the fixedBy clauses whose fix did not land, for the verdict line.
func unmetFixes(fixes []result.FixResult) string {
	n := 0
	for _, f := range fixes {
		if f.Status == result.FixUnmet {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s not fixed", plural(n, "fixedBy clause"))
}

// writeReached writes, per stage of the profile's visibility.reached clause, each group whose
// records carry nothing of what was served, with its first record; each string escape.Terminal.
func writeReached(w io.Writer, reached []result.ReachedResult) {
	for _, q := range reached {
		for _, g := range q.Unreached {
			fmt.Fprintf(w, "  ✗ %s %s %s %s: nothing of what was served reached the model (every record reads nothing, or a text of the agent's own)\n",
				term(g.Lane), term(g.Version), term(g.Configuration), term(q.Stage))
			if len(g.Records) > 0 {
				fmt.Fprintf(w, "      record %s\n", term(g.Records[0]))
			}
			fmt.Fprintf(w, "      required by %s (docs/visibility.md)\n", term(q.Name))
		}
	}
}

// unmetReached counts the groups the visibility.reached clause found nothing served in, for the
// verdict line.
func unmetReached(reached []result.ReachedResult) string {
	n := 0
	for _, q := range reached {
		n += len(q.Unreached)
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s with nothing served", plural(n, "group"))
}
