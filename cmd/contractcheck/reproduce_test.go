package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceVerb writes a reproduction from the command line and refuses what it cannot write.
func TestReproduceVerb(t *testing.T) {
	dir := t.TempDir()
	layer := filepath.Join(dir, "mine")
	if code, _, stderr := cli(t, "init", layer); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	args := func(fixture, task, out string, more ...string) []string {
		return append([]string{"reproduce", "--fixture", fixture, "--lane", "go-sdk", "--version", "v1.8.0", "--stage", "D1", "--task", task, "--output", out}, more...)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
		files    []string
	}{
		{name: "a go-sdk loss", args: args("C02", "T2", filepath.Join(dir, "c02")), code: 0,
			inStdout: "structuredContent.sequence 9007199254740993 must reach D1 exactly",
			files:    []string{"repro_test.go", "go.mod", "testdata/w0.json", "ISSUE.md", "README.md"}},
		{name: "a binding that passes", args: args("C01", "T1", filepath.Join(dir, "c01")), code: 2, inStderr: "nothing is lost to reproduce"},
		{name: "output inside an input", args: args("C02", "T2", filepath.Join(layer, "out"), "--contracts", layer), code: 2, inStderr: "an input directory of this run"},
		{name: "no output", args: []string{"reproduce", "--fixture", "C02"}, code: 2, inStderr: "--output is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.inStdout) || !strings.Contains(stderr, tc.inStderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d with %q / %q", code, stdout, stderr, tc.code, tc.inStdout, tc.inStderr)
			}
			out := tc.args[len(tc.args)-1]
			for _, f := range tc.files {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("no %s: %v", f, err)
				}
			}
			if tc.code != 0 {
				if _, err := os.Stat(filepath.Join(dir, "c01")); err == nil {
					t.Error("a refused reproduction wrote its directory")
				}
			}
		})
	}
	w0, err := os.ReadFile(filepath.Join(dir, "c02", "testdata", "w0.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "sources", "paper", "C02.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(w0) != string(src) {
		t.Error("testdata/w0.json is not the fixture's bytes")
	}
}
