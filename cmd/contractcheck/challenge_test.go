package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

func TestChallengeBuiltinSuites(t *testing.T) {
	t.Parallel()
	for _, suite := range []string{"alpha", "beta"} {
		stdout, _ := cliOK(t, "challenge", suite)
		if !strings.Contains(stdout, "every fault detected, every control accepted") {
			t.Errorf("%s:\n%s", suite, stdout)
		}
	}
	code, stdout, _ := cli(t, "challenge", "beta", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		ChallengeVersion int                       `json:"challengeVersion"`
		Summary          map[string]map[string]int `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if r.ChallengeVersion != 1 || r.Summary["oracle"]["misclassified"] != 0 || r.Summary["schemaOnly"]["detected"] != 0 {
		t.Errorf("report %+v", r)
	}
}

// mutate writes a suite that challenge then runs; a case the oracle gets wrong exits 3, and
// --score reports the operator and exits 0.
func TestMutateThenChallenge(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "suite")
	code, stdout, stderr := cli(t, "mutate", "--fixture", "C12", "--lane", "go-sdk", "--stage", "D1",
		"--operators", "drop-uri,alter-descriptor,key-order,drop-is-error", "--output", dir)
	if code != 0 {
		t.Fatalf("mutate: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "skip drop-is-error") || !strings.Contains(stdout, "wrote 3 cases (2 faults, 1 controls)") {
		t.Errorf("mutate output:\n%s%s", stdout, stderr)
	}
	if code, stdout, _ := cli(t, "challenge", dir); code != 0 {
		t.Fatalf("challenge: exit %d\n%s", code, stdout)
	}
	// A contract set whose T4 ignores the URI misses the fault: exit 3; with --score, exit 0.
	contracts := builtinCopy(t, "contracts")
	p := filepath.Join(contracts, "tasks.cue")
	data, _ := os.ReadFile(p)
	testkit.WriteFile(t, p, strings.Replace(string(data), `"block.mimeType", "block.uri",`, `"block.mimeType",`, 1))
	// The fork replaces the built-in contracts: it runs without the built-in layer.
	fork := []string{"--no-builtin", "--contracts", contracts, "--policies", builtinCopy(t, "policies"), "--fixtures", builtinCopy(t, "fixtures"), "--schemas", builtinCopy(t, "schemas")}
	code, stdout, _ = cli(t, append([]string{"challenge", dir}, fork...)...)
	if code != 3 || !strings.Contains(stdout, "Misclassified by the oracle: 1") {
		t.Errorf("exit %d, want 3\n%s", code, stdout)
	}
	code, stdout, _ = cli(t, append([]string{"challenge", dir, "--score"}, fork...)...)
	if code != 0 || !strings.Contains(stdout, "drop-uri") || !strings.Contains(stdout, "blind (0/1)") {
		t.Errorf("exit %d, want 0 and drop-uri blind\n%s", code, stdout)
	}
}

// TestMutateForce: --force adds a suite to a directory that holds other files and keeps them,
// and a second run adds to the suite the first wrote without --force.
func TestMutateForce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "README.md"), "# my notes\n")
	args := []string{"mutate", "--fixture", "C12", "--lane", "direct", "--stage", "A2", "--operators", "key-order", "--output", dir}
	if code, stdout, stderr := cli(t, append(args, "--force")...); code != 0 {
		t.Fatalf("mutate --force: exit %d\n%s%s", code, stdout, stderr)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(data) != "# my notes\n" {
		t.Errorf("README.md = %q, %v; want it kept", data, err)
	}
	suite := filepath.Join(t.TempDir(), "suite")
	args[len(args)-1] = suite
	for run := range 2 {
		if code, stdout, stderr := cli(t, args...); code != 0 {
			t.Fatalf("mutate run %d into its own suite: exit %d\n%s%s", run+1, code, stdout, stderr)
		}
	}
}

func TestChallengeInputErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"challenge", "no-such-suite"}, "no suite"},
		{[]string{"challenge", "alpha", "--format", "xml"}, "unknown format"},
		{[]string{"challenge"}, "accepts 1 arg"},
		{[]string{"mutate", "--fixture", "C12", "--lane", "direct", "--stage", "A2"}, "--output is required"},
		{[]string{"mutate", "--fixture", "C12", "--lane", "go-sdk", "--stage", "A2", "--output", "x"}, "does not observe stage"},
		{[]string{"mutate", "--fixture", "C12", "--lane", "go-sdk", "--stage", "D1", "--operators", "nope", "--output", "x"}, "unknown operator"},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// An invalid case names its file and pointer.
	dir := builtinCopy(t, "fixtures")
	p := filepath.Join(dir, "challenge", "beta", "cases", "C08.direct.D1.flip-is-error.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, p, strings.Replace(string(data), `"challengeCase": 1`, `"challengeCase": 2`, 1))
	code, _, stderr := cli(t, "challenge", filepath.Join(dir, "challenge", "beta"))
	if code != 2 || !strings.Contains(stderr, "C08.direct.D1.flip-is-error.json: /challengeCase") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestMutateList(t *testing.T) {
	t.Parallel()
	code, stdout, _ := cli(t, "mutate", "--list")
	if code != 0 || !strings.Contains(stdout, "swap-resource-text") || !strings.Contains(stdout, "dataurl-vs-base64") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}
