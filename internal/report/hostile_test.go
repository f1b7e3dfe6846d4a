package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/net/html"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// hostileSample is the sample report with s in every string a layer, a record or a policy can
// fill: names, versions, record files, diagnostics, errors, requirement and fixedBy docs, the
// reported loss, the visibility readout, the scope; its gate is unmet, or selected nothing
// (unmatched messages shown).
func hostileSample(s string, selectedNothing bool) *result.Report {
	diag := result.Diagnostic{"atom": "atom " + s, "path": "/" + s, "kind": "altered " + s, "expected": s, "observed": map[string]any{s: s}}
	recs := []result.RecordRef{{File: "obs/" + s + ".jsonl", Line: 7, Repetition: 1}}
	res := func(stage, outcome string, required bool) result.Result {
		return result.Result{Fixture: "F" + s, Suite: "suite " + s, Family: "family " + s, Lane: "lane " + s, LaneVersion: "v" + s, Configuration: "cfg " + s,
			Stage: stage, Task: "T" + s, Role: "primary", Compartment: "comp " + s, Outcome: outcome, Origin: "captured", Repetitions: 2,
			Diagnostics: []result.Diagnostic{diag}, Records: recs, Error: "error " + s, Required: required, RequiredBy: []string{"profiles.p.require[0]"},
			Variants: []result.Variant{{Repetitions: []int{1}, Outcome: result.Pass}, {Repetitions: []int{2}, Outcome: result.Unmet, Diagnostics: []result.Diagnostic{diag}}}}
	}
	div := result.Divergence{Fixture: "F" + s, Task: "T" + s, Family: "family " + s, Stages: []string{"D1"}}
	divs := result.Divergences{Unique: []result.Divergence{div}, Guard: []result.Divergence{div}, Apart: []result.Divergence{div}, Manifestations: 3,
		UniqueByFamily: map[string]int{"family " + s: 1}, ManifestationsByFamily: map[string]int{"family " + s: 3},
		UniqueByOrigin: result.OriginCounts{Captured: 1}, ManifestationsByOrigin: result.OriginCounts{Captured: 3}, LeaveOneOut: map[string]int{"lane " + s: 0}}
	r := &result.Report{
		ReportVersion: result.Version, Profile: "p" + s, NullPolicy: "strict",
		Scope:   &result.Scope{Lanes: []string{"lane " + s}, Fixtures: []string{"F" + s}},
		Results: result.ResultList{res("D1", result.Unmet, true), res("A2", result.Pass, true), res("M3", result.Unstable, false), res("H4", result.ExecutionFailed, false)},
		Localizations: result.LocalizationList{{Fixture: "F" + s, Lane: "lane " + s, LaneVersion: "v" + s, Configuration: "cfg " + s, Task: "T" + s,
			From: "W0", To: "D1", Kind: result.Transformation}},
		Divergences: divs, CapturedDivergences: divs,
		Upgrades: []result.Upgrade{{Lane: "lane " + s, Configuration: "cfg " + s, From: "v" + s, To: "w" + s, Changes: result.ChangeList{
			{Fixture: "F" + s, Stage: "D1", Task: "T" + s, Before: result.Pass, After: result.Unmet, DiagnosticsBefore: []result.Diagnostic{diag}, DiagnosticsAfter: []result.Diagnostic{diag}}}}},
		Reported: []result.Reported{{Fixture: "F" + s, URL: "https://github.com/o/r/issues/1" + s, Lane: "lane " + s, Configuration: "cfg " + s,
			Atoms: []string{"atom " + s}, Buggy: result.Side{Version: "v" + s, Outcome: result.Unmet, Atoms: []string{"atom " + s}}, Fixed: result.Side{Version: "w" + s, Outcome: result.Pass}}},
		VisibilityPolicy: "policy " + s,
		Visibility:       hostileVisibility(s),
		Gate: result.Gate{Verdict: result.VerdictUnmet,
			Requirements: []result.RequirementResult{{Clause: result.Clause{Name: "profiles.p.require[0]", Doc: "doc " + s}, Selected: 2, Violations: 1, OutOfScope: true}},
			Violations: []result.Violation{{Position: result.Position{Fixture: "F" + s, Lane: "lane " + s, LaneVersion: "v" + s, Configuration: "cfg " + s, Stage: "D1"}, Task: "T" + s,
				Outcome: result.Unmet, Requirement: "doc " + s, RequirementName: "profiles.p.require[0]", Diagnostics: []result.Diagnostic{diag}, Records: recs}},
			FixedBy: []result.FixResult{{Clause: result.Clause{Name: "profiles.p.fixedBy[0]", Doc: "fix " + s}, Lane: "lane " + s, From: "v" + s, To: "w" + s,
				Atoms: []string{"atom " + s}, Status: result.FixUnmet, Unmatched: "unmatched " + s,
				Remaining:   []result.FixBinding{{Fixture: "F" + s, Configuration: "cfg " + s, Stage: "D1", Task: "T" + s, Before: result.Unmet, After: result.Unmet, AtomsAfter: []string{"atom " + s}}},
				Regressions: []result.FixBinding{{Fixture: "F" + s, Configuration: "cfg " + s, Stage: "A2", Task: "T" + s, Before: result.Pass, After: result.Unmet}}}}},
	}
	if selectedNothing {
		r.Gate.Verdict = result.VerdictSelectedNothing
		r.Gate.Requirements[0].Unmatched = "no binding matches lanes [" + s + "]"
		r.Gate.Requirements[0].OutOfScope = false
	}
	for _, res := range r.Each() {
		r.Summary.Add(res.Outcome)
	}
	return r
}

