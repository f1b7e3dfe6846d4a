package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// cliCase is one run of the command line in a table test, and what it must give: the exit code,
// and strings standard output, standard error or either (the two together) hold.
type cliCase struct {
	name string
	// stdin is the run's standard input (empty when not set).
	stdin string
	args  []string
	// records, when set, are written as the run's only observation records (--observations).
	records []string
	// code is the exit code the run must give.
	code int
	// inStdout, inStderr and inOutput are strings standard output, standard error and either of
	// them must hold.
	inStdout, inStderr, inOutput []string
}

// run runs the command line, the words of prefix (a verb) then the case's arguments, and reports
// each thing the run did not give: an exit code other than c.code ends the test (what the streams
// hold is then beside the point). It returns both streams for the checks of the test's own.
func (c cliCase) run(t *testing.T, prefix ...string) (stdout, stderr string) {
	t.Helper()
	args := append(append([]string{}, prefix...), c.args...)
	if c.records != nil {
		obs := filepath.Join(t.TempDir(), "obs")
		write(t, filepath.Join(obs, "x.jsonl"), strings.Join(c.records, "\n")+"\n")
		args = append(args, "--observations", obs)
	}
	code, stdout, stderr := cliIn(t, strings.NewReader(c.stdin), args...)
	if code != c.code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
	}
	for _, w := range c.inStdout {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	for _, w := range c.inStderr {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	for _, w := range c.inOutput {
		if !strings.Contains(stdout+stderr, w) {
			t.Errorf("the output lacks %q:\nstdout:\n%s\nstderr:\n%s", w, stdout, stderr)
		}
	}
	return stdout, stderr
}

// runCases runs each case as a subtest of its name, prefix before its arguments, in parallel with
// the others when parallel is set.
func runCases(t *testing.T, parallel bool, cases []cliCase, prefix ...string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			c.run(t, prefix...)
		})
	}
}

// capturedRecord is the JSONL line of a captured record of fixture at a lane's version v1,
// configuration default, at stage, repetition 1, whose carrier is carrier (any value JSON
// encodes; a json.RawMessage as it is), with the hash of the fixture's source as a record names
// it.
func capturedRecord(t *testing.T, fixture, lane, stage string, source []byte, carrier any) string {
	t.Helper()
	sum := sha256.Sum256(source)
	rec, err := json.Marshal(map[string]any{"fixture": fixture, "lane": lane, "laneVersion": "v1", "configuration": "default",
		"stage": stage, "repetition": 1, "state": "captured", "carrier": carrier, "sourceSha256": hex.EncodeToString(sum[:]), "origin": "captured"})
	if err != nil {
		t.Fatal(err)
	}
	return string(rec)
}

// initLayer writes init's layer (contracts and policies of the user's own, with their tests) to
// the directory path.
func initLayer(t *testing.T, path string) {
	t.Helper()
	if code, _, stderr := cli(t, "init", path); code != 0 {
		t.Fatalf("init %s: exit %d\n%s", path, code, stderr)
	}
}
