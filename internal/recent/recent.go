// Package recent is a bounded cache of recent entries, kept in two generations: the instrument's
// verdict memo and carrier caches and the visibility reader's memo are made of it. Records that
// repeat one another (repetitions of a position, the stages sharing one carrier) come close
// together in a run, so recent entries are the ones asked for again, and a run of a million
// distinct records keeps no more than two generations of them.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package recent

import "sync"

// Generations keeps recent entries in two generations: a lookup looks in both, a new entry goes
// in the current one, and a full current generation becomes the previous one (the old previous
// one is dropped). It holds at most two generations, however many entries are put. Safe for
// concurrent use; the zero value is empty.
type Generations[K comparable, V any] struct {
	mu                sync.Mutex
	current, previous map[K]V
}

// Get is the entry for k, if either generation holds it.
func (g *Generations[K, V]) Get(k K) (V, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if v, ok := g.current[k]; ok {
		return v, true
	}
	v, ok := g.previous[k]
	return v, ok
}

// Put stores v for k in the current generation, which becomes the previous one once it holds
// size entries.
func (g *Generations[K, V]) Put(k K, v V, size int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.current == nil {
		g.current = make(map[K]V, min(size, 1024))
	}
	if len(g.current) >= size {
		g.previous, g.current = g.current, make(map[K]V, min(size, 1024))
	}
	g.current[k] = v
}

// Clear forgets every entry.
func (g *Generations[K, V]) Clear() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.current, g.previous = nil, nil
}

// Len is how many entries the two generations hold.
func (g *Generations[K, V]) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.current) + len(g.previous)
}
