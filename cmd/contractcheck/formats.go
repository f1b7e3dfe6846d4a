package main

import (
	"github.com/contractcheck/contractcheck/internal/buildinfo"
	"github.com/contractcheck/contractcheck/internal/inspect"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/validate"
)

// The formats of the verbs whose results are made or shaped here, beside the verb, rather than in
// a package of their own: test, inspect fixture, inspect record, inspect traffic, validate,
// version and capabilities (the packages that make those results — policy, inspect, probe,
// validate, buildinfo — are steps or tools and hold no output code). Each verb's formats are a
// report.Registry, the one way a verb offers formats (check's, compare's, study's, challenge's,
// lock's and bundle's are in their packages), bound to --format and --output by addOutputFlags
// (output.go). They are all here, in one place; each format is one file,
// <verb>_format_<name>.go, and a json format that writes the result as it is is
// report.JSONFormat, written once (report.TextAndJSON). Adding a format is a new file and a line
// here; TestFormatsInOneFile holds the package to it.

// testOutputters are the formats of a test run (contractcheck test --format):
// test_format_text.go, test_format_json.go. The text format reads report.Options.Details as -v
// (every test, not only the failures).
var testOutputters = report.Registry[*policy.TestRun]{
	"text": func(o report.Options) report.Formatter[*policy.TestRun] { return testText{Verbose: o.Details} },
	"json": report.Fixed[*policy.TestRun](testJSON{}),
}

// inspectFixtureOutputters are inspect fixture's formats: inspect_fixture_format_text.go, and the
// entry as JSON.
var inspectFixtureOutputters = report.TextAndJSON[inspect.Entry](writeEntryText)

// inspectRecordOutputters are inspect record's formats: inspect_record_format_text.go, and the
// inspection as JSON.
var inspectRecordOutputters = report.TextAndJSON[inspection](writeInspectionText)

// inspectTrafficOutputters are inspect traffic's formats: inspect_traffic_format_text.go, and the
// runs as JSON (the exact bytes).
var inspectTrafficOutputters = report.TextAndJSON[trafficInspection](writeTrafficText)

// validateOutputters are validate's formats: validate_format_text.go (the valid sources; the
// invalid ones are the verb's to say, on stderr) and validate_format_json.go (every source).
var validateOutputters = report.Registry[[]validate.Validated]{
	"text": report.Fixed[[]validate.Validated](report.TextFormat[[]validate.Validated](writeValidateText)),
	"json": report.Fixed[[]validate.Validated](validateJSON{}),
}

// versionOutputters are version's formats: what this build is, for a reader
// (version_format_text.go) or a program (json). buildinfo knows no verb.
var versionOutputters = report.TextAndJSON[buildinfo.Info](writeVersionText)

// capabilitiesOutputters are capabilities' formats: OPA reads its capabilities as JSON, and the
// verb prints the bytes policy.CapabilitiesJSON made, as they are (capabilities_format_json.go).
var capabilitiesOutputters = report.Registry[[]byte]{"json": report.Fixed[[]byte](rawJSON{})}
