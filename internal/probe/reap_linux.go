package probe

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// subreaper makes probe a child subreaper once (prctl PR_SET_CHILD_SUBREAPER): a process the
// command orphans re-parents to probe, where endLeftovers finds it, instead of to init.
var subreaper = sync.OnceValue(func() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
})

// procInfo is what /proc/<pid>/stat says of a process.
type procInfo struct {
	pid, ppid, pgrp int
	zombie          bool
}

// readProcs lists the processes /proc shows.
func readProcs() map[int]procInfo {
	out := map[int]procInfo{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …: comm may hold anything, so read after its last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		pgrp, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			continue
		}
		out[pid] = procInfo{pid: pid, ppid: ppid, pgrp: pgrp, zombie: f[0] == "Z" || f[0] == "X"}
	}
	return out
}

// runEnv is the variable whose value names a run in every command's environment (and holds the
// run's marker).
const runEnv = "CONTRACTCHECK_OBSERVE_URL="

// hasMarker reports whether the process's environment or arguments hold marker (the run's URL
// prefix, which every variable probe gives the command carries, and the stdio server's command
// line, which an agent may start with an environment of its own).
func hasMarker(pid int, marker string) bool {
	for _, f := range []string{"environ", "cmdline"} {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), f))
		if err == nil && bytes.Contains(data, []byte(marker)) {
			return true
		}
	}
	return false
}

// anotherRun reports whether the process belongs to a run other than marker's: its environment
// or its arguments name a run's URL (/r/<token>), none of them marker's. Such a process is of
// another run of the same probe (--jobs), or of another probe in the same process (a library
// caller's, a test's), in a group whose id is a reused one: a run's pid reused as another run's
// group leader. The arguments count for a process with an environment of its own (the stdio
// server an MCP client starts, its URL on its command line).
func anotherRun(pid int, marker string) bool {
	other := false
	for _, f := range []string{"environ", "cmdline"} {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), f))
		switch {
		case err != nil:
		case bytes.Contains(data, []byte(marker)):
			return false
		case f == "environ" && bytes.Contains(data, []byte(runEnv)), runURL.Match(data):
			other = true
		}
	}
	return other
}

// cmdlineOf is the process's arguments, nil when it is gone or has none.
func cmdlineOf(pid int) []string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// leftovers are the processes the run whose command led process group pgid, and whose
// environment holds marker, left behind: the group's members (but one that names another run: the
// group id was reused), the processes re-parented to probe that carry the run's environment (a
// detached daemon leaves the group, not the environment), and every descendant of those. A
// process that both detaches and drops the environment is not told from a process of someone
// else's, and is left alone.
func leftovers(procs map[int]procInfo, pgid int, marker string) []int {
	self := os.Getpid()
	in := map[int]bool{}
	for _, p := range procs {
		if p.pid != self && (p.pgrp == pgid && !anotherRun(p.pid, marker) || p.ppid == self && hasMarker(p.pid, marker)) {
			in[p.pid] = true
		}
	}
	for grew := true; grew; {
		grew = false
		for _, p := range procs {
			if !in[p.pid] && in[p.ppid] && p.pid != self {
				in[p.pid], grew = true, true
			}
		}
	}
	out := make([]int, 0, len(in))
	for pid := range in {
		out = append(out, pid)
	}
	slices.Sort(out)
	return out
}

// endLeftovers ends what the run left behind (see process.go) and returns the processes it
// found alive, in the order found. Rounds repeat while killing one orphans another.
func endLeftovers(pgid int, marker string) []leftover {
	var found []leftover
	seen := map[int]bool{}
	for round := 0; round < 5; round++ {
		procs := readProcs()
		pids := leftovers(procs, pgid, marker)
		if len(pids) == 0 {
			break
		}
		self := os.Getpid()
		var live []int
		for _, pid := range pids {
			if procs[pid].zombie {
				continue
			}
			live = append(live, pid)
			if !seen[pid] {
				seen[pid] = true
				found = append(found, leftover{pid: pid, cmdline: cmdlineOf(pid)})
			}
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		// A process is ended when reaped (probe's own children) or gone from /proc (another's).
		ended := func(pid int) bool {
			if procs[pid].ppid == self {
				return reaped(pid)
			}
			return gone(pid)
		}
		deadline := time.Now().Add(killGrace)
		for len(live) > 0 {
			live = slices.DeleteFunc(live, ended)
			if len(live) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for deadline := time.Now().Add(5 * time.Second); len(live) > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			live = slices.DeleteFunc(live, ended)
		}
		// Zombies of probe's own children, among those already exited when found, are reaped too.
		for _, pid := range pids {
			if procs[pid].zombie && procs[pid].ppid == self {
				reaped(pid)
			}
		}
	}
	return found
}

// reaped waits for pid, a child of probe, if it has exited (wait4 on that pid: never a child
// some other part of probe waits for), and reports whether it is reaped or was no child to reap.
// A multi-threaded process shows as a zombie before its last thread ends: only wait4 tells.
func reaped(pid int) bool {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return true // ECHILD: reaped already, or not probe's
		}
		return got == pid
	}
}

// gone reports whether the process has exited (no longer exists, or is a zombie its parent has
// not reaped yet: it holds nothing but its pid).
func gone(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	return len(f) == 0 || f[0] == "Z" || f[0] == "X"
}
