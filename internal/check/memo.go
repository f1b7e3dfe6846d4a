package check

import (
	"sync"
)

// memoGeneration is how many verdicts a generation of the memo holds: repetitions of a position
// and the stages sharing one carrier come close together in the records, so recent verdicts are
// the ones asked for again.
const memoGeneration = 1 << 12

// memo keeps recent verdicts by policy input, in two generations: a lookup looks in both, a new
// verdict goes in the current one, and a full current generation becomes the previous one (the
// old previous one is dropped). It holds at most two generations, however many bindings a check
// evaluates. Safe for concurrent use.
type memo struct {
	mu       sync.Mutex
	current  map[verdictKey]judged
	previous map[verdictKey]judged
	puts     int // verdicts put since the last Clear: the evaluations made
}

func (m *memo) get(k verdictKey) (judged, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.current[k]; ok {
		return v, true
	}
	v, ok := m.previous[k]
	return v, ok
}

func (m *memo) put(k verdictKey, v judged) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current == nil {
		m.current = make(map[verdictKey]judged, 1024)
	}
	if len(m.current) >= memoGeneration {
		m.previous, m.current = m.current, make(map[verdictKey]judged, 1024)
	}
	m.current[k] = v
	m.puts++
}

// evaluations is how many verdicts were put since the last Clear.
func (m *memo) evaluations() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.puts
}

// Clear forgets every verdict.
func (m *memo) Clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.current, m.previous, m.puts = nil, nil, 0
}
