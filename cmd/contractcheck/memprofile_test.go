package main

import (
	"os"
	"runtime"
	"testing"
)

// TestHeapProfilingOffUnlessAsked holds that the process samples no heap profile unless
// CONTRACTCHECK_MEMPROFILE asks for one: the runtime's default sampling kept 2–3 MiB of profile
// buckets through a 1M check (docs/design.md, "Heap profiling off"). The profile itself, when
// asked for, is process.txtar's.
func TestHeapProfilingOffUnlessAsked(t *testing.T) {
	if os.Getenv("CONTRACTCHECK_MEMPROFILE") != "" {
		t.Skip("CONTRACTCHECK_MEMPROFILE is set: this process profiles its heap")
	}
	if runtime.MemProfileRate != 0 {
		t.Fatalf("runtime.MemProfileRate = %d, want 0: heap profiling on when no profile was asked for", runtime.MemProfileRate)
	}
}
