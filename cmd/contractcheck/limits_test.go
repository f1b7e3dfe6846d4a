package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// limitsLayer is the layer of testdata/limits: a contracts layer adding one task per case on
// fixture C01, and a policy layer whose package limits.cases holds the cases (value.<case>: a
// builtin call past one of the sandbox's limits), limits.task the task policy calling the case
// its task names, and cases_test.rego one Rego test per case.
var limitsLayer = struct{ contracts, policies string }{
	contracts: filepath.Join("testdata", "limits", "contracts"),
	policies:  filepath.Join("testdata", "limits", "policies"),
}

// limitCases are the cases of testdata/limits: each a builtin call that would allocate or
// compute in proportion to an argument's value (bits.lsh(1, 1e12) asks for a 125 GB number),
// and the builtin the refusal must name.
var limitCases = []struct {
	name    string // the case: value.<name> in cases.rego, test_<name>, task <name>
	builtin string
}{
	{name: "lsh_1e12", builtin: "bits.lsh"},
	{name: "lsh_1e8", builtin: "bits.lsh"},
	{name: "lsh_4e10", builtin: "bits.lsh"},
	{name: "mul", builtin: "mul"},
	{name: "div", builtin: "div"},
	{name: "product", builtin: "product"},
	{name: "sum_shared", builtin: "sum"},
	{name: "to_number", builtin: "to_number"},
	{name: "units_parse", builtin: "units.parse"},
	{name: "units_parse_bytes", builtin: "units.parse_bytes"},
	{name: "sprintf_width", builtin: "sprintf"},
	{name: "sprintf_widths", builtin: "sprintf"},
	{name: "sprintf_index", builtin: "sprintf"},
	{name: "concat", builtin: "concat"},
	{name: "replace", builtin: "replace"},
	{name: "replace_n", builtin: "strings.replace_n"},
	{name: "regex_replace", builtin: "regex.replace"},
	{name: "json_marshal", builtin: "json.marshal"},
	{name: "json_marshal_indent", builtin: "json.marshal_with_options"},
	{name: "yaml_marshal", builtin: "yaml.marshal"},
	{name: "array_concat", builtin: "array.concat"},
	{name: "array_flatten", builtin: "array.flatten"},
	{name: "array_reverse", builtin: "array.reverse"},
	{name: "split", builtin: "split"},
	{name: "indexof_n", builtin: "indexof_n"},
	{name: "reachable_paths", builtin: "graph.reachable_paths"},
}

// TestBuiltinLimitsInRegoTests: a Rego test calling a builtin past the sandbox's limits is
// stopped at once, without making what it asked for: contractcheck test lists it as failed with
// the limit and exits 3 (the instrument failed), naming the test, the builtin and the call's
// position.
func TestBuiltinLimitsInRegoTests(t *testing.T) {
	t.Parallel()
	for _, tc := range limitCases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "test", "--no-builtin", "--policies", limitsLayer.policies,
				"--run", `^data\.limits\.cases_test\.test_`+tc.name+`$`)
			if code != 3 {
				t.Fatalf("exit %d, want 3\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			if want := "FAIL limits.cases_test.test_" + tc.name + " ("; !strings.Contains(stdout, want) {
				t.Errorf("stdout does not list %q:\n%s", want, stdout)
			}
			want := regexp.MustCompile(`^contractcheck: Rego test limits\.cases_test\.test_` + tc.name + ` \(.*cases_test\.rego:\d+:\d+\): ` +
				`stopped at the sandbox's limit of [^\n]*: ` + regexp.QuoteMeta(tc.builtin) + ` at .*cases\.rego:\d+:\d+ would make `)
			if !want.MatchString(stderr) {
				t.Errorf("stderr does not match %s:\n%s", want, stderr)
			}
		})
	}
}

// TestBuiltinLimitsInTasks: a task policy calling a builtin past the sandbox's limits stops
// the check at once: exit 3, the message naming the task, the binding, the policy, the builtin
// and the call's position.
func TestBuiltinLimitsInTasks(t *testing.T) {
	t.Parallel()
	obs := filepath.Join(t.TempDir(), "obs")
	testkit.WriteFile(t, filepath.Join(obs, "direct.jsonl"), validRecord(t)+"\n")
	for _, tc := range limitCases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "check", "--no-cache", "--contracts", limitsLayer.contracts, "--policies", limitsLayer.policies,
				"--observations", obs, "--task", tc.name)
			if code != 3 {
				t.Fatalf("exit %d, want 3\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			want := regexp.MustCompile(`obs/direct\.jsonl:1: task ` + tc.name + ` \(C01 direct v1 default D1\): ` +
				`policy limits\.task \(.*limits/policies/task\.rego\): stopped at the sandbox's limit of [^\n]*: ` +
				regexp.QuoteMeta(tc.builtin) + ` at .*limits/policies/cases\.rego:\d+:\d+ would make `)
			if !want.MatchString(stderr) {
				t.Errorf("stderr does not match %s:\n%s", want, stderr)
			}
		})
	}
}

