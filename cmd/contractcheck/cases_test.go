package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
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
		testkit.WriteFile(t, filepath.Join(obs, "x.jsonl"), strings.Join(c.records, "\n")+"\n")
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

// usageCase is a command line a verb refuses: it exits 2, says want on standard error, and writes
// nothing at OUT (in args, the path of --output, in a new directory).
type usageCase struct {
	name string
	args []string
	want string
}

// runUsageCases runs verb with each case's arguments, in parallel: each is a usage error (exit 2)
// naming what it says, and writes nothing.
func runUsageCases(t *testing.T, verb string, cases []usageCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			args := []string{verb}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			code, _, stderr := cli(t, args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tt.want, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused %s wrote its output", verb)
			}
		})
	}
}

// sourceFile is a fixture's source file: its id (the file's name less .json), its file name and what
// it holds.
type sourceFile struct {
	id, name string
	data     []byte
}

// sourcesIn reads the sources in the directory from, in the order of their names.
func sourcesIn(t *testing.T, from string) []sourceFile {
	t.Helper()
	es, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	var out []sourceFile
	for _, e := range es {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sourceFile{id: strings.TrimSuffix(e.Name(), ".json"), name: e.Name(), data: data})
	}
	return out
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

// initWork makes a new work directory holding init's layer, mine, and returns both paths.
func initWork(t *testing.T) (dir, layer string) {
	t.Helper()
	dir = t.TempDir()
	layer = filepath.Join(dir, "mine")
	initLayer(t, layer)
	return dir, layer
}

// ownLane is a contract file (package contracts) declaring a captured lane of the user's own, name
// (a CUE label), at version 1.0.0 and configuration default, whose stages D1, A2 and M3 are not
// observable and whose H4 is h4 (a CUE value). h4 starts on line 12 of the file.
func ownLane(name, h4 string) string {
	return `package contracts

lanes: ` + name + `: {
	doc:    "A lane of one's own."
	origin: "captured"
	versions: ["1.0.0"]
	configurations: default: doc: "The default."
	stages: {
		D1: {exposure: "not_observable", doc: "Not seen.", compartments: {}}
		A2: {exposure: "not_observable", doc: "Not seen.", compartments: {}}
		M3: {exposure: "not_observable", doc: "Not seen.", compartments: {}}
		H4: ` + h4 + `
	}
}
`
}

// editsAny says whether any path of edits (a path in a layer → its new content) is one match
// accepts: a case that edits no contract file reads a layer's contracts as they are.
func editsAny(edits map[string]string, match func(path string) bool) bool {
	return slices.ContainsFunc(slices.Collect(maps.Keys(edits)), match)
}
