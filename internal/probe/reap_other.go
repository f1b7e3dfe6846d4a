//go:build !linux

package probe

import (
	"syscall"
	"time"
)

// subreaper has nothing to do where the system has no child subreaper: a process the command
// detaches from its group is out of probe's reach there.
func subreaper() error { return nil }

// endLeftovers ends the command's process group (SIGTERM, then SIGKILL after killGrace); without
// /proc it cannot name the processes, so it returns none.
func endLeftovers(pgid int, _ string) []leftover {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return nil
	}
	for deadline := time.Now().Add(killGrace); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return nil
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return nil
}