// TestRegoTestTimeLimit: a Rego test stopped at --eval-timeout fails the instrument (exit 3, as
// --eval-timeout's help says), in text and in JSON, and the other tests still run.
func TestRegoTestTimeLimit(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "policies")
	testkit.WriteFile(t, filepath.Join(p, "slow_test.rego"), "package slow_test\n\ntest_slow if {\n\tsome i in numbers.range(1, 1000000000000)\n\ti < 0\n}\n\ntest_fast if 1 == 1\n")
	tests := []struct {
		name   string
		format string
	}{
		{name: "text", format: "text"},
		{name: "json", format: "json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "test", "--no-builtin", "--policies", p, "--eval-timeout", "300ms", "--format", tc.format)
			if code != 3 {
				t.Fatalf("exit %d, want 3\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			if want := "contractcheck: Rego test slow_test.test_slow (" + filepath.Join(p, "slow_test.rego") + ":3:1): stopped at the time limit of 300ms\n"; stderr != want {
				t.Errorf("stderr %q, want %q", stderr, want)
			}
			if tc.format == "text" {
				if want := "FAIL slow_test.test_slow (" + filepath.Join(p, "slow_test.rego") + ":3:1)\n    stopped at the time limit of 300ms\n1 passed, 1 failed\n"; stdout != want {
					t.Errorf("stdout %q, want %q", stdout, want)
				}
				return
			}
			var doc struct {
				Tests []struct {
					Name, Limit string
					Pass        bool
				}
				Passed, Failed int
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Passed != 1 || doc.Failed != 1 || len(doc.Tests) != 2 || doc.Tests[0].Name != "test_slow" || doc.Tests[0].Limit != "the time limit of 300ms" || doc.Tests[0].Pass {
				t.Errorf("JSON report %+v", doc)
			}
		})
	}
}

// TestPrintOutput: what a policy prints reaches the user, escaped for the terminal — in check
// on stderr once the run is done (sorted by position, each distinct line once: see
// internal/policy's TestPrintLog), the report unchanged; in test beside the test (-v) — and a
// printed "::" command or a control or bidi character never reaches a CI log as such.
func TestPrintOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "contracts", "t9.cue"), "package contracts\n\ntasks: T9: {doc: \"Prints.\", role: \"guard\", policy: \"printing.t9\", compartment: \"content\", atoms: [\"block.count\"], appliesTo: fixtures: [\"C01\"]}\n")
	policy := "package printing.t9\n\nreadout := {}\n\ndiagnostics contains {\"atom\": \"block.count\", \"path\": \"\", \"kind\": \"missing\"} if {\n" +
		"\tprint(\"task\", input.task, \"on\", input.fixture.id)\n" +
		"\tprint(\"\\n::error file=x::injected \\u001b[31mred\\u202e\")\n" +
		"\tfalse\n}\n"
	testkit.WriteFile(t, filepath.Join(dir, "policies", "t9.rego"), policy)
	testkit.WriteFile(t, filepath.Join(dir, "policies", "t9_test.rego"), "package printing.t9_test\n\ntest_prints if {\n\tprint(\"hello\", \"\\u202eworld\")\n}\n")
	rec := validRecord(t)
	obs := filepath.Join(dir, "obs")
	testkit.WriteFile(t, filepath.Join(obs, "direct.jsonl"), rec+"\n")
	args := []string{"check", "--no-cache", "--contracts", filepath.Join(dir, "contracts"), "--policies", filepath.Join(dir, "policies"), "--observations", obs, "--task", "T9"}
	code, stdout, stderr := cli(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	at := filepath.Join(dir, "policies", "t9.rego")
	want := "print: " + at + ":6:2: task T9 on C01\n" +
		"print: " + at + `:7:2: \n::error file=x::injected \u001b[31mred\u202e` + "\n"
	if stderr != want {
		t.Errorf("check's stderr:\n%s\nwant:\n%s", stderr, want)
	}
	// The same run without the print statements writes the same report.
	testkit.WriteFile(t, filepath.Join(dir, "policies", "t9.rego"), strings.NewReplacer("\tprint(\"task\", input.task, \"on\", input.fixture.id)\n", "",
		"\tprint(\"\\n::error file=x::injected \\u001b[31mred\\u202e\")\n", "").Replace(policy))

	_, quiet, quietErr := cli(t, args...)
	if quiet != stdout || quietErr != "" {
		t.Errorf("print changed the report or stderr:\n%s\n---\n%s\n%s", stdout, quiet, quietErr)
	}
	code, stdout, _ = cli(t, "test", "--no-builtin", "--policies", filepath.Join(dir, "policies"), "-v")
	if code != 0 {
		t.Fatalf("test: exit %d\n%s", code, stdout)
	}
	if want := "    printed:\n      hello \\u202eworld\n"; !strings.Contains(stdout, want) {
		t.Errorf("test -v does not show %q:\n%s", want, stdout)
	}
	if strings.ContainsAny(stdout+stderr, "\u202e\u001b") {
		t.Error("a bidi or control character reached the output")
	}
}
