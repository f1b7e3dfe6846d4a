package checkreport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/lock"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestExecute is the format step around a check as the verb uses it: an unchanged second run replays
// the first one's bytes from the cache, a run that cannot write its report caches nothing, the
// html format gets the run's views, and an unknown format or a drifted lock stops the run before
// it starts (the unknown format's case reads observations that do not exist: a run would fail on
// them first).
func TestExecute(t *testing.T) {
	obs := filepath.Join("..", "..", "fixtures", "observations", "direct")
	scope := result.Scope{Lanes: []string{"direct"}, Fixtures: []string{"C01", "C02"}}
	base := inputs.Options{Observations: []string{obs}, Scope: scope}
	collect := func(buf *bytes.Buffer) Sink {
		return func(write func(io.Writer) error) error { return write(buf) }
	}
	tests := []struct {
		name string
		// runs is the requests run one after the other, with one cache directory.
		runs []Request
		// failFirst makes the first run's sink fail.
		failFirst bool
		// replayed is what each run's outcome says of the cache.
		replayed []bool
		// contains is in the last run's report.
		contains string
		// wantErr is in the last run's error.
		wantErr string
		exit    int
	}{
		{name: "an unchanged run is replayed", runs: []Request{{Check: check.Request{Options: base}, Format: "json"}, {Check: check.Request{Options: base}, Format: "json"}},
			replayed: []bool{false, true}, contains: `"reportVersion"`, exit: result.ExitSatisfied},
		{name: "another format is another run", runs: []Request{{Check: check.Request{Options: base}, Format: "json"}, {Check: check.Request{Options: base}, Format: "text"}},
			replayed: []bool{false, false}, contains: "profile strict", exit: result.ExitSatisfied},
		{name: "no-cache runs again", runs: []Request{{Check: check.Request{Options: base}, Format: "json"}, {Check: check.Request{Options: base}, Format: "json", NoCache: true}},
			replayed: []bool{false, false}, contains: `"reportVersion"`, exit: result.ExitSatisfied},
		{name: "a report not written is not cached", runs: []Request{{Check: check.Request{Options: base}, Format: "json"}, {Check: check.Request{Options: base}, Format: "json"}},
			failFirst: true, replayed: []bool{false, false}, contains: `"reportVersion"`, exit: result.ExitSatisfied},
		{name: "html gets the views", runs: []Request{{Check: check.Request{Options: base}, Format: "html", NoCache: true}},
			replayed: []bool{false}, contains: "<!DOCTYPE html>", exit: result.ExitSatisfied},
		{name: "an unknown format is refused before the run", runs: []Request{{Check: check.Request{Options: inputs.Options{Observations: []string{filepath.Join("testdata", "no such directory")}, Scope: scope}}, Format: "yaml"}},
			replayed: []bool{false}, wantErr: `unknown format "yaml" (want one of github, html, json`, exit: result.ExitInputError},
		{name: "a drifted lock stops the run", runs: []Request{{Check: check.Request{Options: base, LockFile: "LOCK", LockTool: "test"}, Format: "json"}},
			replayed: []bool{false}, wantErr: "lock", exit: result.ExitInputError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTRACTCHECK_CACHE", t.TempDir())
			var first []byte
			for i, req := range tc.runs {
				if req.Check.LockFile == "LOCK" {
					req.Check.LockFile = writeDriftedLock(t, req.Check.Options)
				}
				var buf bytes.Buffer
				sink := collect(&buf)
				if i == 0 && tc.failFirst {
					sink = func(write func(io.Writer) error) error {
						if err := write(io.Discard); err != nil {
							return err
						}
						return errors.New("disk full")
					}
				}
				o, err := Execute(context.Background(), req, sink)
				if i == 0 && tc.failFirst {
					if err == nil || o.Exit != result.ExitCode(err) {
						t.Fatalf("a failing sink: outcome %+v, error %v; want its error", o, err)
					}
					continue
				}
				if o.Replayed != tc.replayed[i] {
					t.Errorf("run %d: replayed = %v, want %v", i+1, o.Replayed, tc.replayed[i])
				}
				last := i == len(tc.runs)-1
				if !last {
					first = append([]byte(nil), buf.Bytes()...)
					continue
				}
				if o.Exit != tc.exit {
					t.Errorf("exit %d, want %d (%v)", o.Exit, tc.exit, err)
				}
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("error %v, want one naming %q", err, tc.wantErr)
					}
					if buf.Len() != 0 {
						t.Errorf("a refused run wrote a report: %q", buf.String())
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(buf.String(), tc.contains) {
					t.Errorf("the report does not hold %q", tc.contains)
				}
				if req.Format == "html" && strings.Contains(buf.String(), "written without the check's instrument") {
					t.Error("the html report was written without the run's views")
				}
				if o.Replayed && !bytes.Equal(buf.Bytes(), first) {
					t.Error("the replayed report differs from the run's")
				}
				if o.Verdict == "" {
					t.Error("no verdict")
				}
			}
		})
	}
}

