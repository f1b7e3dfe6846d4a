package main

import (
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/report"
)

// The formats of contractcheck test's result (a policy.TestRun): here, where the verb is, so that
// the policy package, a step of the pipeline, holds no output code.

// testOutputters are the formats of a test run (contractcheck test --format), one file each
// (test_format_json.go, test_format_text.go): adding one is a new file and a line here.
var testOutputters = report.Registry[*policy.TestRun]{
	"text": func(o report.Options) report.Formatter[*policy.TestRun] { return testText{Verbose: o.Details} },
	"json": report.Fixed[*policy.TestRun](testJSON{}),
}

// testFormats returns the formats of a test run: what test's --format offers. Its text format
// reads report.Options.Details as -v (every test, not only the failures).
func testFormats() report.Registry[*policy.TestRun] { return testOutputters }
