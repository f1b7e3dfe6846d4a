package probe

import (
	"os/exec"
	"testing"
	"time"
)

// TestAnotherRun: a process whose environment or arguments name another run's URL belongs to
// that run, and a run's cleanup leaves it alone in a group whose id is reused; one that names the
// run's own URL anywhere, or no run at all, does not.
func TestAnotherRun(t *testing.T) {
	t.Parallel()
	const (
		mine  = "http://127.0.0.1:40001/r/0123456789abcdef/"
		other = "http://127.0.0.1:40002/r/fedcba9876543210/"
	)
	tests := []struct {
		name string
		env  []string
		args []string
		want bool
	}{
		{name: "this run's environment", env: []string{runEnv + mine + "observe"}, want: false},
		{name: "another run's environment", env: []string{runEnv + other + "observe"}, want: true},
		{name: "an environment of its own, another run's URL in its arguments", args: []string{other + "mcp"}, want: true},
		{name: "an environment of its own, this run's URL in its arguments", args: []string{mine + "mcp"}, want: false},
		{name: "another run's environment, this run's URL in its arguments", env: []string{runEnv + other + "observe"}, args: []string{mine + "mcp"}, want: false},
		{name: "no run named", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// sh stays, its arguments those given (sleep would refuse them).
			cmd := exec.Command("sh", append([]string{"-c", "sleep 30; :", "sh"}, tt.args...)...)
			cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, tt.env...)
			if err := cmd.Start(); err != nil {
				t.Skipf("sh: %v", err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			// Until it has exec'd, /proc shows the test binary's arguments and environment.
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if c := cmdlineOf(cmd.Process.Pid); len(c) > 0 && c[0] == "sh" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("sh never started")
				}
			}
			if got := anotherRun(cmd.Process.Pid, mine); got != tt.want {
				t.Errorf("anotherRun = %v, want %v", got, tt.want)
			}
		})
	}
}
