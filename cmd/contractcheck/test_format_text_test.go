package main

import (
	"io"
	"testing"

	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestTestTextHostileNames: every name the test verb's text format prints comes from a user's
// policy layer (a package, a rule, a file, what a test printed), so each is escaped for the
// terminal and no line can start a CI runner's command, the coverage's file names included.
func TestTestTextHostileNames(t *testing.T) {
	testkit.HostileText(t, "test --format text", func(w io.Writer, s string) error {
		run := &policy.TestRun{
			Results: []policy.TestResult{{Package: s, Name: s, Location: s, Fail: s, Output: s}},
			Coverage: &policy.Coverage{Files: []policy.FileCoverage{
				{File: s, CoveredLines: 1, NotCoveredLines: 1, Percent: 50, NotCovered: []policy.LineRange{{Start: 2, End: 2}}},
			}, CoveredLines: 1, NotCoveredLines: 1, Percent: 50},
		}
		return (testText{Verbose: true}).Output(w, run)
	})
}
