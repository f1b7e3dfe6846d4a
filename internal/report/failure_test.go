package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/result"
)

// failedSample is the report of a run restricted to lane direct that failed with msg.
func failedSample(profile, msg string) *result.Report {
	return result.Failed(profile, &result.Scope{Lanes: []string{"direct"}}, errors.New(msg))
}

// TestFailedReportEveryFormat: the report of a run that failed before its verdict shows the
// failure where each format's reader looks, and never a verdict.
func TestFailedReportEveryFormat(t *testing.T) {
	msg := "obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7\nsecond line"
	tests := []struct {
		name   string
		format string
		want   []string
	}{
		{name: "text", format: "text", want: []string{"restricted to lanes direct\n", "\nINCOMPLETE: the instrument failed: obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7\n  second line\n",
			"gate: no verdict for profile strict: the run failed before it could give one (exit 3)\n"}},
		{name: "json", format: "json", want: []string{`"failure": {` + "\n" + `    "exit": 3,` + "\n" + `    "error": "obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7\nsecond line"`, `"verdict": "instrument_failed"`, `"results": []`}},
		{name: "junit", format: "junit", want: []string{`<testsuites name="contractcheck profile strict" tests="1" failures="0" errors="1" skipped="0">`,
			`<error message="the instrument failed: obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7" type="instrument_failed">`, "&#xA;second line"}},
		{name: "sarif", format: "sarif", want: []string{`"executionSuccessful": false`, `"exitCode": 3`, `"level": "error"`,
			`"text": "the instrument failed: obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7\nsecond line"`}},
		{name: "github", format: "github", want: []string{"::error title=contractcheck profile strict%3A the instrument failed::the instrument failed: obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7%0Asecond line\n",
			"::notice title=contractcheck::contractcheck profile strict: no verdict for profile strict: the run failed before it could give one (exit 3)\n"}},
		{name: "markdown", format: "markdown", want: []string{"**INCOMPLETE:** the instrument failed: ", "**Gate:** no verdict for profile `strict`"}},
		{name: "tap", format: "tap", want: []string{"TAP version 14\n", "\nBail out! the instrument failed: obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7\\nsecond line\n"}},
		{name: "table", format: "table", want: []string{"\nINCOMPLETE: the instrument failed: obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7\\nsecond line\n",
			"gate: profile strict the instrument failed (no verdict)\n"}},
		{name: "html", format: "html", want: []string{`<p class="verdict v-instrument_failed" id="failure" role="alert"><strong>INCOMPLETE:</strong> the instrument failed: obs/x.jsonl:1: task T7: p/t7.rego: policy: evaluating custom.t7&#10;second line (exit 3)</p>`}},
	}
	formats := map[string]bool{}
	for _, tc := range tests {
		formats[tc.format] = true
		t.Run(tc.name, func(t *testing.T) {
			got := render(t, tc.format, Options{Style: Style{Width: 100}}, failedSample("strict", msg))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the output does not hold %q:\n%s", w, got)
				}
			}
			for _, bad := range []string{"satisfied (", "NOT satisfied"} {
				if strings.Contains(got, bad) {
					t.Errorf("the output gives a verdict (%q):\n%s", bad, got)
				}
			}
			if bad := checkGrammar(tc.format, got); bad != "" {
				t.Error(bad)
			}
		})
	}
	for _, f := range outputters.Names() {
		if !formats[f] {
			t.Errorf("format %s has no case", f)
		}
	}
}

// TestFailedReportHostile puts each hostile string in a failed run's profile, scope and message,
// every format, and holds each output to its grammar (checkGrammar); the json, junit and sarif
// documents give the message back.
func TestFailedReportHostile(t *testing.T) {
	for _, format := range outputters.Names() {
		t.Run(format, func(t *testing.T) {
			out, err := outputters.Get(format, Options{Style: Style{Width: 100}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range hostile.Cases() {
				s := c.S
				r := result.Failed("p"+s, &result.Scope{Lanes: []string{"lane " + s}}, errors.New("policy "+s+".rego: "+s+"\n"+s+" at obs/"+s+".jsonl:1"))
				var buf bytes.Buffer
				if err := out.Output(&buf, r); err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if bad := checkGrammar(format, buf.String()); bad != "" {
					t.Errorf("%s: %s", c.Name, bad)
				}
				if !strings.Contains(buf.String(), "instrument") {
					t.Errorf("%s: the output does not name the failure:\n%.2000s", c.Name, buf.String())
				}
				if msg := failureBack(t, format, buf.Bytes()); msg != "" && !strings.Contains(msg, r.Failure.Error) && validXMLText(r.Failure.Error) {
					t.Errorf("%s: %s gives back %q, want it to hold %q", c.Name, format, msg, r.Failure.Error)
				}
			}
		})
	}
}

// failureBack is the failure's message as a json, junit or sarif document gives it back; "" for
// the other formats.
func failureBack(t *testing.T, format string, doc []byte) string {
	t.Helper()
	switch format {
	case "json":
		var r struct{ Failure result.Failure }
		if err := json.Unmarshal(doc, &r); err != nil {
			t.Fatal(err)
		}
		return r.Failure.Error
	case "sarif":
		var l struct {
			Runs []struct {
				Invocations []sarifInvocation
			}
		}
		if err := json.Unmarshal(doc, &l); err != nil {
			t.Fatal(err)
		}
		return l.Runs[0].Invocations[0].ToolExecutionNotifications[0].Message.Text
	case "junit":
		var s junitSuites
		if err := xml.Unmarshal(doc, &s); err != nil {
			t.Fatal(err)
		}
		return s.Suites[0].Cases[0].Error.Text
	}
	return ""
}

// validXMLText says whether s is valid UTF-8 (JSON gives other bytes back as U+FFFD) that XML
// can hold as it is (encoding/xml writes any other character as U+FFFD).
func validXMLText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !(r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000) {
			return false
		}
	}
	return true
}