// hostileVisibility is a visibility readout with s in every string a layer or the visibility
// policy can fill: two rows (lane, version, configuration), one with both stages, one mixed and
// undetermined, their fixtures' names, states, shapes and channels.
func hostileVisibility(s string) result.VisibilityList {
	fixtures := []result.VisibilityFixture{
		{Fixture: "V" + s, State: "captured", Shape: "shape " + s, Channels: map[string]string{"content": "blocks " + s, "channel " + s: s}, Record: "obs/" + s + ".jsonl:3"},
		{Fixture: "W" + s, State: "state " + s, Record: "obs/" + s + ".jsonl:4"},
	}
	return result.VisibilityList{
		{Lane: "lane " + s, Version: "v" + s, Configuration: "cfg " + s, Stage: "M3", Category: "category " + s, OnError: "error " + s, Fixtures: fixtures},
		{Lane: "lane " + s, Version: "v" + s, Configuration: "cfg " + s, Stage: "H4", Category: "mixed", Nearest: "nearest " + s,
			Disagree: []string{"V" + s, "W" + s}, Fixtures: fixtures},
		{Lane: "lane " + s, Version: "w" + s, Configuration: s, Stage: "H4", Category: "undetermined", Candidates: []string{s, "fallback " + s}, Fixtures: fixtures},
	}
}

var (
	tapLine   = regexp.MustCompile(`^(TAP version 14|1\.\.\d+|(not )?ok \d+ - .*|#.*|Bail out! .*)$`)
	ghCommand = regexp.MustCompile(`^::(error|warning|notice) ([^:\r]*)::([^\r]*)$`)
)

