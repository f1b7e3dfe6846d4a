package testkit

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"testing"
)

// TestGCPercent is the GOGC of a test process (Pace): a test binary is one long process that
// runs hundreds of verbs, many at once, and keeps what they load in the caches a user's run
// fills once (models, compiled policies, the verdict memo), so its live heap is large and at
// GOGC=100 the collector scanned it about a fifth of the package's CPU. Four hundred trades the
// test process's memory (under a gigabyte for the largest package) for that CPU: with it `go
// test ./... -count=1` took about 20% less CPU (docs/design.md, "What the tests cost").
const TestGCPercent = 400

// PaceVars are the environment variables Pace sets: a test that starts children in an
// environment of its own (testscript gives a script only what its Setup sets) passes them on,
// so that its children run paced as the others, which inherit the process's environment, do.
var PaceVars = []string{"GOMEMLIMIT", "GOGC"}

// Pace sets the collector of a test process, unless the caller set it: GOMEMLIMIT=off, so the
// memory target the guard gives one run (guard.DefaultTarget) does not set the soft limit of a
// process that runs many (the guard sets no target under a GOMEMLIMIT the user chose, and "off"
// is none: the verbs run as they run for a user who set it), and GOGC=TestGCPercent. Both are
// set in the environment too, so the child processes a test starts run the same way. A test
// that measures the live heap (LiveHeap) collects first, so its figures do not depend on them.
// Benchmarks (-test.bench) are not paced: they measure what a user's run costs. TestMain calls
// it before m.Run; it parses the test flags.
func Pace() {
	if !flag.Parsed() {
		flag.Parse()
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		os.Setenv("GOMEMLIMIT", "off")
	}
	if os.Getenv("GOGC") == "" {
		os.Setenv("GOGC", strconv.Itoa(TestGCPercent))
		debug.SetGCPercent(TestGCPercent)
	}
}

// Run runs m's tests as every test process of this module runs them: the collector paced for
// a process of many verbs (Pace), and a model cache of their own: unless the caller named one
// ($CONTRACTCHECK_CACHE, as cmd's scripts and CI may), a temporary directory, removed when the
// tests are done. A package whose tests load user contract layers (each test its own temporary
// directory) then neither writes an entry into the user's cache (~/.cache/contractcheck) for
// every run nor reads one another build wrote: `go test ./...` stays hermetic. TestMain calls it:
//
//	func TestMain(m *testing.M) { os.Exit(testkit.Run(m)) }
func Run(m *testing.M) int {
	Pace()
	if os.Getenv("CONTRACTCHECK_CACHE") != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "contractcheck-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "test cache:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv("CONTRACTCHECK_CACHE", dir); err != nil {
		fmt.Fprintln(os.Stderr, "test cache:", err)
		return 2
	}
	return m.Run()
}
