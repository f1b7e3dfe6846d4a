package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockThenLocked is the lock's promise: `lock` then `check --locked` runs while nothing
// changed, and refuses with exit 2, naming the file, once a record changed, appeared or
// disappeared; --frozen and --lock FILE say the same.
func TestLockThenLocked(t *testing.T) {
	obs := builtinCopy(t, "fixtures/observations/direct")
	t.Chdir(filepath.Dir(obs))
	rec := filepath.Join("direct", "v1", "default.jsonl")
	args := []string{"--observations", "direct"}

	code, stdout, stderr := cli(t, append([]string{"lock"}, args...)...)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "wrote contractcheck.lock: ") || !strings.Contains(stderr, " 1 records)") {
		t.Fatalf("lock: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = cli(t, append([]string{"check", "--locked"}, args...)...); code != 0 || !strings.Contains(stdout, "gate: profile strict satisfied") {
		t.Fatalf("check --locked on unchanged inputs: exit %d\n%s%s", code, stdout, stderr)
	}

	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// The same records in another order: a change of bytes the check itself would accept.
	if err := os.WriteFile(rec, []byte(strings.Join(append(lines[1:], lines[0]), "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--locked"}, {"--frozen"}, {"--lock", "contractcheck.lock"}} {
		code, stdout, stderr = cli(t, append(append([]string{"check"}, flags...), args...)...)
		if code != 2 || !strings.Contains(stderr, "changed      direct/v1/default.jsonl (record): sha256 ") || stdout != "" {
			t.Errorf("check %v after a record changed: exit %d, want 2 naming the record and no report\nstdout %s\nstderr %s", flags, code, stdout, stderr)
		}
	}

	if err := os.Rename(rec, filepath.Join("direct", "v1", "moved.jsonl")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, append([]string{"check", "--locked"}, args...)...)
	for _, want := range []string{"appeared     direct/v1/moved.jsonl (record)", "disappeared  direct/v1/default.jsonl (record)"} {
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("check --locked after a record moved: exit %d, want 2 and %q\n%s", code, want, stderr)
		}
	}

	// Without --locked the lock is not read: the run goes on.
	if code, _, stderr = cli(t, append([]string{"check"}, args...)...); code != 0 {
		t.Errorf("check without --locked: exit %d\n%s", code, stderr)
	}
	// A missing lock file is an error of its own.
	if code, _, stderr = cli(t, append([]string{"check", "--lock", "none.lock"}, args...)...); code != 2 || !strings.Contains(stderr, "lock file none.lock: no such file") {
		t.Errorf("check --lock none.lock: exit %d\n%s", code, stderr)
	}
}
