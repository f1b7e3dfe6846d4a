package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// cohortReport is what these tests read of a JSON report.
type cohortReport struct {
	Cohort  *result.Scope  `json:"cohort"`
	Results []cohortResult `json:"results"`
	Gate    struct {
		Verdict string `json:"verdict"`
	} `json:"gate"`
}

// cohortResult is a binding of a JSON report.
type cohortResult struct {
	Fixture, Suite, Lane, LaneVersion, Configuration, Stage, Task, Outcome string
}

// jsonReport runs check with args and --format json and decodes its report.
func jsonReport(t *testing.T, wantCode int, args ...string) *cohortReport {
	t.Helper()
	code, out, errOut := cli(t, append([]string{"check", "--format", "json", "--no-cache"}, args...)...)
	if code != wantCode {
		t.Fatalf("check %v: exit %d, want %d; stderr: %s", args, code, wantCode, errOut)
	}
	var r cohortReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check %v: %v", args, err)
	}
	if err := reportkit.ReportSchemaError(t, []byte(out)); err != nil {
		t.Fatalf("check %v: the report does not validate against its schema: %v", args, err)
	}
	return &r
}

// bindingsOf lists a report's bindings (position and outcome), and the lane configurations they
// are at with their count.
func bindingsOf(r *cohortReport, keep func(cohortResult) bool) (map[string]string, map[string]int) {
	out, per := map[string]string{}, map[string]int{}
	for _, b := range r.Results {
		if keep != nil && !keep(b) {
			continue
		}
		out[fmt.Sprintf("%s %s %s %s %s %s", b.Fixture, b.Lane, b.LaneVersion, b.Configuration, b.Stage, b.Task)] = b.Outcome
		per[b.Lane+"@"+b.Configuration]++
	}
	return out, per
}

// TestLaneConfigurationSelector: --lane LANE@CONFIGURATION picks that lane's configuration alone,
// the other lanes keep --configuration's (every one without it), and every verb that takes
// --lane reads it; a configuration the lane does not have is an input error naming it.
func TestLaneConfigurationSelector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // the lane@configuration pairs of the report
	}{
		{name: "one lane at one configuration, another at --configuration",
			args: []string{"--suite", "paper", "--configuration", "default", "--lane", "direct", "--lane", "openai-agents@application-context"},
			want: []string{"direct@default", "openai-agents@application-context"}},
		{name: "other lanes keep every configuration without --configuration",
			args: []string{"--suite", "paper", "--lane", "direct", "--lane", "langchain-mcp-adapters", "--lane", "openai-agents@use-structured-content"},
			want: []string{"direct@default", "langchain-mcp-adapters@append-structured-content", "langchain-mcp-adapters@default", "openai-agents@use-structured-content"}},
		{name: "two configurations of one lane",
			args: []string{"--suite", "paper", "--lane", "openai-agents@default", "--lane", "openai-agents@application-context", "--lane", "direct"},
			want: []string{"direct@default", "openai-agents@application-context", "openai-agents@default"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := jsonReport(t, result.ExitSatisfied, tc.args...)
			_, per := bindingsOf(r, nil)
			if got := slices.Sorted(maps.Keys(per)); !slices.Equal(got, tc.want) {
				t.Errorf("lane configurations %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("inspect record reads it", func(t *testing.T) {
		code, out, errOut := cli(t, "inspect", "record", "--fixture", "C05", "--stage", "A2", "--repetition", "1", "--lane", "openai-agents@application-context")
		if code != 0 || !strings.Contains(out, "application-context") || strings.Contains(out, "use-structured-content") {
			t.Errorf("exit %d\n%s\n%s", code, out, errOut)
		}
	})
	for _, tc := range []struct{ name, entry, want string }{
		{"unknown configuration of the lane", "openai-agents@aplication-context",
			`--lane "openai-agents@aplication-context": lane openai-agents has no configuration "aplication-context" (its configurations: application-context, default, use-structured-content)`},
		{"a configuration of another lane", "direct@application-context", `lane direct has no configuration "application-context"`},
		{"no configuration after the separator", "direct@", `--lane "direct@": LANE@CONFIGURATION needs both parts`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := cli(t, "check", "--lane", tc.entry)
			if code != result.ExitInputError || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %q", code, errOut, tc.want)
			}
		})
	}
}

