package check

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// failureInputs writes a custom task T7 over C01's direct D1 record, judged by the policy rego,
// and returns the options of a run over them.
func failureInputs(t *testing.T, rego string) inputs.Options {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"layer/t7.cue": `package contracts

tasks: T7: {doc: "A custom task.", role: "guard", policy: "custom.t7", compartment: "content", atoms: ["block.text"], appliesTo: fixtures: ["C01"]}
`,
		"policies/t7.rego": rego,
		"obs/direct.jsonl": `{"fixture":"C01","lane":"direct","laneVersion":"v1","configuration":"default","stage":"D1","repetition":1,"state":"captured","carrier":{"content":[{"type":"text","text":"Shipment NWF-4471-KX left the Rotterdam hub at 06:42 UTC and is due at the Leeds depot on 14 November; 3 of 5 pallets have been scanned so far."}]},"sourceSha256":"dd3777e00a5e2ab5a22ac32a9910b1b80eb5cea9548a386f66afad2423dbe40e","origin":"captured"}
`,
	}
	testkit.WriteTree(t, dir, files)
	return inputs.Options{Contracts: []string{filepath.Join(dir, "layer")}, Policies: []string{filepath.Join(dir, "policies")},
		Observations: []string{filepath.Join(dir, "obs")}, Scope: result.Scope{Lanes: []string{"direct"}}}
}

// TestExecuteReturnsAFailedRunsReport: a run whose instrument fails (a policy whose evaluation
// fails) still returns a report, naming the failure and giving no verdict, beside the run's error
// (exit 3), with no views even when they were asked for; it renders as a valid JSON report (the
// failure, the error naming the record, the task and the policy, the run's lanes) and as a SARIF
// log whose run was not successful. A run that fails on bad input (a Rego syntax error, exit 2)
// returns none. (testdata/script/incomplete-report.txtar in cmd/contractcheck holds what the
// command line adds: the report written to --output on exit 3, in JUnit and text.)
func TestExecuteReturnsAFailedRunsReport(t *testing.T) {
	failing := "package custom.t7\n\ndiagnostics contains d if {\n\td := {\"atom\": \"block.text\", \"path\": \"\", \"kind\": to_number(\"many\")}\n}\n"
	tests := []struct {
		name   string
		rego   string
		views  bool
		exit   int
		report bool // a report is returned
	}{
		{name: "instrument failure", rego: failing, exit: result.ExitInstrument, report: true},
		{name: "instrument failure, views asked", rego: failing, views: true, exit: result.ExitInstrument, report: true},
		{name: "input error returns no report", rego: "package custom.t7\n\ndiagnostics contains {", exit: result.ExitInputError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Execute(context.Background(), Request{Options: failureInputs(t, tc.rego), Views: tc.views})
			if err == nil || result.ExitCode(err) != tc.exit {
				t.Fatalf("error %v; want one with exit %d", err, tc.exit)
			}
			if o.Views != nil {
				t.Error("a failed run returned views")
			}
			if !tc.report {
				if o.Report != nil {
					t.Errorf("an input error returned a report: %+v", o.Report)
				}
				return
			}
			if o.Report == nil || o.Report.Failure == nil || o.Report.ExitCode() != result.ExitInstrument || o.Report.Gate.Verdict != result.VerdictInstrumentFailed {
				t.Fatalf("report %+v: want one naming the failure, exit 3, verdict instrument_failed", o.Report)
			}
			js := reportkit.Render(t, o.Report, "json")
			for _, want := range []string{`"failure": {`, `"exit": 3,`, `"verdict": "instrument_failed"`, `eval_builtin_error: to_number`, `"lanes": [`} {
				if !strings.Contains(js, want) {
					t.Errorf("the report does not hold %q:\n%s", want, js)
				}
			}
			if !failedRunError.MatchString(js) {
				t.Errorf("the report's error does not match %s:\n%s", failedRunError, js)
			}
			validateReport(t, []byte(js))
			sarif := reportkit.Render(t, o.Report, "sarif")
			for _, want := range []string{`"executionSuccessful": false`, `"text": "the instrument failed: `} {
				if !strings.Contains(sarif, want) {
					t.Errorf("the SARIF log does not hold %q:\n%s", want, sarif)
				}
			}
			if !failedRunMessage.MatchString(sarif) {
				t.Errorf("the SARIF log's message does not match %s:\n%s", failedRunMessage, sarif)
			}
		})
	}
}

// failedRunError and failedRunMessage are what a failed run of failureInputs says in its JSON report
// and its SARIF log: the record, the task at its position and the policy that failed.
var (
	failedRunError   = regexp.MustCompile(`"error": "[^"]*obs/direct\.jsonl:1: task T7 [^"]*policies/t7\.rego: policy: evaluating custom\.t7`)
	failedRunMessage = regexp.MustCompile(`"text": "the instrument failed: [^"]*obs/direct\.jsonl:1: task T7 \(C01 direct v1 default D1\)`)
)

// validateReport holds a JSON report to the report schema.
func validateReport(t *testing.T, data []byte) {
	t.Helper()
	if err := reportkit.ReportSchemaError(t, data); err != nil {
		t.Errorf("report does not validate against its schema: %v\n%s", err, data)
	}
}
