package probe

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLeftovers: a command that starts a detached daemon (a session of its own, as cline starts
// its hub daemon) leaves it behind; probe, a child subreaper, ends it when the run ends, one
// daemon per run across repetitions, SIGKILL for one that ignores SIGTERM, and says so, the
// daemon's hostile command line escaped. TestLeftovers and TestLeftoversConcurrent are not
// parallel: they shorten killGrace, a package variable every run reads.
func TestLeftovers(t *testing.T) {
	defer func(g time.Duration) { killGrace = g }(killGrace)
	killGrace = 300 * time.Millisecond
	const arg = "--hub-daemon\x1b[2J\u202e\u2028"
	tests := []struct {
		name string
		env  []string
	}{
		{"a daemon that ends on SIGTERM", nil},
		{"a daemon that ignores SIGTERM", []string{"TESTAGENT_IGNORE_TERM=1"}},
		{"a daemon with an environment of its own and the MCP URL in its arguments", []string{"TESTAGENT_DAEMON_ENV=clean"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, pids := probeDaemons(t, append([]string{"TESTAGENT_DAEMON_ARG=" + arg}, tt.env...), 1, "C09")
			if len(pids) != 2 {
				t.Fatalf("daemon pids %q, want one per run", pids)
			}
			for i, p := range pids {
				daemonEnded(t, log, p, "C09", strconv.Itoa(i+1))
			}
			if !strings.Contains(log, `--hub-daemon`) || strings.ContainsAny(log, "\x1b\u202e\u2028") {
				t.Errorf("the daemon's command line is missing or unescaped:\n%q", log)
			}
		})
	}
}

// TestLeftoversConcurrent: with runs made at once (Jobs), each run's detached daemon is ended
// when that run ends and is said on that run's line, never another's: a run's cleanup takes only
// what carries its own URL (a run's environment names it), so no run ends another's daemon,
// which would then be missing from its own run's line.
func TestLeftoversConcurrent(t *testing.T) {
	defer func(g time.Duration) { killGrace = g }(killGrace)
	killGrace = 300 * time.Millisecond
	tests := []struct {
		name string
		env  []string
	}{
		{"daemons that end on SIGTERM", nil},
		{"daemons that ignore SIGTERM", []string{"TESTAGENT_IGNORE_TERM=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, lines := probeDaemons(t, append([]string{"TESTAGENT_PID_LABEL=1"}, tt.env...), 4, "C07", "C09")
			if len(lines) != 4 {
				t.Fatalf("daemon lines %q, want one per run", lines)
			}
			runs := map[string]bool{}
			for _, l := range lines {
				f := strings.Fields(l)
				if len(f) != 3 {
					t.Fatalf("daemon line %q: want pid, fixture, repetition", l)
				}
				runs[f[1]+" "+f[2]] = true
				daemonEnded(t, log, f[0], f[1], f[2])
			}
			if len(runs) != 4 {
				t.Errorf("daemons of runs %v, want one of each of the four", runs)
			}
		})
	}
}

// probeDaemons probes fixtures twice each, jobs runs at once, with the test agent in daemon mode
// (each run starts a detached daemon and writes a line of it to a pid file) and env added; every
// run must be captured. It returns probe's log and the pid file's lines.
func probeDaemons(t *testing.T, env []string, jobs int, fixtures ...string) (string, []string) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	env = append([]string{"TESTAGENT_MODE=daemon", "TESTAGENT_API=openai-chat", "TESTAGENT_PID_FILE=" + pidFile}, env...)
	o := probeOpts(t, "agent", env, fixtures...)
	o.Repetitions, o.Jobs = 2, jobs
	res, log := runLogged(t, o)
	if want := 2 * len(fixtures); res.Captured != want || res.Failed != 0 {
		t.Fatalf("result %+v, want %d captured\n%s", res, want, log)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	return log, strings.Split(strings.TrimSpace(string(data)), "\n")
}

// daemonEnded checks that the daemon pid, left behind by the run of fixture at repetition rep, is
// gone (it is killed if not) and that log says probe ended it.
func daemonEnded(t *testing.T, log, pid, fixture, rep string) {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(n, 0); !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(n, syscall.SIGKILL)
		t.Errorf("daemon %d outlived the probe (kill 0: %v)", n, err)
	}
	want := "probe: " + fixture + " repetition " + rep + ": the command left 1 process behind, ended with SIGTERM (SIGKILL after 300ms): pid " + pid + " ("
	if !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
}
