package challenge

import (
	"io"
	"testing"

	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestTextEscapesHostileSuites writes the text report of a suite whose every string (suite,
// case id, operator, fixture, lane, file, description, tasks and diagnostics) is a string of the
// corpus, for a misclassified fault and control, and finds no line that starts a CI command and
// no control or bidi character but line breaks.
func TestTextEscapesHostileSuites(t *testing.T) {
	testkit.HostileText(t, "challenge --format text", func(w io.Writer, s string) error {
		diag := map[string]any{"atom": "atom " + s, "kind": "missing", "path": "/" + s, "expected": s, "observed": s}
		var cases []*CaseResult
		for _, kind := range []string{mutate.Fault, mutate.Control} {
			cases = append(cases, &CaseResult{
				Case: &mutate.Case{ID: "id " + s, Operator: "op " + s, Kind: kind, Task: "T" + s, Description: "desc " + s,
					Fixture: "F" + s, Expected: mutate.Expected{Tasks: []string{"T" + s}}},
				File: "cases/" + s + ".json", Lane: "lane " + s, Stage: "D1", Oracle: Missed, SchemaOnly: Missed, RecursiveSearch: Missed,
				Tasks: []TaskResult{{Task: "T" + s, Outcome: Pass, Diagnostics: []map[string]any{diag}}},
			})
		}
		return (&Report{Suite: "suite " + s, Profile: "p" + s, Cases: cases}).Write(w, "text")
	})
}