// checkGrammar holds one format's output to its grammar; it returns what is wrong, or "".
func checkGrammar(format, out string) string {
	switch format {
	case "text", "table":
		return testkit.TerminalProblem(out, false)
	case "tap":
		if bad := testkit.TerminalProblem(out, false); bad != "" {
			return bad
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			if lines[i] != "  ---" {
				if !tapLine.MatchString(lines[i]) {
					return fmt.Sprintf("line %d is not TAP: %q", i+1, lines[i])
				}
				continue
			}
			var block []string
			for i++; i < len(lines) && lines[i] != "  ..."; i++ {
				block = append(block, strings.TrimPrefix(lines[i], "  "))
			}
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(strings.Join(block, "\n")), &doc); err != nil {
				return fmt.Sprintf("a YAML block does not parse: %v", err)
			}
		}
	case "markdown":
		if bad := testkit.TerminalProblem(out, false); bad != "" {
			return bad
		}
		cells := -1
		for n, line := range strings.Split(out, "\n") {
			switch {
			case !strings.HasPrefix(line, "|"):
				cells = -1
			case cells < 0:
				cells = hostile.MarkdownCells(line)
			case hostile.MarkdownCells(line) != cells:
				return fmt.Sprintf("line %d: a row of %d cells under a header of %d: %q", n+1, hostile.MarkdownCells(line)-1, cells-1, line)
			}
			if strings.Contains(hostile.OutsideCode(line), "<") {
				return fmt.Sprintf("line %d: raw '<' outside code: %q", n+1, line)
			}
		}
	case "github":
		for n, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			m := ghCommand.FindStringSubmatch(line)
			if m == nil {
				return fmt.Sprintf("line %d is not a command of the format: %q", n+1, line)
			}
			if strings.ContainsAny(m[3], "\n") || strings.Contains(m[2], "::") {
				return fmt.Sprintf("line %d: unescaped data: %q", n+1, line)
			}
			// Properties, title and message alike reach the log as they are: a file property is the
			// record's path only where that path shows as itself.
			if bad := testkit.TerminalProblem(m[2]+m[3], true); bad != "" {
				return bad
			}
		}
	case "json", "sarif":
		if !json.Valid([]byte(out)) {
			return "not JSON"
		}
	case "junit":
		dec := xml.NewDecoder(strings.NewReader(out))
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Sprintf("not XML: %v", err)
			}
		}
	case "html":
		doc, err := html.Parse(strings.NewReader(out))
		if err != nil {
			return fmt.Sprintf("not HTML: %v", err)
		}
		var bad string
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode && (n.Data == "img" || n.Data == "iframe") {
				bad = "an element <" + n.Data + "> of the data"
			}
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					bad = "an event handler " + a.Key + " of the data"
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		for n, line := range strings.Split(out, "\n") {
			if escape.CommandStart(line) {
				return fmt.Sprintf("line %d of the page starts a CI command", n+1)
			}
		}
		return bad
	default:
		return "no grammar check for format " + format
	}
	return ""
}

// TestHostileStringsEveryFormatOfAReport writes a report holding each string of the corpus in
// every field (hostileSample) in every format, with and without Details, its gate unmet or
// selecting nothing, and holds each output to its grammar (checkGrammar).
func TestHostileStringsEveryFormatOfAReport(t *testing.T) {
	for _, format := range outputters.Names() {
		for _, details := range []bool{false, true} {
			name := format
			if details {
				if format != "text" && format != "table" {
					continue // Details changes the text and the table only
				}
				name += " details"
			}
			t.Run(name, func(t *testing.T) {
				out, err := outputters.Get(format, Options{Details: details, Style: Style{Width: 100}})
				if err != nil {
					t.Fatal(err)
				}
				// A gate that selected nothing writes its unmatched messages in the text formats.
				verdicts := []bool{false}
				if format == "text" || format == "tap" || format == "markdown" {
					verdicts = append(verdicts, true)
				}
				for _, c := range hostile.Cases() {
					for _, nothing := range verdicts {
						var buf bytes.Buffer
						if err := out.Output(&buf, hostileSample(c.S, nothing)); err != nil {
							t.Fatalf("%s: %v", c.Name, err)
						}
						if bad := checkGrammar(format, buf.String()); bad != "" {
							t.Errorf("%s (selected nothing %v): %s", c.Name, nothing, bad)
						}
					}
				}
			})
		}
	}
}

// TestTextCutKeepsEscapesWhole: a findings-table label cut to its column ends before an escape of
// the data or after it, never inside it (a line is wrapped, never cut: TestWrapWidths).
func TestTextCutKeepsEscapesWhole(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		width int
		want  string
	}{
		{name: "inside \\u", line: `abc\u202edef`, width: 7, want: "abc…"},
		{name: "after \\u", line: `abc\u202edef`, width: 10, want: `abc\u202e…`},
		{name: "inside \\n", line: `abcdef\nghi`, width: 8, want: "abcdef…"},
		{name: "plain", line: "abcdefghij", width: 5, want: "abcd…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := cutEscaped(tc.line, tc.width); got != tc.want {
				t.Errorf("cutEscaped(%q, %d) = %q, want %q", tc.line, tc.width, got, tc.want)
			}
		})
	}
}

