package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary stand in for the contractcheck command: in the scripts' `exec
// contractcheck` (testscript runs it as a subprocess named contractcheck, which runs main), and
// in the child processes of TestTraps and others (CONTRACTCHECK_TEST_CHILD=1).
func TestMain(m *testing.M) {
	if os.Getenv("CONTRACTCHECK_TEST_CHILD") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The text report follows the locale (ASCII without UTF-8): the goldens are in UTF-8.
	os.Setenv("LC_ALL", "C.UTF-8")
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
// stderr. `exits N contractcheck args...` runs the command line in this process and requires
// exit code N; `exits N exec contractcheck args...` and `exec contractcheck` run it as a child
// process, for what only a process shows (process.txtar); `jsonset FILE POINTER JSON` sets the
// member a JSON pointer names in a JSON file (what a user does with jq).
func TestScripts(t *testing.T) {
	holdsProcess(t)
	// Absolute: the scripts' runs move the process to their own directories.
	dir, err := filepath.Abs("testdata/script")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("LC_ALL", "C.UTF-8")
			env.Setenv("CONTRACTCHECK_CACHE", env.WorkDir+"/.cache")
			keepScriptEnv(env)
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits, "jsonset": cmdJSONSet},
	})
}

// processState is the working directory and environment of this process. A script's in-process
// run (runInScript) holds it to move into the script's directory and environment, one run at a
// time; every other in-process run (cli) reads it, and so waits for such a run to end.
var processState sync.RWMutex

// holdsProcess marks t as a test whose scripts move the process into their own directory and
// environment (runInScript): it must not run beside the parallel tests, which read files by
// paths relative to the package directory, so t.Chdir marks it (the testing package panics if t
// or an ancestor is parallel). Its scripts run in parallel with one another: each in-process run
// holds processState.
func holdsProcess(t *testing.T) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd)
}

// scriptEnvKey is where a script's Setup keeps the names of its environment (env.Values).
type scriptEnvKey struct{}

// keepScriptEnv records the names of the variables a script starts with, for runInScript.
func keepScriptEnv(env *testscript.Env) {
	var names []string
	for _, kv := range env.Vars {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" {
			names = append(names, name)
		}
	}
	env.Values[scriptEnvKey{}] = names
}

// programEnv are the variables contractcheck (or the Go runtime and libraries it calls) reads, which
// a script may set with `env` without having started with them.
var programEnv = []string{"CONTRACTCHECK_CACHE", "CONTRACTCHECK_CPUPROFILE", "LC_ALL", "LC_CTYPE", "LANG",
	"NO_COLOR", "TERM", "TZ", "GOGC", "GOMEMLIMIT", "HOME", "XDG_CACHE_HOME", "TMPDIR"}

// scriptEnv is the environment a child process of the script would get: its variables as the
// script has them now, and PWD.
func scriptEnv(ts *testscript.TestScript) []string {
	names, _ := ts.Value(scriptEnvKey{}).([]string)
	names = append(slices.Clone(names), programEnv...)
	slices.Sort(names)
	var env []string
	for _, name := range slices.Compact(names) {
		if v := ts.Getenv(name); v != "" && name != "PWD" {
			env = append(env, name+"="+v)
		}
	}
	return append(env, "PWD="+ts.MkAbs("."))
}

// runInScript runs the command line in this process as a child process of the script would run:
// in the script's current directory, with its environment and nothing else of this process's,
// standard input from stdin, its output kept for stdout and stderr to inspect. It returns the
// exit code.
func runInScript(ts *testscript.TestScript, stdin io.Reader, args []string) int {
	var stdout, stderr bytes.Buffer
	code, err := inProcessState(ts.MkAbs("."), scriptEnv(ts), func() int {
		return runWithStdin(args, stdin, &stdout, &stderr)
	})
	ts.Check(err)
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	return code
}

// inProcessState runs f with the process in directory dir and environment env, and puts the
// process's own back after, holding processState throughout.
func inProcessState(dir string, env []string, f func() int) (code int, err error) {
	processState.Lock()
	defer processState.Unlock()
	wd, err := os.Getwd()
	if err != nil {
		return 0, err
	}
	saved := os.Environ()
	defer func() {
		os.Clearenv()
		for _, kv := range saved {
			name, v, _ := strings.Cut(kv, "=")
			os.Setenv(name, v)
		}
		if cerr := os.Chdir(wd); cerr != nil && err == nil {
			err = fmt.Errorf("back to %s: %w", wd, cerr)
		}
	}()
	if err := os.Chdir(dir); err != nil {
		return 0, err
	}
	os.Clearenv()
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(name, v); err != nil {
			return 0, fmt.Errorf("environment %s: %w", name, err)
		}
	}
	return f(), nil
}

// cmdExits runs a command and requires an exact exit code; its output is kept for stdout and
// stderr to inspect. `exits N contractcheck args...` runs it in this process (runInScript), with
// the standard input `-stdin FILE` names before N (the script's `stdin` command is for `exec`);
// `exits N exec PROGRAM args...` runs a child process.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	var stdin io.Reader = strings.NewReader("")
	stdinFile := ""
	if len(args) >= 2 && args[0] == "-stdin" {
		stdinFile, args = args[1], args[2:]
		stdin = strings.NewReader(ts.ReadFile(stdinFile))
	}
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits [-stdin FILE] N contractcheck [args...] | exits N exec program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	name, got := args[1], 0
	switch {
	case name == "contractcheck":
		got = runInScript(ts, stdin, args[2:])
	case name == "exec" && len(args) > 2 && stdinFile == "":
		name = args[2]
		err = ts.Exec(args[2], args[3:]...)
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			got = ee.ExitCode()
		case err != nil:
			ts.Fatalf("exits: %v", err)
		}
	default:
		ts.Fatalf("usage: exits [-stdin FILE] N contractcheck [args...] | exits N exec program [args...]")
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", name, got, want)
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
