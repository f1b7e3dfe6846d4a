package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestProbeSignal: SIGINT or SIGTERM to probe ends the agent's whole process group (the agent
// and a child it started in the background), every running run's with --jobs, before probe exits, with 128 plus the signal's
// number. The test binary plays contractcheck (CONTRACTCHECK_TEST_CHILD).
func TestProbeSignal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sig  syscall.Signal
		code int
		runs int // runs made at once (--jobs), each hanging
	}{
		{"SIGINT", syscall.SIGINT, 130, 1},
		{"SIGTERM", syscall.SIGTERM, 143, 1},
		{"SIGTERM with three runs at once", syscall.SIGTERM, 143, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pids")
			agent := `sleep 1000 & echo $! >> "$PIDS"; echo $$ >> "$PIDS"; wait`
			args := []string{"probe", "--lane", "hanging-agent", "--version", "1.0.0", "--provider", "openai-chat", "--jobs", strconv.Itoa(tt.runs)}
			for _, f := range []string{"C09", "C08", "C07"}[:tt.runs] {
				args = append(args, "--fixture", f)
			}
			args = append(args, "--repetitions", "1", "--output", filepath.Join(dir, "out"), "--", "sh", "-c", agent)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "CONTRACTCHECK_TEST_CHILD=1", "PIDS="+pidFile)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pids []int
			for deadline := time.Now().Add(30 * time.Second); len(pids) < 2*tt.runs; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the agent never started:\n%s", stderr.String())
				}
				data, _ := os.ReadFile(pidFile)
				if !bytes.HasSuffix(data, []byte("\n")) {
					continue
				}
				pids = pids[:0]
				for _, f := range strings.Fields(string(data)) {
					n, err := strconv.Atoi(f)
					if err != nil {
						t.Fatal(err)
					}
					pids = append(pids, n)
				}
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
				t.Errorf("probe ended with %v, want exit %d\n%s", err, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted by "+unix.SignalName(tt.sig)) {
				t.Errorf("stderr does not say why:\n%s", stderr.String())
			}
			for _, pid := range pids {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("agent process %d outlived probe", pid)
				}
			}
		})
	}
}

// alive reports whether the process exists and has not exited (a zombie no one reaped yet has).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
