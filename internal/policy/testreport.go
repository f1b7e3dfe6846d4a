package policy

import (
	"io"

	"github.com/contractcheck/contractcheck/internal/report"
)

// testOutputters are the formats of a test run (contractcheck test --format), one file each
// (testreport.go, testreport_text.go): adding one is a new file and a line here.
var testOutputters = report.Registry[*TestRun]{
	"text": func(o report.Options) report.Formatter[*TestRun] { return TestText{Verbose: o.Details} },
	"json": report.Fixed[*TestRun](TestJSON{}),
}

// TestOutputters returns the formats of a test run: what test's --format offers. Its text format
// reads report.Options.Details as -v (every test, not only the failures).
func TestOutputters() report.Registry[*TestRun] { return testOutputters }

// TestJSON writes a test run as one JSON document: the tests, the coverage when there is one, and
// how many passed and failed.
type TestJSON struct{}

// Output implements report.Formatter.
func (TestJSON) Output(w io.Writer, run *TestRun) error {
	failed := run.Failed()
	return report.WriteJSON(w, struct {
		*TestRun
		Passed int `json:"passed"`
		Failed int `json:"failed"`
	}{run, len(run.Results) - failed, failed})
}
