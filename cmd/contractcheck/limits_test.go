package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// limitsLayer is internal/instrument/testdata/limits: a contracts layer adding one task per case
// on fixture C01, a policy layer whose Rego tests (limits.cases_test) and task policy
// (limits.task) each call a builtin past the sandbox's limits, one a case, and builtins.json,
// the builtin each case calls. That every case is refused, naming its builtin and the call's
// position, is held by the packages that refuse it, the layer loaded once: internal/policy's
// TestBuiltinLimitsInRegoTests and internal/instrument's TestBuiltinLimitsInTasks. What the
// command line adds (the exit code, the streams, the text report) is held here.
var limitsLayer = struct{ dir, contracts, policies string }{
	dir:       filepath.Join("..", "..", "internal", "instrument", "testdata", "limits"),
	contracts: filepath.Join("..", "..", "internal", "instrument", "testdata", "limits", "contracts"),
	policies:  filepath.Join("..", "..", "internal", "instrument", "testdata", "limits", "policies"),
}

// TestBuiltinLimitsInRegoTests: Rego tests calling builtins past the sandbox's limits are stopped
// at once, without making what they asked for: contractcheck test lists each as failed with the
// limit and exits 3 (the instrument failed), naming on stderr the first test stopped (the test,
// the builtin and the call's position) and how many more were.
func TestBuiltinLimitsInRegoTests(t *testing.T) {
	t.Parallel()
	var builtins map[string]string // case → builtin
	testkit.ReadJSON(t, filepath.Join(limitsLayer.dir, "builtins.json"), &builtins)
	code, stdout, stderr := cli(t, "test", "--no-builtin", "--policies", limitsLayer.policies)
	if code != 3 {
		t.Fatalf("exit %d, want 3\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for name := range builtins {
		if want := "FAIL limits.cases_test.test_" + name + " ("; !strings.Contains(stdout, want) {
			t.Errorf("stdout does not list %q:\n%s", want, stdout)
		}
	}
	// The first test of cases_test.rego is test_lsh_1e12.
	want := regexp.MustCompile(`^contractcheck: Rego test limits\.cases_test\.test_lsh_1e12 \(.*cases_test\.rego:\d+:\d+\): ` +
		`stopped at the sandbox's limit of [^\n]*: bits\.lsh at .*cases\.rego:\d+:\d+ would make [^\n]* \(and ` +
		strconv.Itoa(len(builtins)-1) + ` more tests stopped at a limit\)\n$`)
	if !want.MatchString(stderr) {
		t.Errorf("stderr does not match %s:\n%s", want, stderr)
	}
}

// TestBuiltinLimitsInTasks: a task policy calling a builtin past the sandbox's limits stops
// the check at once: exit 3, the message naming the task, the binding, the policy, the builtin
// and the call's position.
func TestBuiltinLimitsInTasks(t *testing.T) {
	t.Parallel()
	obs := filepath.Join(t.TempDir(), "obs")
	testkit.WriteFile(t, filepath.Join(obs, "direct.jsonl"), validRecord(t)+"\n")
	code, stdout, stderr := cli(t, "check", "--no-cache", "--contracts", limitsLayer.contracts, "--policies", limitsLayer.policies,
		"--observations", obs, "--task", "sprintf_width")
	if code != 3 {
		t.Fatalf("exit %d, want 3\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	want := regexp.MustCompile(`^contractcheck: .*obs/direct\.jsonl:1: task sprintf_width \(C01 direct v1 default D1\): ` +
		`policy limits\.task \(.*limits/policies/task\.rego\): stopped at the sandbox's limit of [^\n]*: ` +
		`sprintf at .*limits/policies/cases\.rego:\d+:\d+ would make `)
	if !want.MatchString(stderr) {
		t.Errorf("stderr does not match %s:\n%s", want, stderr)
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
	stdout, stderr := cliOK(t, args...)
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
	stdout, _ = cliOK(t, "test", "--no-builtin", "--policies", filepath.Join(dir, "policies"), "-v")
	if want := "    printed:\n      hello \\u202eworld\n"; !strings.Contains(stdout, want) {
		t.Errorf("test -v does not show %q:\n%s", want, stdout)
	}
	if strings.ContainsAny(stdout+stderr, "\u202e\u001b") {
		t.Error("a bidi or control character reached the output")
	}
}
