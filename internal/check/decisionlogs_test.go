package check

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// withoutPosition is events less those whose result is of the position (fixture and stage) of
// the result pos.
func withoutPosition(events []map[string]any, pos map[string]any) []map[string]any {
	var kept []map[string]any
	for _, ev := range events {
		if r := ev["result"].(map[string]any); r["fixture"] != pos["fixture"] || r["stage"] != pos["stage"] {
			kept = append(kept, ev)
		}
	}
	return kept
}

// checkedAndLogged is check's report on the records opts selects and the decision-log events
// of them (decisionEvents).
func checkedAndLogged(t *testing.T, opts inputs.Options) (*result.Report, []map[string]any) {
	t.Helper()
	want, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return want, reportkit.DecisionEvents(t, opts)
}

// consoleLog writes events as OPA's console plugin does, one JSON object per line, with OPA's own
// log lines between them and a decision of another path.
func consoleLog(t testing.TB, events []map[string]any) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"level":"info","msg":"Initializing server.","time":"2026-01-01T00:00:00Z"}` + "\n")
	if first, rest, ok := bytes.Cut(reportkit.ConsoleLog(t, events), []byte("\n")); ok {
		b.Write(first)
		b.WriteByte('\n')
		b.WriteString(`{"decision_id":"other","path":"authz/allow","result":true,"level":"info","msg":"Decision Log"}` + "\n")
		b.WriteString("plain text log line\n\n")
		b.Write(rest)
	}
	return b.Bytes()
}

func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// directPaper is a scope whose matrix the built-in records cover whole, with no visibility
// readout (a decision log holds no carrier to read it from).
var directPaper = inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"paper"}}}

// TestDecisionLogsAgreeWithCheck: a console log of the decisions on the built-in records of a
// scope gives check's report byte for byte, in JSON and text, from a file, a directory, standard
// input and an uploaded batch (gzip JSON array); and with --observations the records' report.
func TestDecisionLogsAgreeWithCheck(t *testing.T) {
	ctx := context.Background()
	want, events := checkedAndLogged(t, directPaper)
	log := consoleLog(t, events)
	file := writeTemp(t, "opa.log", log)
	batch := reportkit.GzipBatch(t, events)
	dir := t.TempDir()
	half := bytes.Index(log[len(log)/2:], []byte("\n")) + len(log)/2 + 1
	os.WriteFile(filepath.Join(dir, "a.log"), log[:half], 0o600)
	os.WriteFile(filepath.Join(dir, "b.log"), log[half:], 0o600)
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte("not read"), 0o600)
	for _, tc := range []struct {
		name string
		logs DecisionLogs
	}{
		{"file", DecisionLogs{Paths: []string{file}}},
		{"directory", DecisionLogs{Paths: []string{dir}}},
		{"stdin", DecisionLogs{Paths: []string{"-"}, Stdin: bytes.NewReader(log)}},
		{"gzip batch", DecisionLogs{Paths: []string{writeTemp(t, "batch.json.gz", batch)}}},
		{"the same decisions twice", DecisionLogs{Paths: []string{file, file}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, counts, err := RunDecisionLogs(ctx, directPaper, tc.logs)
			if err != nil {
				t.Fatal(err)
			}
			if counts.Decisions < len(events) {
				t.Errorf("counts %s, want %d decisions", counts, len(events))
			}
			reportkit.SameAsCheck(t, "the decision logs", got, want, "json", "text")
		})
	}
	t.Run("with the records", func(t *testing.T) {
		opts := directPaper
		opts.Observations = []string{"../../fixtures/observations/direct"}
		want, err := Run(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := RunDecisionLogs(ctx, opts, DecisionLogs{Paths: []string{file}})
		if err != nil {
			t.Fatal(err)
		}
		reportkit.SameAsCheck(t, "the decision logs", got, want, "json")
	})
}

// TestDecisionLogsLacking: logs that lack some of the expected bindings give a report that says
// so (the JSON member lacking, the text's INCOMPLETE) and no verdict (exit 2), in both modes.
func TestDecisionLogsLacking(t *testing.T) {
	ctx := context.Background()
	events := reportkit.DecisionEvents(t, directPaper)
	// Every repetition of the first position is lost (the matrix asks for one per binding).
	lost := events[0]["result"].(map[string]any)
	file := writeTemp(t, "opa.log", consoleLog(t, withoutPosition(events, lost)))
	withRecords := directPaper
	withRecords.Observations = []string{"../../fixtures/observations/direct"}
	for _, tc := range []struct {
		name string
		opts inputs.Options
	}{{"matrix", directPaper}, {"records", withRecords}} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, err := RunDecisionLogs(ctx, tc.opts, DecisionLogs{Paths: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			l := r.Lacking
			if l == nil || l.Count == 0 || l.Held+l.Count != l.Expected || l.First[0].Fixture != lost["fixture"] {
				t.Fatalf("lacking %+v, want the bindings of %v", l, lost)
			}
			if r.ExitCode() != result.ExitInputError || r.GateError() == nil || !strings.Contains(r.GateError().Error(), "lack") {
				t.Errorf("exit %d, gate error %v", r.ExitCode(), r.GateError())
			}
			js := reportkit.Render(t, r, "json")
			if !strings.Contains(js, `"lacking": {`) || !strings.Contains(js, `"expected": `) {
				t.Errorf("json report without its lacking member:\n%s", js[len(js)-600:])
			}
			validateReport(t, []byte(js))
			if txt := reportkit.Render(t, r, "text"); !strings.Contains(txt, "INCOMPLETE") || strings.Contains(txt, "satisfied") {
				t.Errorf("text report does not say it is incomplete:\n%s", txt)
			}
			checkIncomplete(t, r)
		})
	}
}

// checkIncomplete holds every format of a report over an incomplete census to one verdict: none
// (the gate's verdict incomplete in the JSON, "no verdict" in words, a failing case in JUnit),
// and exit 2.
func checkIncomplete(t *testing.T, r *result.Report) {
	t.Helper()
	if r.Gate.Verdict != result.VerdictIncomplete || r.Gate.Satisfied || r.ExitCode() != result.ExitInputError {
		t.Errorf("gate verdict %q, satisfied %v, exit %d; want incomplete, false, 2", r.Gate.Verdict, r.Gate.Satisfied, r.ExitCode())
	}
	doc, err := strictjson.Decode("report.json", []byte(reportkit.Render(t, r, "json")), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	gate := doc.(map[string]any)["gate"].(map[string]any)
	if gate["verdict"] != result.VerdictIncomplete || gate["satisfied"] != false {
		t.Errorf("the JSON report's gate says %v, satisfied %v: the text says no verdict", gate["verdict"], gate["satisfied"])
	}
	for _, tc := range []struct{ format, want string }{
		{"text", "gate: no verdict for profile strict over an incomplete census (exit 2)"},
		{"markdown", "no verdict for profile `strict` over an incomplete census"},
		{"table", "gate: profile strict incomplete (no verdict)"},
		{"tap", "# gate: profile strict incomplete (no verdict)"},
		{"junit", `type="incomplete"`},
	} {
		out := reportkit.Render(t, r, tc.format)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s report does not say %q:\n%s", tc.format, tc.want, out[max(0, len(out)-1500):])
		}
		if strings.Contains(out, "NOT satisfied") || strings.Contains(out, "profile strict satisfied") {
			t.Errorf("%s report gives a verdict over an incomplete census", tc.format)
		}
	}
	if r.Verdict() == "" || !strings.Contains(r.Verdict(), "incomplete (no verdict)") {
		t.Errorf("one-line verdict %q", r.Verdict())
	}
}

// TestDecisionLogsExpectWhatWasPosted: the expected bindings are what the logs show was posted
// (the suites posted at each lane, version, configuration and stage), not the contract set's whole
// matrix: a log of the control lane's paper suite is complete over an unscoped run and over
// --lane direct, gives check's verdict, and a decision dropped from it is lacking still.
func TestDecisionLogsExpectWhatWasPosted(t *testing.T) {
	ctx := context.Background()
	want, events := checkedAndLogged(t, directPaper)
	file := writeTemp(t, "opa.log", consoleLog(t, events))
	dropped := events[len(events)-1]["result"].(map[string]any)
	lossy := writeTemp(t, "lossy.log", consoleLog(t, withoutPosition(events, dropped)))
	for _, tc := range []struct {
		name    string
		opts    inputs.Options
		log     string
		lacking string // the fixture lacking, "" for a complete census
	}{
		{name: "no scope", log: file},
		{name: "lane only", opts: inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}}}, log: file},
		{name: "the scope of what was posted", opts: directPaper, log: file},
		{name: "narrower than what was posted", opts: inputs.Options{Scope: result.Scope{Fixtures: []string{"C01"}}}, log: file},
		{name: "a dropped decision, no scope", log: lossy, lacking: dropped["fixture"].(string)},
		{name: "a dropped decision, lane only", opts: inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}}}, log: lossy, lacking: dropped["fixture"].(string)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, err := RunDecisionLogs(ctx, tc.opts, DecisionLogs{Paths: []string{tc.log}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.lacking == "" {
				if r.Lacking != nil {
					t.Fatalf("lacking %d of %d expected bindings (first %v): nothing posted is lacking", r.Lacking.Count, r.Lacking.Expected, r.Lacking.First[:min(3, len(r.Lacking.First))])
				}
				if r.Gate.Verdict != want.Gate.Verdict || r.ExitCode() != want.ExitCode() || r.Summary != want.Summary && tc.opts.Scope.Fixtures == nil {
					t.Errorf("verdict %s (exit %d, %+v), check's over what was posted %s (exit %d, %+v)", r.Gate.Verdict, r.ExitCode(), r.Summary, want.Gate.Verdict, want.ExitCode(), want.Summary)
				}
				return
			}
			l := r.Lacking
			if l == nil || l.Count == 0 {
				t.Fatalf("lacking %+v, want the dropped decision's bindings", l)
			}
			for _, b := range l.First {
				if b.Fixture != tc.lacking || b.Lane != "direct" {
					t.Errorf("lacking %s: only %s was dropped", b, tc.lacking)
				}
			}
			checkIncomplete(t, r)
		})
	}
}

// TestDecisionLogsErrorDecisions: a decision that is an error (a lane the bundle does not know, an
// error OPA logged) does not stop the read: it is counted and listed with its file and line, the
// other decisions are read, and the report gives no verdict (exit 2) in every format.
func TestDecisionLogsErrorDecisions(t *testing.T) {
	ctx := context.Background()
	events := reportkit.DecisionEvents(t, directPaper)
	refused := reportkit.DecisionEvent("refused-1", map[string]any{
		"input": map[string]any{"lane": "nope"}, "result": map[string]any{"errors": []any{"/lane: unknown lane \"nope\"\u2028</script>"}}})
	failed := reportkit.DecisionEvent("failed-2", map[string]any{"error": map[string]any{"code": "eval_error", "message": "timeout"}})
	log := consoleLog(t, append([]map[string]any{refused}, append(events, failed)...))
	file := writeTemp(t, "opa.log", log)
	lines := strings.Split(string(log), "\n")
	lineOf := func(id string) int {
		for i, l := range lines {
			if strings.Contains(l, `"decision_id":"`+id+`"`) {
				return i + 1
			}
		}
		t.Fatalf("no line holds %s", id)
		return 0
	}
	r, counts, err := RunDecisionLogs(ctx, inputs.Options{}, DecisionLogs{Paths: []string{file}})
	if err != nil {
		t.Fatalf("an error decision stopped the read: %v", err)
	}
	if counts.Decisions != len(events)+2 {
		t.Errorf("counts %s, want %d decisions", counts, len(events)+2)
	}
	l := r.Lacking
	if l == nil || l.Errors == nil || l.Errors.Count != 2 || l.Count != 0 || l.Held != l.Expected || l.Expected == 0 {
		t.Fatalf("lacking %+v, want the 2 error decisions and every expected binding held", l)
	}
	for i, want := range []struct{ id, error string }{
		{"refused-1", "the bundle refused the input: [\"/lane: unknown lane \\\"nope\\\"\u2028</script>\"]"},
		{"failed-2", `OPA logged an error: {"code":"eval_error","message":"timeout"}`},
	} {
		got := l.Errors.First[i]
		if at := fmt.Sprintf("%s:%d", file, lineOf(want.id)); got.At != at || got.Decision != want.id || got.Error != want.error {
			t.Errorf("error decision %d: %+v, want at %s, %s, %s", i, got, at, want.id, want.error)
		}
	}
	checkIncomplete(t, r)
	txt := reportkit.Render(t, r, "text")
	if !strings.Contains(txt, "INCOMPLETE: 2 decisions in the logs are errors") || !strings.Contains(txt, fmt.Sprintf("%s:%d", file, lineOf("refused-1"))) {
		t.Errorf("the text report does not list the error decisions:\n%s", txt[max(0, len(txt)-1200):])
	}
	if strings.ContainsRune(txt, '\u2028') {
		t.Error("the text report holds a raw U+2028 from the logged error")
	}
	validateReport(t, []byte(reportkit.Render(t, r, "json")))
	if gerr := r.GateError(); gerr == nil || !strings.Contains(gerr.Error(), "2 decisions in the logs are errors") || !strings.Contains(gerr.Error(), "refused-1") {
		t.Errorf("gate error %v", gerr)
	}
}

// TestDecisionLogsErrorDecisionsInScope: an error decision whose logged input places it outside
// the run's scope (a lane --lane leaves out) is counted as outside it and leaves the verdict to
// the rest; one within the scope, or whose input names no position (masked, or OPA's own error),
// makes the census incomplete.
func TestDecisionLogsErrorDecisionsInScope(t *testing.T) {
	ctx := context.Background()
	want, events := checkedAndLogged(t, directPaper)
	refused := func(id string, input map[string]any) map[string]any {
		return reportkit.DecisionEvent(id, map[string]any{"input": input, "erased": []any{"/input/carrier"}, "result": map[string]any{"errors": []any{"refused"}}})
	}
	otherLane := refused("other-lane", map[string]any{"fixture": "C01", "lane": "nope", "laneVersion": "v1", "configuration": "default", "stage": "D1"})
	otherSuite := refused("other-suite", map[string]any{"fixture": "X01", "lane": "direct", "stage": "D1"})
	unknownFixture := refused("unknown-fixture", map[string]any{"fixture": "NOPE", "lane": "direct", "laneVersion": "v1", "configuration": "default", "stage": "D1"})
	masked := refused("masked", nil)
	for _, tc := range []struct {
		name       string
		extra      []map[string]any
		errors     []string
		outOfScope int
	}{
		{name: "a lane outside --lane", extra: []map[string]any{otherLane}, outOfScope: 1},
		{name: "a suite outside --suite", extra: []map[string]any{otherSuite}, outOfScope: 1},
		{name: "a fixture the contracts do not know, in the lane", extra: []map[string]any{unknownFixture}, errors: []string{"unknown-fixture"}},
		{name: "no position logged", extra: []map[string]any{masked}, errors: []string{"masked"}},
		{name: "all of them", extra: []map[string]any{otherLane, masked, otherSuite, unknownFixture}, errors: []string{"masked", "unknown-fixture"}, outOfScope: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeTemp(t, "opa.log", consoleLog(t, append(append([]map[string]any{}, events...), tc.extra...)))
			r, counts, err := RunDecisionLogs(ctx, directPaper, DecisionLogs{Paths: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			if counts.OutOfScope != tc.outOfScope {
				t.Errorf("%d decisions outside the scope, want %d (%s)", counts.OutOfScope, tc.outOfScope, counts)
			}
			if len(tc.errors) == 0 {
				if r.Lacking != nil {
					t.Fatalf("lacking %+v: the error decision is outside the run's scope", r.Lacking)
				}
				reportkit.SameAsCheck(t, "the decision logs", r, want, "json")
				return
			}
			if r.Lacking == nil || r.Lacking.Errors == nil {
				t.Fatalf("lacking %+v, want the error decisions %q", r.Lacking, tc.errors)
			}
			var got []string
			for _, e := range r.Lacking.Errors.First {
				got = append(got, e.Decision)
			}
			if strings.Join(got, ",") != strings.Join(tc.errors, ",") || r.Lacking.Errors.Count != len(tc.errors) {
				t.Errorf("error decisions %q (count %d), want %q", got, r.Lacking.Errors.Count, tc.errors)
			}
			checkIncomplete(t, r)
		})
	}
}

// TestDecisionLogsUnknownFixtures: a verdict on a fixture no catalogue or --fixtures layer holds
// (a production result never recorded) does not stop the read: it is counted and listed like an
// error decision, with its file and line and a message naming the fixture (quoted) and how to
// place it; the other decisions are read as check reads their records, and the report gives no
// verdict (exit 2). One whose lane the run's scope leaves out is counted as outside it.
func TestDecisionLogsUnknownFixtures(t *testing.T) {
	ctx := context.Background()
	want, events := checkedAndLogged(t, directPaper)
	if len(events) < 2 {
		t.Fatalf("%d decisions: the cases need two", len(events))
	}
	// unknown is the decision of events[0] on fixture id instead (at lane, when not empty).
	unknown := func(decision, id, lane string) map[string]any {
		ev := maps.Clone(events[0])
		res := maps.Clone(ev["result"].(map[string]any))
		input := maps.Clone(ev["input"].(map[string]any))
		res["fixture"], input["fixture"] = id, id
		if lane != "" {
			res["lane"], input["lane"] = lane, lane
		}
		ev["decision_id"], ev["result"], ev["input"] = decision, res, input
		return ev
	}
	hostileID := "NOPE\u2028</script>"
	for _, tc := range []struct {
		name string
		// first goes before the known decisions, middle after the first of them.
		first, middle map[string]any
		// listed are the decision ids listed with their messages' quoted fixture ids.
		listed     [][2]string
		outOfScope int
	}{
		{name: "unknown fixture", first: unknown("unknown-1", hostileID, ""),
			listed: [][2]string{{"unknown-1", `unknown fixture "NOPE\u2028</script>"`}}},
		{name: "two unknown fixtures among known ones", first: unknown("unknown-1", "R3f9a0c12d4e7", ""), middle: unknown("unknown-2", "R\"quoted\"", ""),
			listed: [][2]string{{"unknown-1", `unknown fixture "R3f9a0c12d4e7"`}, {"unknown-2", `unknown fixture "R\"quoted\""`}}},
		{name: "an unknown fixture at a lane outside --lane", first: unknown("other-lane", "R3f9a0c12d4e7", "acme-agent"), outOfScope: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logged := []map[string]any{}
			if tc.first != nil {
				logged = append(logged, tc.first)
			}
			logged = append(logged, events[0])
			if tc.middle != nil {
				logged = append(logged, tc.middle)
			}
			logged = append(logged, events[1:]...)
			log := consoleLog(t, logged)
			file := writeTemp(t, "opa.log", log)
			r, counts, err := RunDecisionLogs(ctx, directPaper, DecisionLogs{Paths: []string{file}})
			if err != nil {
				t.Fatalf("a decision on an unknown fixture stopped the read: %v", err)
			}
			if counts.Decisions != len(logged) || counts.OutOfScope != tc.outOfScope {
				t.Errorf("counts %s, want %d decisions, %d outside the scope", counts, len(logged), tc.outOfScope)
			}
			// The other decisions are read: their results are check's.
			results := func(r *result.Report) any {
				doc, err := strictjson.Decode("report.json", []byte(reportkit.Render(t, r, "json")), strictjson.DefaultLimits)
				if err != nil {
					t.Fatal(err)
				}
				return doc.(map[string]any)["results"]
			}
			if g, w := results(r), results(want); !reflect.DeepEqual(g, w) {
				t.Errorf("the known decisions' results differ from check's")
			}
			if len(tc.listed) == 0 {
				if r.Lacking != nil {
					t.Fatalf("lacking %+v: the decision is outside the run's scope", r.Lacking)
				}
				reportkit.SameAsCheck(t, "the decision logs", r, want, "json")
				return
			}
			l := r.Lacking
			if l == nil || l.Errors == nil || l.Errors.Count != len(tc.listed) || len(l.Errors.First) != len(tc.listed) ||
				l.Count != 0 || l.Expected == 0 || l.Held != l.Expected {
				t.Fatalf("lacking %+v, want the %d unknown fixtures listed and every expected binding held", l, len(tc.listed))
			}
			lines := strings.Split(string(log), "\n")
			for i, w := range tc.listed {
				got := l.Errors.First[i]
				line := slices.IndexFunc(lines, func(s string) bool { return strings.Contains(s, `"decision_id":"`+w[0]+`"`) }) + 1
				if at := fmt.Sprintf("%s:%d", file, line); got.At != at || got.Decision != w[0] {
					t.Errorf("listed %d: %+v, want at %s, decision %s", i, got, at, w[0])
				}
				for _, part := range []string{"/fixture: " + w[1], "record that result with `contractcheck record`", "give its source with --fixtures"} {
					if !strings.Contains(got.Error, part) {
						t.Errorf("listed %d: message %q does not say %q", i, got.Error, part)
					}
				}
			}
			checkIncomplete(t, r)
			txt := reportkit.Render(t, r, "text")
			if !strings.Contains(txt, fmt.Sprintf("INCOMPLETE: %d decision", len(tc.listed))) || !strings.Contains(txt, tc.listed[0][0]) {
				t.Errorf("the text report does not list the unknown fixtures:\n%s", txt[max(0, len(txt)-1200):])
			}
			if strings.ContainsRune(txt, '\u2028') {
				t.Error("the text report holds a raw U+2028 from a fixture id")
			}
			validateReport(t, []byte(reportkit.Render(t, r, "json")))
		})
	}
}

// TestDecisionLogsErrors: an event on the decision path that cannot be taken is an input error
// naming its file and line; what is not a decision event is counted, not taken.
func TestDecisionLogsErrors(t *testing.T) {
	ctx := context.Background()
	good := reportkit.DecisionEvents(t, directPaper)[0]
	with := func(edit func(ev, res map[string]any)) string {
		ev := map[string]any{}
		for k, v := range good {
			ev[k] = v
		}
		res := map[string]any{}
		for k, v := range good["result"].(map[string]any) {
			res[k] = v
		}
		ev["result"] = res
		edit(ev, res)
		b, err := strictjson.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	goodLine := with(func(_, _ map[string]any) {})
	for _, tc := range []struct {
		name, log, want string
		exit            int
	}{
		{"no result", with(func(ev, _ map[string]any) { delete(ev, "result") }), ":1: decision \"id-0\": no result", 2},
		{"result erased", with(func(ev, _ map[string]any) { delete(ev, "result"); ev["erased"] = []any{"/result"} }), "erased by a mask policy", 2},
		{"no repetition", with(func(_, res map[string]any) { delete(res, "repetition") }), "result.repetition is absent", 2},
		{"bad stage", with(func(_, res map[string]any) { res["stage"] = "Z9" }), "/stage: lane direct does not declare stage \"Z9\"", 2},
		{"other profile", with(func(_, res map[string]any) { res["profile"] = "optional-null" }), "the decision is of profile \"optional-null\"", 2},
		{"other source", with(func(_, res map[string]any) { res["sourceSha256"] = "00" }), "/sourceSha256: 00 does not match fixture C01", 2},
		{"pass with diagnostics", with(func(_, res map[string]any) {
			res["results"] = []any{map[string]any{"task": "T1", "outcome": "pass", "diagnostics": []any{map[string]any{"atom": "x"}}, "readout": map[string]any{"json": "{}"}}}
		}), "results[0]: outcome pass with 1 diagnostics", 2},
		{"policy failed", with(func(_, res map[string]any) {
			res["results"] = []any{map[string]any{"task": "T1", "outcome": "instrument_failed", "error": "no verdict"}}
		}), "the bundle's policy failed: no verdict", 3},
		{"damaged event", goodLine[:len(goodLine)/2], ":1: a damaged decision-log event", 2},
		{"a different decision for the same repetition", goodLine + "\n" + with(func(_, res map[string]any) {
			res["results"] = []any{map[string]any{"task": "T1", "outcome": "unmet", "diagnostics": []any{map[string]any{"atom": "block.count", "kind": "altered", "path": "", "expected": map[string]any{"json": "1"}, "observed": map[string]any{"json": "2"}}}, "readout": map[string]any{"json": "{}"}}}
		}), ":2: ", 2},
		{"nothing but other lines", `{"level":"info","msg":"Initializing"}`, "no decision of contractcheck/decision", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeTemp(t, "opa.log", []byte(tc.log+"\n"))
			_, _, err := RunDecisionLogs(ctx, directPaper, DecisionLogs{Paths: []string{file}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), file) && tc.name != "nothing but other lines" {
				t.Errorf("error %q does not begin with the log's name", err)
			}
			if got := result.ExitCode(err); got != tc.exit {
				t.Errorf("exit %d, want %d (%v)", got, tc.exit, err)
			}
		})
	}
}

// TestDecisionLogsHostileRecordNames: the place a poster names for a record (record.file) reaches
// the report's record references as it was posted, and every format escapes it for its own
// grammar: the JSON gives it back exactly, the text holds no raw control or bidi character.
func TestDecisionLogsHostileRecordNames(t *testing.T) {
	ctx := context.Background()
	opts := inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Fixtures: []string{"C01"}}}
	events := reportkit.DecisionEvents(t, opts)
	for _, h := range hostile.Strings() {
		if !utf8.ValidString(h) {
			continue // a JSON log cannot hold it
		}
		for _, ev := range events {
			res := ev["result"].(map[string]any)
			res["record"] = map[string]any{"file": h, "line": 1}
			// T1 unmet everywhere: the violations name the records.
			res["results"].([]any)[0] = map[string]any{"task": "T1", "outcome": "unmet", "readout": map[string]any{"json": "{}"},
				"diagnostics": []any{map[string]any{"atom": "block.count", "kind": "altered", "path": "", "expected": map[string]any{"json": "1"}, "observed": map[string]any{"json": "2"}}}}
		}
		file := writeTemp(t, "opa.log", consoleLog(t, events))
		r, _, err := RunDecisionLogs(ctx, opts, DecisionLogs{Paths: []string{file}})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := strictjson.Decode("report.json", []byte(reportkit.Render(t, r, "json")), strictjson.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		if r.Gate.Verdict != result.VerdictUnmet {
			t.Fatalf("verdict %s, want unmet", r.Gate.Verdict)
		}
		res := doc.(map[string]any)["results"].([]any)[0].(map[string]any)
		if got := res["records"].([]any)[0].(map[string]any)["file"]; got != h {
			t.Errorf("record file %q came back as %q", h, got)
		}
		// The formats read on a terminal or as text. (junit and sarif escape for XML and JSON, which
		// hold these characters; github keeps a record's file verbatim in the annotation's file=
		// property, with the workflow command's escapes only, so that it names the repository's
		// file, as for every record.)
		for _, format := range []string{"text", "markdown", "tap", "table"} {
			out := reportkit.Render(t, r, format)
			if i := strings.IndexFunc(out, func(c rune) bool {
				return c != '\n' && (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029' || c == '\u202e')
			}); i >= 0 {
				t.Errorf("%s: a raw %U from %q", format, []rune(out[i:])[0], h)
			}
		}
	}
}

// BenchmarkDecisionLogs reads a console log of every captured built-in record's decision back
// into the census and its report (go test ./internal/check -run XXX -bench DecisionLogs).
func BenchmarkDecisionLogs(b *testing.B) {
	ctx := context.Background()
	events := reportkit.DecisionEvents(b, inputs.Options{})
	file := writeTemp(b, "opa.log", consoleLog(b, events))
	b.ResetTimer()
	for b.Loop() {
		r, _, err := RunDecisionLogs(ctx, inputs.Options{}, DecisionLogs{Paths: []string{file}})
		if err != nil {
			b.Fatal(err)
		}
		if r.Len() == 0 {
			b.Fatal("empty report")
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}
