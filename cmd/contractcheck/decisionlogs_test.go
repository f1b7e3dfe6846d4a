package main

import (
	"os"
	"testing"
)

// consoleLog is a stock OPA's console decision log of four decisions on C01 through the control
// lane (repetition 1 of D1, A2, M3 and H4), OPA's own lines and a decision of another path among them.
const consoleLog = "../../internal/decisionlog/testdata/console.log"

// TestCheckDecisionLogs runs check --decision-logs from the command line: a scope the log covers
// gives a verdict and says on standard error what the log held besides; a wider scope is an
// incomplete census (exit 2) whose text and JSON reports say so; standard input is read; both
// --decision-logs - and --observations - is refused.
func TestCheckDecisionLogs(t *testing.T) {
	t.Parallel()
	log, err := os.ReadFile(consoleLog)
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, true, []cliCase{
		{name: "covered", args: []string{"--decision-logs", consoleLog, "--lane", "direct", "--fixture", "C01"}, code: 0,
			inStdout: []string{"gate: profile strict satisfied"},
			inStderr: []string{"decision logs: 4 decisions of contractcheck/decision in 1 files; 1 decisions of other paths not taken", "16 log lines that are not decision events"}},
		{name: "covered, standard input", stdin: string(log), args: []string{"--decision-logs", "-", "--lane", "direct", "--fixture", "C01", "--format", "json"}, code: 0,
			inStdout: []string{`"repetitions": 1`, `"file": "builtin:fixtures/observations/direct/v1/default.jsonl"`}},
		{name: "lacking", args: []string{"--decision-logs", consoleLog, "--lane", "direct", "--fixture", "C0[12]"}, code: 2,
			inStdout: []string{"INCOMPLETE: the decision logs hold 8 of the 16 expected bindings; 8 lacking", "? C02 direct v1 default D1 T1"},
			inStderr: []string{"the decision logs lack 8 of the 16 expected bindings"}},
		{name: "lacking, json", args: []string{"--decision-logs", consoleLog, "--lane", "direct", "--fixture", "C0[12]", "--format", "json"}, code: 2,
			inStdout: []string{`"lacking": {`, `"count": 8`}},
		{name: "lacking, with the records", args: []string{"--decision-logs", consoleLog, "--observations", "../../fixtures/observations/direct", "--fixture", "C01"}, code: 2,
			inStderr: []string{"the decision logs lack 16 of the 24 expected bindings"}},
		{name: "stdin twice", stdin: string(log), args: []string{"--decision-logs", "-", "--observations", "-"}, code: 2,
			inStderr: []string{"both read standard input"}},
	}, "check", "--no-cache")
}
