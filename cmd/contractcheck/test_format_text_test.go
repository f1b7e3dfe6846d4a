package main

import (
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/policy"
)

// TestTestTextHostileNames: every name the test verb's text format prints comes from a user's
// policy layer (a package, a rule, a file, what a test printed), so each is escaped for the
// terminal and no line can start a CI runner's command, the coverage's file names included.
func TestTestTextHostileNames(t *testing.T) {
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			run := &policy.TestRun{
				Results: []policy.TestResult{{Package: c.S, Name: c.S, Location: c.S, Fail: c.S, Output: c.S}},
				Coverage: &policy.Coverage{Files: []policy.FileCoverage{
					{File: c.S, CoveredLines: 1, NotCoveredLines: 1, Percent: 50, NotCovered: []policy.LineRange{{Start: 2, End: 2}}},
				}, CoveredLines: 1, NotCoveredLines: 1, Percent: 50},
			}
			var b strings.Builder
			if err := (testText{Verbose: true}).Output(&b, run); err != nil {
				t.Fatal(err)
			}
			assertTerminalSafe(t, "test --format text", b.String(), false)
		})
	}
}