// writeDriftedLock writes the lock of a run with o in which one file's hash is not what it is.
func writeDriftedLock(t *testing.T, o inputs.Options) string {
	t.Helper()
	l, err := lock.Compute(o, "test")
	if err != nil {
		t.Fatal(err)
	}
	l.Files[0].Sha256 = strings.Repeat("0", 64)
	path := filepath.Join(t.TempDir(), lock.FileName)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lock.Encode(f, l); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExecuteWritesAFailedRunsReport: a run whose instrument fails (a policy whose evaluation
// fails) still hands its sink a report, in the format asked for (html too, which is made with
// the run's views), naming the failure and giving no verdict, with the run's error and exit 3;
// it is never cached, so a second run fails again rather than replaying it. A run that fails on
// bad input (a Rego syntax error, exit 2) writes no report.
func TestExecuteWritesAFailedRunsReport(t *testing.T) {
	tests := []struct {
		name     string
		policies string // below testdata
		badRego  string // instead of policies: a policy file written for the test (a malformed one is not tracked: CI lints every tracked .rego)
		format   string
		exit     int
		contains []string // in the report; none when no report is written
	}{
		{name: "json", policies: "failing/policies", format: "json", exit: result.ExitInstrument,
			contains: []string{`"failure": {`, `"exit": 3`, `"verdict": "instrument_failed"`, `eval_builtin_error: to_number`}},
		{name: "junit", policies: "failing/policies", format: "junit", exit: result.ExitInstrument,
			contains: []string{`errors="1"`, `<error message="the instrument failed: `, `eval_builtin_error: to_number`}},
		{name: "html", policies: "failing/policies", format: "html", exit: result.ExitInstrument,
			contains: []string{`id="failure"`, "eval_builtin_error: to_number"}},
		{name: "input error writes nothing", badRego: "package custom.t7\n\ndiagnostics contains {", format: "junit", exit: result.ExitInputError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONTRACTCHECK_CACHE", t.TempDir())
			policies := filepath.Join("testdata", filepath.FromSlash(tc.policies))
			if tc.badRego != "" {
				policies = t.TempDir()
				if err := os.WriteFile(filepath.Join(policies, "t7.rego"), []byte(tc.badRego), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := inputs.Options{Contracts: []string{filepath.Join("testdata", "failing", "layer")},
				Policies:     []string{policies},
				Observations: []string{filepath.Join("testdata", "failing", "obs")}, Scope: result.Scope{Lanes: []string{"direct"}}}
			req := Request{Check: check.Request{Options: opts}, Format: tc.format}
			runs := 1
			if tc.format == "json" {
				runs = 2 // the second is not replayed from the cache
			}
			for run := 1; run <= runs; run++ {
				var buf bytes.Buffer
				o, err := Execute(context.Background(), req, func(write func(io.Writer) error) error { return write(&buf) })
				if o.Exit != tc.exit || err == nil || result.ExitCode(err) != tc.exit {
					t.Fatalf("run %d: exit %d, error %v; want exit %d and its error", run, o.Exit, err, tc.exit)
				}
				if o.Replayed || o.Verdict != "" {
					t.Errorf("run %d: outcome %+v: a failed run is neither replayed nor gives a verdict", run, o)
				}
				if tc.contains == nil {
					if buf.Len() != 0 {
						t.Errorf("an input error wrote a report: %q", buf.String())
					}
					return
				}
				for _, want := range tc.contains {
					if !strings.Contains(buf.String(), want) {
						t.Errorf("run %d: the report does not hold %q:\n%s", run, want, buf.String())
					}
				}
			}
		})
	}
}
