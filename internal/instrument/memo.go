package instrument

import (
	"sync"
	"sync/atomic"

	"github.com/contractcheck/contractcheck/internal/recent"
)

// memoGeneration is how many verdicts a generation of the memo holds: repetitions of a position
// and the stages sharing one carrier come close together in the records, so recent verdicts are
// the ones asked for again. A verdict holds its readout and diagnostics as Go values (about a
// kilobyte); 1,024 serve the built-in check and a three-repetition matrix with as few evaluations
// as 4,096 did.
const memoGeneration = 1 << 10

// memo keeps recent verdicts by policy input (generations of memoGeneration verdicts), and counts
// the verdicts put: the evaluations made. Workers that reach the same input at once evaluate it
// once (do): the others wait for the verdict.
type memo struct {
	recent.Generations[verdictKey, judged]
	puts atomic.Int64 // verdicts put since the last Clear

	mu      sync.Mutex // guards flights
	flights map[verdictKey]*flight
}

// flight is an evaluation under way: done is closed once v and err are set.
type flight struct {
	done chan struct{}
	v    judged
	err  error
}

func (m *memo) put(k verdictKey, v judged) {
	m.Generations.Put(k, v, memoGeneration)
	m.puts.Add(1)
}

// do returns the verdict for k: the memo's, the one another goroutine is evaluating (do waits for
// it, error included: the input is the same), or eval's, which it keeps unless eval failed. On
// two cores the built-in check's workers had evaluated a third of its inputs twice, side by side.
func (m *memo) do(k verdictKey, eval func() (judged, error)) (judged, error) {
	if v, ok := m.Get(k); ok {
		return v, nil
	}
	m.mu.Lock()
	if v, ok := m.Get(k); ok { // put by a flight that landed since the first look
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

// Clear forgets every verdict.
func (m *memo) Clear() {
	m.Generations.Clear()
	m.puts.Store(0)
}

// Evaluations is how many policy evaluations the instrument's verdict memo holds: what a run
// evaluated, the inputs served from the memo apart (the benchmarks report it per binding).
func (in *Instrument) Evaluations() int { return in.verdicts.evaluations() }

// ForgetVerdicts empties the verdict memo, so that the next run evaluates as a fresh process
// would.
func (in *Instrument) ForgetVerdicts() { in.verdicts.Clear() }

// WaitWarm waits until the carrier schemas Load compiles in the background are compiled.
func (in *Instrument) WaitWarm() { <-in.warmed }