// TestHostileStringsEveryPlaceOfTheHTMLPage puts a hostile string, beyond hostileSample's, in
// every other place the page's template writes a string of the report (outcomes, stages, roles,
// the verdict and the null policy, a boundary's kind and stages, a requirement's position, a
// reconstructed lane's name, a visibility stage, an upgrade that changed nothing), with and
// without views. The page holds it to the html grammar (checkGrammar), has one result per
// binding in its data and the page's own two scripts, and its data script gives the strings back. The long
// string is left out: TestHostileStringsEveryFormatOfAReport writes it, and here it made the
// test slow for nothing more.
func TestHostileStringsEveryPlaceOfTheHTMLPage(t *testing.T) {
	for _, c := range hostile.Cases() {
		if c.Name == "long" {
			continue
		}
		s := c.S
		r := hostileSample(s, false)
		list := r.Results.(result.ResultList)
		for i := range list {
			list[i].Stage += s
			list[i].Role = "role " + s
		}
		list[0].Outcome = "outcome " + s
		list[1].Origin = "reconstructed"
		r.Gate.Verdict, r.NullPolicy = "verdict "+s, "null "+s
		r.Gate.Requirements[0].Position = "profiles.cue:" + s
		r.Gate.Violations[0].Stage = list[0].Stage
		locs := r.Localizations.(result.LocalizationList)
		locs[0].From, locs[0].To, locs[0].Kind = list[1].Stage, list[0].Stage, "kind "+s
		for _, d := range []*result.Divergences{&r.Divergences, &r.CapturedDivergences} {
			for _, l := range [][]result.Divergence{d.Unique, d.Guard, d.Apart} {
				l[0].Stages = []string{list[0].Stage}
			}
		}
		r.Upgrades[0].Changes.(result.ChangeList)[0].Stage = list[0].Stage
		r.Upgrades = append(r.Upgrades, result.Upgrade{Lane: "lane " + s, Configuration: "cfg " + s, From: "w" + s, To: "x" + s})
		vs := r.Visibility.(result.VisibilityList)
		for i := range vs {
			vs[i].Stage += s
		}
		for _, h := range []HTML{{}, {Views: fakeViews{}}} {
			var buf bytes.Buffer
			if err := h.Output(&buf, r); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			page := buf.String()
			if bad := checkGrammar("html", page); bad != "" {
				t.Errorf("%s (views %v): %s", c.Name, h.Views != nil, bad)
			}
			doc, err := html.Parse(strings.NewReader(page))
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			scripts, data := 0, ""
			var walk func(*html.Node)
			walk = func(n *html.Node) {
				if n.Type == html.ElementNode && n.Data == "script" {
					scripts++
					for _, a := range n.Attr {
						if a.Key == "id" && a.Val == "cc-data" && n.FirstChild != nil {
							data = n.FirstChild.Data
						}
					}
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					walk(c)
				}
			}
			walk(doc)
			if scripts != 2 {
				t.Errorf("%s: %d script elements, want the page's own 2", c.Name, scripts)
			}
			var d htmlData
			if err := json.Unmarshal([]byte(data), &d); err != nil {
				t.Fatalf("%s: the data script is not JSON: %v", c.Name, err)
			}
			if len(d.Results) != r.Len() {
				t.Errorf("%s: %d results in the data, want one per binding (%d)", c.Name, len(d.Results), r.Len())
			}
			if utf8.ValidString(s) && (d.S[d.Results[0][rOutcome]] != list[0].Outcome || d.S[d.Results[0][rStage]] != list[0].Stage) {
				t.Errorf("%s: the data script gives back outcome %q stage %q", c.Name, d.S[d.Results[0][rOutcome]], d.S[d.Results[0][rStage]])
			}
		}
	}
}

// TestTextShowsDataExactly: a record's error that spells an escape (an agent's output holding the
// six characters \u001b) is shown apart from one that holds the character: the text format
// writes the spelt one's backslash as \\ (escape.TerminalExact), while a quoted value (a
// diagnostic's JSON) keeps its backslashes as they are.
func TestTextShowsDataExactly(t *testing.T) {
	const s = "spelt \\u001b, real \x1b"
	got := render(t, "text", Options{Details: true, Style: Style{Width: 200}}, hostileSample(s, false))
	if !strings.Contains(got, `error: error spelt \\u001b, real \u001b`) || strings.Contains(got, `error: error spelt \u001b`) {
		t.Errorf("the record's error does not tell the spelt escape from the character:\n%s", got)
	}
}
