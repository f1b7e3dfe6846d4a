package main

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/report"
)

// testJSON writes a test run as one JSON document: the tests, the coverage when there is one, and
// how many passed and failed.
type testJSON struct{}

// Output implements report.Formatter.
func (testJSON) Output(w io.Writer, run *policy.TestRun) error {
	failed := run.Failed()
	return report.WriteJSON(w, struct {
		*policy.TestRun
		Passed int `json:"passed"`
		Failed int `json:"failed"`
	}{run, len(run.Results) - failed, failed})
}
