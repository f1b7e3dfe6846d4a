package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestMain lets the test binary stand in for the contractcheck command: in the scripts under
// testdata/script (testscript runs it as a subprocess named contractcheck, which runs main, so
// what main alone reads, CONTRACTCHECK_CPUPROFILE, is the binary's: process.txtar), and in the
// child processes of TestTraps (CONTRACTCHECK_TEST_CHILD=1).
func TestMain(m *testing.M) {
	if os.Getenv("CONTRACTCHECK_TEST_CHILD") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The text report follows the locale (ASCII without UTF-8): the goldens are in UTF-8.
	os.Setenv("LC_ALL", "C.UTF-8")
	// The test process runs hundreds of verbs, many at once, and keeps what they load in its
	// caches: its collector is paced for that (testkit.Pace: no per-run memory target, GOGC=400),
	// which TestTraps's children inherit. A script's contractcheck is this binary too, run by
	// that name (testscript.Main): it runs as a user's plain run does, from the script's
	// environment (TestHelpExamples passes the pacing on to its scripts; TestScripts does not).
	if filepath.Base(os.Args[0]) != "contractcheck" {
		testkit.Pace()
	}
	// The model and result caches of the tests are their own (a script's are in its $WORK).
	var tm testscript.TestingM = m
	if os.Getenv("CONTRACTCHECK_CACHE") == "" {
		cache, err := os.MkdirTemp("", "contractcheck-test-cache-")
		if err != nil {
			panic(err)
		}
		os.Setenv("CONTRACTCHECK_CACHE", cache)
		tm = cleanup{m, cache}
	}
	testscript.Main(tm, map[string]func(){"contractcheck": main})
}

// cleanup runs the tests, then removes their cache directory (testscript.Main exits the process).
type cleanup struct {
	m   *testing.M
	dir string
}

func (c cleanup) Run() int {
	code := c.m.Run()
	os.RemoveAll(c.dir)
	return code
}

// TestScripts runs the command-line scripts under testdata/script (the txtar style CUE tests its
// CLI with): each runs contractcheck on files of its own and checks the exit code, stdout and
// stderr. `exits N cmd args...` runs a command and requires exit code N; `jsonset FILE POINTER
// JSON` sets the member a JSON pointer names in a JSON file (what a user does with jq).
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("LC_ALL", "C.UTF-8")
			env.Setenv("CONTRACTCHECK_CACHE", env.WorkDir+"/.cache")
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits, "jsonset": cmdJSONSet},
	})
}

// cmdExits runs a command and requires an exact exit code; its output is kept for stdout and
// stderr to inspect.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdJSONSet sets the value at a JSON pointer (its last token a member of an object) in a JSON
// file, rewriting the file indented.
func cmdJSONSet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || !strings.HasPrefix(args[1], "/") {
		ts.Fatalf("usage: jsonset FILE /POINTER JSON")
	}
	file := ts.MkAbs(args[0])
	var doc, value any
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[0])))
	dec.UseNumber()
	ts.Check(dec.Decode(&doc))
	ts.Check(json.Unmarshal([]byte(args[2]), &value))
	tokens := strings.Split(args[1][1:], "/")
	node := doc
	for i, tok := range tokens {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		obj, ok := node.(map[string]any)
		if !ok {
			ts.Fatalf("jsonset: %s: not an object at token %d", args[1], i)
		}
		if i == len(tokens)-1 {
			obj[tok] = value
			break
		}
		node = obj[tok]
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(file, append(data, '\n'), 0o644))
}
