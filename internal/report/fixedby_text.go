package report

import (
	"fmt"
	"io"
	"strings"
)

// writeFixes writes one block per fixedBy clause: its status, then the bindings where an atom
// remains and those that regressed.
func writeFixes(w io.Writer, fixes []FixResult) {
	for _, f := range fixes {
		mark := "✓"
		if f.Status != FixFixed {
			mark = "✗"
		}
		fmt.Fprintf(w, "fixed-by %s %s %s → %s (%s): %s — %d of %d compared bindings named them before\n",
			mark, f.Lane, f.From, f.To, strings.Join(f.Atoms, ", "), f.Status, f.Before, f.Compared)
		if f.Unmatched != "" {
			fmt.Fprintf(w, "      %s\n", f.Unmatched)
		}
		for _, b := range f.Remaining {
			fmt.Fprintf(w, "      remains: %s %s %s %s: %s → %s %s\n", b.Fixture, b.Configuration, b.Stage, b.Task, b.Before, b.After, strings.Join(b.AtomsAfter, ", "))
		}
		for _, b := range f.Regressions {
			fmt.Fprintf(w, "      regressed: %s %s %s %s: %s → %s\n", b.Fixture, b.Configuration, b.Stage, b.Task, b.Before, b.After)
		}
		fmt.Fprintf(w, "      %s: %s\n", f.Name, oneLine(f.Doc))
	}
}

// unmetFixes counts the fixedBy clauses whose fix did not land, for the verdict line.
func unmetFixes(fixes []FixResult) string {
	n := 0
	for _, f := range fixes {
		if f.Status == FixUnmet {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s not fixed", plural(n, "fixedBy clause"))
}