// TestStudyProfile: check --profile study gives a verdict on exactly the study's cohort: the
// bindings of the four Python framework lanes and direct on suite paper, openai-agents at
// application-context and the others at default, each with the outcome the strict check gives it.
func TestStudyProfile(t *testing.T) {
	t.Parallel()
	study := jsonReport(t, result.ExitSatisfied, "--profile", "study")
	if study.Gate.Verdict != result.VerdictSatisfied {
		t.Fatalf("verdict %q, want satisfied", study.Gate.Verdict)
	}
	if want := "lanes direct,openai-agents@application-context,langchain-mcp-adapters,google-adk,agent-framework; configurations default; suites paper"; study.Cohort.Text() != want {
		t.Errorf("the report's cohort %q, want %q", study.Cohort.Text(), want)
	}
	code, out, _ := cli(t, "check", "--profile", "study", "--no-cache")
	if want := "cohort of the profile: lanes direct,openai-agents@application-context,"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("the text report does not say the cohort (%q):\n%s", want, out)
	}
	cohort := map[string]bool{"direct@default": true, "openai-agents@application-context": true,
		"langchain-mcp-adapters@default": true, "google-adk@default": true, "agent-framework@default": true}
	// The strict check of the cohort's suite and lanes: a binding's outcome does not depend on the
	// run's scope, and the rest of the built-in set would be evaluated for nothing.
	all := jsonReport(t, result.ExitSatisfied, "--suite", "paper", "--lane", "direct", "--lane", "openai-agents",
		"--lane", "langchain-mcp-adapters", "--lane", "google-adk", "--lane", "agent-framework")
	want, _ := bindingsOf(all, func(b cohortResult) bool { return b.Suite == "paper" && cohort[b.Lane+"@"+b.Configuration] })
	got, per := bindingsOf(study, nil)
	if len(got) != len(study.Results) {
		t.Errorf("%d results, %d distinct bindings", len(study.Results), len(got))
	}
	if !maps.Equal(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %q, want %q", k, got[k], v)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: outside the cohort", k)
			}
		}
	}
	if got := slices.Sorted(maps.Keys(per)); len(got) != len(cohort) {
		t.Errorf("lane configurations %v, want the cohort's %v", got, slices.Sorted(maps.Keys(cohort)))
	}
	// The flags narrow the cohort: one lane of it, at the cohort's configuration.
	narrow := jsonReport(t, result.ExitSatisfied, "--profile", "study", "--lane", "openai-agents", "--lane", "direct")
	if got := func() map[string]int { _, p := bindingsOf(narrow, nil); return p }(); !maps.Equal(got, map[string]int{"direct@default": per["direct@default"], "openai-agents@application-context": per["openai-agents@application-context"]}) {
		t.Errorf("narrowed to %v, want the cohort's two lanes %v", got, per)
	}
	// A flag outside the cohort leaves nothing to check: an input error that names the cohort.
	code, _, errOut := cli(t, "check", "--profile", "study", "--lane", "mcp-go")
	if want := "is within profile study's cohort and the run's scope"; code != result.ExitInputError || !strings.Contains(errOut, want) {
		t.Errorf("--lane mcp-go under study: exit %d, stderr %q; want exit 2 naming %q", code, errOut, want)
	}
}

// TestLaneAtOnePosition: the verbs that name one position (mutate, reproduce, inspect traffic)
// read --lane LANE@CONFIGURATION as --lane LANE --configuration CONFIGURATION; a --configuration
// that says otherwise, or a malformed entry, is an input error.
func TestLaneAtOnePosition(t *testing.T) {
	t.Parallel()
	// Each run writes to a new --output (inspect traffic has none): in standard output (exit 0) or
	// standard error, what it says.
	for _, tc := range []cliCase{
		{name: "mutate at lane@configuration", args: []string{"mutate", "--fixture", "C09", "--lane", "direct@default", "--stage", "A2"},
			code: result.ExitSatisfied, inOutput: []string{"C09.direct.A2."}},
		{name: "mutate at another configuration of the lane", args: []string{"mutate", "--fixture", "C05", "--lane", "openai-agents@application-context", "--stage", "A2"},
			code: result.ExitSatisfied, inOutput: []string{"C05.openai-agents.A2."}},
		{name: "a --configuration that disagrees", args: []string{"mutate", "--fixture", "C09", "--lane", "direct@default", "--configuration", "other", "--stage", "A2"},
			code: result.ExitInputError, inOutput: []string{`--lane "direct@default" names configuration "default", --configuration "other": give one`}},
		{name: "reproduce, no configuration after the separator", args: []string{"reproduce", "--fixture", "C02", "--lane", "go-sdk@", "--version", "v1.8.0", "--stage", "D1", "--task", "T2"},
			code: result.ExitInputError, inOutput: []string{`--lane "go-sdk@": LANE@CONFIGURATION needs both parts`}},
		{name: "inspect traffic, two separators", args: []string{"inspect", "traffic", "--lane", "a@b@c", "x.ndjson"},
			code: result.ExitInputError, inOutput: []string{`--lane "a@b@c": one @ only`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.args[0] != "inspect" {
				tc.args = append(tc.args, "--output", t.TempDir())
			}
			tc.run(t)
		})
	}
}
