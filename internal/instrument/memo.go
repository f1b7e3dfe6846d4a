package instrument

import (
	"fmt"
	"sync"
	"sync/atomic"

	lru "github.com/hashicorp/golang-lru/v2"
)

// memoSize is how many verdicts the memo keeps, the most recently used: repetitions of a position
// and the stages sharing one carrier come close together in the records, so recent verdicts are
// the ones asked for again. A verdict holds its readout and diagnostics as Go values (about a
// kilobyte); 2,048 is the most the memo held when it kept two generations of 1,024, so an LRU
// of that size keeps the memory as bounded as before.
const memoSize = 2 << 10

// memo keeps the memoSize most recently used verdicts by policy input, and counts the verdicts
// put: the evaluations made. Workers that reach the same input at once evaluate it once (do): the
// others wait for the verdict. The zero value is empty.
type memo struct {
	verdicts atomic.Pointer[lru.Cache[verdictKey, judged]] // made on first use (cache)
	puts     atomic.Int64                                  // verdicts put since the last Clear

	mu      sync.Mutex // guards flights
	flights map[verdictKey]*flight
}

// flight is an evaluation under way: done is closed once v and err are set.
type flight struct {
	done chan struct{}
	v    judged
	err  error
}

// cache is the memo's LRU, made on first use and again after a Clear.
func (m *memo) cache() *lru.Cache[verdictKey, judged] {
	if c := m.verdicts.Load(); c != nil {
		return c
	}
	m.verdicts.CompareAndSwap(nil, newLRU[verdictKey, judged](memoSize))
	return m.verdicts.Load()
}

// get is the verdict kept for k, if any (and makes it the most recently used).
func (m *memo) get(k verdictKey) (judged, bool) { return m.cache().Get(k) }

func (m *memo) put(k verdictKey, v judged) {
	m.cache().Add(k, v)
	m.puts.Add(1)
}

// do returns the verdict for k: the memo's, the one another goroutine is evaluating (do waits for
// it, error included: the input is the same), or eval's, which it keeps unless eval failed. On
// two cores the built-in check's workers had evaluated a third of its inputs twice, side by side.
func (m *memo) do(k verdictKey, eval func() (judged, error)) (judged, error) {
	if v, ok := m.get(k); ok {
		return v, nil
	}
	m.mu.Lock()
	if v, ok := m.get(k); ok { // put by a flight that landed since the first look
		m.mu.Unlock()
		return v, nil
	}
	if f, ok := m.flights[k]; ok {
		m.mu.Unlock()
		<-f.done
		return f.v, f.err
	}
	f := &flight{done: make(chan struct{})}
	if m.flights == nil {
		m.flights = map[verdictKey]*flight{}
	}
	m.flights[k] = f
	m.mu.Unlock()
	f.v, f.err = eval()
	if f.err == nil {
		m.put(k, f.v)
	}
	m.mu.Lock()
	delete(m.flights, k)
	m.mu.Unlock()
	close(f.done)
	return f.v, f.err
}

// evaluations is how many verdicts were put since the last Clear.
func (m *memo) evaluations() int { return int(m.puts.Load()) }

// Clear forgets every verdict. It drops the LRU rather than purge it: a purged cache keeps the
// room its map grew for 2,048 keys (BenchmarkCheckMatrix/unique's report-B/binding counted it,
// 137 bytes a binding against 125), a dropped one is garbage, as the memo's generations were.
func (m *memo) Clear() {
	m.drop()
	m.puts.Store(0)
}

// drop forgets every verdict and keeps the count of evaluations.
func (m *memo) drop() { m.verdicts.Store(nil) }

// newLRU is an LRU cache (safe for concurrent use) of size entries; size is one of this package's
// constants, all positive, and lru.New fails on nothing else.
func newLRU[K comparable, V any](size int) *lru.Cache[K, V] {
	c, err := lru.New[K, V](size)
	if err != nil {
		panic(fmt.Sprintf("instrument: an LRU of %d entries: %v", size, err))
	}
	return c
}

// Evaluations is how many policy evaluations the instrument's verdict memo holds: what a run
// evaluated, the inputs served from the memo apart (the benchmarks report it per binding).
func (in *Instrument) Evaluations() int { return in.verdicts.evaluations() }

// ForgetVerdicts empties the verdict memo, so that the next run evaluates as a fresh process
// would.
func (in *Instrument) ForgetVerdicts() { in.verdicts.Clear() }

// ReleaseCaches forgets what the instrument remembered of the records it evaluated (their
// verdicts, carriers found valid, views) and keeps the count of evaluations; an evaluation after
// it remembers afresh. A run calls it once its records are all read: what the caches hold is
// garbage to the report, and live until then, spread over the heap's pages among what the report
// keeps (docs/design.md, "The stream's caches let go").
func (in *Instrument) ReleaseCaches() {
	in.verdicts.drop()
	in.validCarriers.drop()
	in.views.drop()
}

// WaitWarm waits until the carrier schemas Load compiles in the background are compiled.
func (in *Instrument) WaitWarm() { <-in.warmed }
