package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCensusCommand runs check --census-out and check --census from the command line: two runs
// each write the census of a share of the control lane's built-in check (by stage), and a check of
// both censuses writes the whole run's report, byte for byte, with the note on standard error
// saying what it read (the same on the whole built-in set, by stage, lane, fixture and repetition:
// internal/check's TestCensusMergeIsTheWholeRun); a census written from decision logs (--decision-logs with --census-out: a
// compacted census of decision logs) is read back to their report; a census cannot be read beside
// records or decision logs, a census directory that holds one already is not written over, and
// --census-out inside a --census input is refused.
func TestCensusCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d1, rest := filepath.Join(dir, "d1"), filepath.Join(dir, "rest")
	for _, args := range [][]string{
		{"--lane", "direct", "--stage", "D1", "--census-out", d1},
		{"--lane", "direct", "--stage", "A2", "--stage", "M3", "--stage", "H4", "--census-out", rest},
	} {
		if code, stdout, stderr := cli(t, append([]string{"check", "--no-cache"}, args...)...); code != 0 {
			t.Fatalf("check %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
	_, whole, _ := cli(t, "check", "--no-cache", "--lane", "direct", "--format", "json")
	code, merged, stderr := cli(t, "check", "--census", d1, "--census", rest, "--lane", "direct", "--format", "json")
	if code != 0 || merged != whole {
		t.Errorf("check --census d1 --census rest: exit %d, report equal to the whole run's: %v\n%s", code, merged == whole, stderr)
	}
	if !strings.Contains(stderr, "readings in 1 part, complete") {
		t.Errorf("stderr does not say what the census held:\n%s", stderr)
	}
	logs := filepath.Join(dir, "from-logs")
	wantCode, fromLogs, _ := cli(t, "check", "--decision-logs", consoleLog, "--format", "json")
	if c, _, e := cli(t, "check", "--decision-logs", consoleLog, "--census-out", logs, "--format", "json"); c != wantCode {
		t.Fatalf("check --decision-logs --census-out: exit %d, want %d\n%s", c, wantCode, e)
	}
	code, compacted, stderr := cli(t, "check", "--census", logs, "--format", "json")
	if code != wantCode || compacted != fromLogs || !strings.Contains(stderr, "a compacted census of decision logs") {
		t.Errorf("check --census of the decision logs' census: exit %d (want %d), report equal to theirs: %v\n%s", code, wantCode, compacted == fromLogs, stderr)
	}
	runCases(t, false, []cliCase{
		{name: "census beside records", args: []string{"--census", d1, "--observations", "../../fixtures/observations/direct"},
			code: 2, inStderr: []string{"--census reads a census instead of records"}},
		{name: "census beside decision logs", args: []string{"--census", d1, "--decision-logs", consoleLog},
			code: 2, inStderr: []string{"--census reads a census instead of records"}},
		{name: "census written inside its input", args: []string{"--census", d1, "--census-out", filepath.Join(d1, "x")},
			code: 2, inStderr: []string{"--census-out " + filepath.Join(d1, "x") + " is inside " + d1 + ", an input directory of this run: refused"}},
		{name: "census written over", args: []string{"--census-out", d1}, code: 2, inStderr: []string{"already holds a census"}},
		{name: "not a census", args: []string{"--census", dir}, code: 2, inStderr: []string{"no census part"}},
		{name: "another profile", args: []string{"--census", d1, "--profile", "optional-null"}, code: 2, inStderr: []string{`a census of profile "strict"`}},
	}, "check", "--no-cache")
	if _, err := os.Stat(filepath.Join(d1, "x")); err == nil {
		t.Error("a refused --census-out made its directory")
	}
}
