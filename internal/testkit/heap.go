package testkit

import "runtime"

// LiveHeap is the heap's live bytes after a collection (runtime.GC, then MemStats.HeapAlloc): the
// figure a test takes before and during a run to bound what the run holds. It is an int64 so that
// a difference of two figures may be negative.
func LiveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
