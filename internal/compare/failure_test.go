package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// TestFailedReport: the report of a compare that failed before it could compare names the
// failure in every format, gives exit 3, and validates against the compare report schema.
func TestFailedReport(t *testing.T) {
	r := Failed("strict", &result.Scope{Lanes: []string{"direct"}}, errors.New("obs/x.jsonl:1: p/t7.rego: policy: evaluating custom.t7\nsecond line"))
	if r.ExitCode() != result.ExitInstrument {
		t.Errorf("exit %d, want 3", r.ExitCode())
	}
	tests := []struct {
		name, format string
		want         []string
	}{
		{name: "text", format: "text", want: []string{"restricted to lanes direct\n",
			"\nINCOMPLETE: the instrument failed: obs/x.jsonl:1: p/t7.rego: policy: evaluating custom.t7\n  second line\n",
			"no comparison for profile strict: the run failed before it could make one (exit 3)\n"}},
		{name: "json", format: "json", want: []string{`"failure": {`, `"exit": 3`, `"error": "obs/x.jsonl:1: p/t7.rego: policy: evaluating custom.t7\nsecond line"`}},
		{name: "markdown", format: "markdown", want: []string{"**INCOMPLETE:** the instrument failed: ", "no comparison for profile `strict`"}},
		{name: "html", format: "html", want: []string{`id="failure" role="alert"><strong>INCOMPLETE:</strong> the instrument failed: obs/x.jsonl:1: p/t7.rego: policy: evaluating custom.t7&#10;second line (exit 3)</p>`}},
	}
	formats := map[string]bool{}
	for _, tc := range tests {
		formats[tc.format] = true
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.format, r)
			for _, w := range tc.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("the output does not hold %q:\n%s", w, got)
				}
			}
			if tc.format == "json" {
				if err := reportkit.Schemas(t).ValidateCompareReport(reportkit.JSONDoc(t, "compare.json", got)); err != nil {
					t.Errorf("the report does not validate: %v\n%s", err, got)
				}
			}
		})
	}
	for _, f := range outputters.Names() {
		if !formats[f] {
			t.Errorf("format %s has no case", f)
		}
	}
}

// TestFailedReportHostile puts each hostile string in a failed compare's profile, scope and
// message: the text and markdown hold no control or bidi character and no line starting a CI
// command, markdown no raw '<' outside code, the page no element or event handler of the data,
// and the JSON gives the message back.
func TestFailedReportHostile(t *testing.T) {
	for _, c := range hostile.Cases() {
		s := c.S
		r := Failed("p"+s, &result.Scope{Lanes: []string{"lane " + s}}, errors.New("policy "+s+".rego: "+s+"\n"+s))
		for _, f := range outputters.Names() {
			out, _ := outputters.Get(f, report.Options{})
			var buf bytes.Buffer
			if err := out.Output(&buf, r); err != nil {
				t.Fatalf("%s %s: %v", c.Name, f, err)
			}
			got := buf.String()
			terminal := f == "text" || f == "markdown"
			if terminal {
				testkit.TerminalSafe(t, c.Name+" "+f, got, false)
			}
			for n, line := range strings.Split(got, "\n") {
				if !terminal && escape.CommandStart(line) {
					t.Errorf("%s %s: line %d starts a CI command: %q", c.Name, f, n+1, line)
				}
				if f == "markdown" && strings.Contains(hostile.OutsideCode(line), "<") {
					t.Errorf("%s: line %d: raw '<' outside code: %q", c.Name, n+1, line)
				}
			}
			switch f {
			case "json":
				var back struct{ Failure result.Failure }
				if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if utf8.ValidString(r.Failure.Error) && back.Failure.Error != r.Failure.Error {
					t.Errorf("%s: the JSON gives back %q", c.Name, back.Failure.Error)
				}
			case "html":
				noActiveHTML(t, c.Name, got)
			}
		}
	}
}
