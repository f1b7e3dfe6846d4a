package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/contractcheck/contractcheck/internal/bench"
	"github.com/contractcheck/contractcheck/internal/testtier"
)

// onTerminal runs the command line with standard error on a pseudo-terminal (standard output a
// buffer, as when a report is piped) and returns the exit code, standard output and what the
// terminal showed.
func onTerminal(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var shown bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(&shown, ptmx) // ends with EIO once the terminal side is closed
	}()
	var stdout bytes.Buffer
	code := runWithStdin(args, strings.NewReader(""), &stdout, tty)
	tty.Close()
	<-copied
	return code, stdout.String(), shown.String()
}

// TestProgress: a check shows progress on standard error when it is a terminal and none when it
// is piped; --quiet shows none on a terminal; --progress writes plain lines where it is piped.
// Nothing of it reaches standard output, whose report is the same in every case. The hidden
// --progress-after 0 shows progress at once, so the built-in check of the control lane alone (its
// records are enough to show the bar and the lines; the whole built-in set is evaluated 5 times
// for nothing more) is enough.
func TestProgress(t *testing.T) {
	t.Parallel()
	base := []string{"check", "--no-cache", "--progress-after", "0", "--lane", "direct"}
	code, want, stderr := cli(t, base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "check: ") {
		t.Errorf("piped standard error shows progress: %q", stderr)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		terminal bool
		progress bool // the bar, or lines, are shown
	}{
		{name: "terminal", terminal: true, progress: true},
		{name: "terminal quiet", args: []string{"--quiet"}, terminal: true},
		{name: "piped progress", args: []string{"--progress"}, progress: true},
		{name: "piped quiet", args: []string{"--quiet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, base...), tc.args...)
			var code int
			var stdout, shown string
			if tc.terminal {
				code, stdout, shown = onTerminal(t, args...)
			} else {
				code, stdout, shown = cli(t, args...)
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, shown)
			}
			if stdout != want {
				t.Errorf("the report differs from the piped run's:\n%s", stdout)
			}
			if got := strings.Contains(shown, "check: starting"); got != tc.progress {
				t.Errorf("progress shown %v, want %v: %q", got, tc.progress, shown)
			}
			switch {
			case tc.progress && tc.terminal:
				// The bar is redrawn in place and cleared before the report: it ends blank, and no
				// line of it stays.
				end := strings.TrimRight(shown, " ")
				if strings.Contains(shown, "\n") || !strings.HasSuffix(end, "\r") || strings.Trim(end[strings.LastIndex(end[:len(end)-1], "\r"):], " \r") != "" {
					t.Errorf("the bar was not cleared: %q", shown)
				}
			case tc.progress:
				if strings.ContainsAny(shown, "\r\x1b") {
					t.Errorf("plain progress holds a carriage return or an escape: %q", shown)
				}
				if !strings.Contains(shown, "\ncheck: ") || !strings.Contains(shown, " records in ") {
					t.Errorf("no last line of progress: %q", shown)
				}
			}
		})
	}
}

// TestProgressFlagsExclusive: --progress and --quiet contradict each other: a usage error.
func TestProgressFlagsExclusive(t *testing.T) {
	t.Parallel()
	code, _, stderr := cli(t, "check", "--progress", "--quiet")
	if code != 2 || !strings.Contains(stderr, "progress") {
		t.Errorf("exit %d, stderr %q: want a usage error", code, stderr)
	}
}

// TestProgress100k is the case: a 100k-binding check, some seconds long, shows its
// progress on a terminal after a second (the default delay), with the records done, the rate and
// the time left, and shows none when standard error is piped. Integration tier: generating and
// checking the set takes tens of seconds on two cores.
func TestProgress100k(t *testing.T) {
	testtier.Require(t, "a 100k-binding check on a pseudo-terminal (tens of seconds)")
	set, err := bench.Generate(t.TempDir(), bench.Options{Bindings: 100_000, Unique: true})
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--no-cache", "--contracts", set.Contracts, "--observations", set.Observations, "--profile", "bench"}
	code, want, stderr := cli(t, args...)
	if code != 0 || strings.Contains(stderr, "check: ") {
		t.Fatalf("piped: exit %d, stderr %q: want 0 and no progress", code, stderr)
	}
	code, stdout, shown := onTerminal(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, shown)
	}
	if stdout != want {
		t.Error("the report on a terminal differs from the piped run's")
	}
	for _, part := range []string{" records", "/s", " left", "%"} {
		if !strings.Contains(shown, part) {
			t.Errorf("the terminal showed no %q: %q", part, shown)
		}
	}
}

// TestProgressVerbs: compare and challenge show their progress as check does: with --progress
// where standard error is piped, plain lines of what they count, and none with --quiet.
func TestProgressVerbs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		last string // the start of the last line
	}{
		// One fixture's readings: progress starts and ends as on the whole built-in set
		// (TestCompare runs that).
		{name: "compare", args: []string{"compare", "--fixture", "C04"}, last: "compare: "},
		{name: "challenge", args: []string{"challenge", "alpha"}, last: "challenge: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, want, _ := cli(t, append(tc.args, "--quiet")...)
			_, stdout, stderr := cli(t, append(tc.args, "--progress", "--progress-after", "0")...)
			if stdout != want {
				t.Errorf("the report differs with progress:\n%s", stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if lines[0] != tc.last+"starting" || !strings.HasPrefix(lines[len(lines)-1], tc.last) || !strings.Contains(lines[len(lines)-1], " in ") {
				t.Errorf("stderr %q: want a first and a last line of progress", stderr)
			}
			if strings.ContainsAny(stderr, "\r\x1b") {
				t.Errorf("plain progress holds a carriage return or an escape: %q", stderr)
			}
		})
	}
}
