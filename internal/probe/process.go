package probe

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// This file ends what a run of the command leaves behind: the command runs in a process group of
// its own, and on Linux probe is a child subreaper (reap_linux.go), so a process the command
// detached (a daemon in a session of its own, re-parented when its parent exits) re-parents to
// probe rather than to init. When the run ends, every process of the command's group and every
// process re-parented to probe that carries the run's environment, with their descendants, is
// sent SIGTERM, then SIGKILL after killGrace, and reaped; the run's line says which.
//
// With --jobs several runs are made at once, all children of probe, and a run's cleanup must take
// only its own: a process re-parented to probe is the run's only if it carries the run's marker
// (its URL, which no other run's environment or arguments hold), and a member of the run's group
// is left alone when its environment or arguments name another run's URL (reap_linux.go,
// anotherRun: a group id a reused pid made this run's). A run's marker is its own hub's address
// and token, so two runs never share one.

// killGrace is how long a leftover process has between SIGTERM and SIGKILL.
var killGrace = 2 * time.Second

// leftover is a process a run left behind.
type leftover struct {
	pid     int
	cmdline []string
}

// sayLeftovers writes the line that names the processes a run left behind and probe ended, their
// command lines as shell words (escape.Shell: one line, nothing a terminal would act on).
func sayLeftovers(w io.Writer, scenario string, rep int, left []leftover) {
	if len(left) == 0 {
		return
	}
	parts := make([]string, len(left))
	for i, l := range left {
		cmd := "?"
		if len(l.cmdline) > 0 {
			cmd = escape.Shell(l.cmdline...)
		}
		parts[i] = fmt.Sprintf("pid %d (%s)", l.pid, cmd)
	}
	noun := "processes"
	if len(left) == 1 {
		noun = "process"
	}
	fmt.Fprintf(w, "probe: %s repetition %d: the command left %d %s behind, ended with SIGTERM (SIGKILL after %s): %s\n",
		escape.Terminal(scenario), rep, len(left), noun, killGrace, strings.Join(parts, ", "))
}
