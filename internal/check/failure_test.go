package check

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// failureInputs writes a custom task T7 over C01's direct D1 record, judged by the policy rego,
// and returns the options of a run over them.
func failureInputs(t *testing.T, rego string) instrument.Options {
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
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return instrument.Options{Contracts: []string{filepath.Join(dir, "layer")}, Policies: []string{filepath.Join(dir, "policies")},
		Observations: []string{filepath.Join(dir, "obs")}, Scope: result.Scope{Lanes: []string{"direct"}}}
}

// TestExecuteWritesAFailedRunsReport: a run whose instrument fails (a policy whose evaluation
// fails) still hands its sink a report, in the format asked for (html too, which is made with
// the run's views), naming the failure and giving no
// verdict, with the run's error and exit 3; it is never cached, so a second run fails again
// rather than replaying it. A run that fails on bad input (a Rego syntax error, exit 2) writes
// no report.
func TestExecuteWritesAFailedRunsReport(t *testing.T) {
	failing := "package custom.t7\n\ndiagnostics contains d if {\n\td := {\"atom\": \"block.text\", \"path\": \"\", \"kind\": to_number(\"many\")}\n}\n"
	tests := []struct {
		name     string
		rego     string
		format   string
		exit     int
		contains []string // in the report; none when no report is written
	}{
		{name: "json", rego: failing, format: "json", exit: result.ExitInstrument,
			contains: []string{`"failure": {`, `"exit": 3`, `"verdict": "instrument_failed"`, `eval_builtin_error: to_number`}},
		{name: "junit", rego: failing, format: "junit", exit: result.ExitInstrument,
			contains: []string{`errors="1"`, `<error message="the instrument failed: `, `eval_builtin_error: to_number`}},
		{name: "html", rego: failing, format: "html", exit: result.ExitInstrument,
			contains: []string{`id="failure"`, "eval_builtin_error: to_number"}},
		{name: "input error writes nothing", rego: "package custom.t7\n\ndiagnostics contains {", format: "junit", exit: result.ExitInputError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTRACTCHECK_CACHE", t.TempDir())
			req := Request{Options: failureInputs(t, tc.rego), Format: tc.format}
			runs := 1
			if tc.format == "json" {
				runs = 2 // the second is not replayed from the cache
			}
			for run := 1; run <= runs; run++ {
				var buf bytes.Buffer
				o, err := Execute(context.Background(), req, func(write func(io.Writer) error) error { return write(&buf) })
				if o.Exit != tc.exit || err == nil || result.ExitCode(err) != tc.exit {
					t.Fatalf("run %d: exit %d, error %v; want exit %d and its error", run, o.Exit, err, tc.exit)
				}
				if o.Replayed || o.Verdict != "" {
					t.Errorf("run %d: outcome %+v: a failed run is neither replayed nor gives a verdict", run, o)
				}
				if tc.contains == nil {
					if buf.Len() != 0 {
						t.Errorf("an input error wrote a report: %q", buf.String())
					}
					return
				}
				for _, want := range tc.contains {
					if !strings.Contains(buf.String(), want) {
						t.Errorf("run %d: the report does not hold %q:\n%s", run, want, buf.String())
					}
				}
				if tc.format == "json" {
					validateReport(t, buf.Bytes())
				}
			}
		})
	}
}

// validateReport holds a JSON report to the report schema.
func validateReport(t *testing.T, data []byte) {
	t.Helper()
	if err := reportkit.ReportSchemaError(t, data); err != nil {
		t.Errorf("report does not validate against its schema: %v\n%s", err, data)
	}
}
