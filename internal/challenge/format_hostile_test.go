package challenge

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/mutate"
)

// TestTextEscapesHostileSuites writes the text report of a suite whose every string (suite,
// case id, operator, fixture, lane, file, description, tasks and diagnostics) is a string of the
// corpus, for a misclassified fault and control, and finds no line that starts a CI command and
// no control or bidi character but line breaks.
func TestTextEscapesHostileSuites(t *testing.T) {
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			s := c.S
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
			var b bytes.Buffer
			if err := (&Report{Suite: "suite " + s, Profile: "p" + s, Cases: cases}).Write(&b, "text"); err != nil {
				t.Fatal(err)
			}
			for n, line := range strings.Split(b.String(), "\n") {
				if escape.CommandStart(line) {
					t.Errorf("line %d starts a CI command: %q", n+1, line)
				}
				for _, r := range line {
					if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
						t.Errorf("line %d holds %U: %q", n+1, r, line)
						break
					}
				}
			}
		})
	}
}
