package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCensusCommand runs check --census-out and check --census from the command line: two runs
// each write the census of a share of the built-in check (by stage), and a check of both
// censuses writes the whole run's report, byte for byte, with the note on standard error saying
// what it read; a census cannot be read beside records or decision logs, a census cannot be
// written from decision logs, and a census directory that holds one already is not written over.
func TestCensusCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d1, rest := filepath.Join(dir, "d1"), filepath.Join(dir, "rest")
	for _, args := range [][]string{
		{"--stage", "D1", "--census-out", d1},
		{"--stage", "A2", "--stage", "M3", "--stage", "H4", "--census-out", rest},
	} {
		if code, stdout, stderr := cli(t, append([]string{"check", "--no-cache"}, args...)...); code != 0 {
			t.Fatalf("check %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
	_, whole, _ := cli(t, "check", "--no-cache", "--format", "json")
	code, merged, stderr := cli(t, "check", "--census", d1, "--census", rest, "--format", "json")
	if code != 0 || merged != whole {
		t.Errorf("check --census d1 --census rest: exit %d, report equal to the whole run's: %v\n%s", code, merged == whole, stderr)
	}
	if !strings.Contains(stderr, "readings in 1 part, complete") {
		t.Errorf("stderr does not say what the census held:\n%s", stderr)
	}
	runCases(t, false, []cliCase{
		{name: "census beside records", args: []string{"--census", d1, "--observations", "../../fixtures/observations/direct"},
			code: 2, inStderr: []string{"--census reads a census instead of records"}},
		{name: "census beside decision logs", args: []string{"--census", d1, "--decision-logs", consoleLog},
			code: 2, inStderr: []string{"--census reads a census instead of records"}},
		{name: "census of decision logs", args: []string{"--census-out", filepath.Join(dir, "x"), "--decision-logs", consoleLog},
			code: 2, inStderr: []string{"--census-out writes the census of records"}},
		{name: "census written over", args: []string{"--census-out", d1}, code: 2, inStderr: []string{"already holds a census"}},
		{name: "not a census", args: []string{"--census", dir}, code: 2, inStderr: []string{"no census part"}},
		{name: "another profile", args: []string{"--census", d1, "--profile", "optional-null"}, code: 2, inStderr: []string{`a census of profile "strict"`}},
	}, "check", "--no-cache")
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a refused --census-out made its directory")
	}
}
