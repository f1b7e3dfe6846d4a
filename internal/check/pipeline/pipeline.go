// Package pipeline is the loop of the check runner (internal/check) over observation records,
// the one that compare shares: the lines of the record files are read in order, their records
// evaluated in parallel, and the results folded in record order, in three named stages.
//
//   - read (one goroutine, flow.read): the lines of the files, in order, in numbered batches of
//     batchLines; a record line large enough to cost a share of the memory budget is admitted
//     alone (flow.admit).
//   - evaluate (workers, flow.evaluate): each line decoded (inputs.DecodeRecord, or DecodeEnvelope
//     when the run's scope may leave records out) and read into a record
//     (instrument.ReadRecord), restricted to the run's scope, and evaluated by the caller's eval.
//   - fold (the caller's goroutine, flow.fold): the batches taken back in their order, each
//     record handed to the caller's collect one at a time; the first error in record order stops
//     the flow.
//
// The progress of the run (internal/progress: bytes read, records done) is counted on the way.
// The visibility readout (visibility.go) is prepared and read here too, so that check and
// compare read it alike. It sits below the runner so that compare, a tool, shares the loop
// without importing the runner.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package pipeline

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/progress"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Eval evaluates one record within the run's scope on a worker: check's readings and visibility
// reading, compare's readings of two profiles and of its decoders.
type Eval[T any] func(context.Context, *instrument.Record) (T, error)

// Collect takes one record and what Eval made of it, in record order, on the caller's goroutine.
type Collect[T any] func(*instrument.Record, T) error

// Run is the one evaluation loop of every verb that reads observation records (check,
// compare): the lines of files are read in order by one goroutine, and decoded, validated,
// restricted to the run's scope and evaluated (eval) by workers, which hand the records to collect
// one at a time in record order, whatever the workers' scheduling. The first error in record
// order (a bad record, a failing evaluation, a collect error) stops the flow and is returned,
// so the error, like everything collected, does not depend on the number of workers (0: one per
// CPU). Lines travel in batches of batchLines (a channel hand-off and a wake-up per line were a
// tenth of a 10k-record run), and at most a few batches per worker are in flight: memory does not
// grow with the number of records. It returns how many records were collected.
func Run[T any](ctx context.Context, in *instrument.Instrument, files []inputs.RecordFile, workers int,
	eval Eval[T], collect Collect[T]) (int, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	meter := progress.From(ctx) // nil when no one watches: its methods do nothing
	if meter != nil {
		for _, f := range files {
			meter.AddTotalBytes(f.Size())
		}
	}
	fl := newFlow[T](ctx, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fl.evaluate(ctx, in, eval)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		fl.read(ctx, files, meter)
	}()
	go func() {
		wg.Wait()
		close(fl.results)
	}()
	return fl.fold(collect, meter)
}

// batchLines is how many lines the reader hands a worker at a time.
const batchLines = 8

// line is one line of a record file on its way from the reader to a worker.
type line struct {
	file  string // its display name
	l     strictjson.Line
	large bool // it holds the flow's one place for a large record (recordCost)
}

// batch is lines read in a row, numbered in reading order from 1.
type batch struct {
	seq   int
	lines []line
}

// lineResult is what a worker made of one line.
type lineResult[T any] struct {
	rec   *instrument.Record // nil for a record outside the run's scope
	v     T
	err   error
	large bool // the line held the place for a large record: folding it frees the place
}

// evaluated is a batch's results in line order, up to its first error (or until the flow
// stopped).
type evaluated[T any] struct {
	seq int
	rs  []lineResult[T]
}

// flow is what the stages of one Run share: the batches read and their results, and what bounds
// the memory in flight.
type flow[T any] struct {
	// tokens holds one token per batch read and not yet folded: at most window batches are in
	// flight.
	tokens chan struct{}
	// large is the one place for a large record: a record whose decoding and evaluation may cost
	// a share of the memory budget (recordCost) holds it from before it is read until it is
	// folded, and is admitted only if the budget has room for it then (guard.Admit): the window
	// bounds what the other lines in flight may cost.
	large     chan struct{}
	smallCost int64 // what a line in flight may cost without holding the place
	jobs      chan batch
	results   chan evaluated[T]
	// stop is closed, and stopped set, at the first error the fold meets.
	stop    chan struct{}
	stopped atomic.Bool
}

// newFlow makes the channels of a run on workers workers, its window two batches a worker.
func newFlow[T any](ctx context.Context, workers int) *flow[T] {
	window := 2 * workers // batches
	return &flow[T]{
		tokens:    make(chan struct{}, window),
		large:     make(chan struct{}, 1),
		smallCost: guard.LimitsOf(ctx).Memory / int64(8*window*batchLines),
		jobs:      make(chan batch, window),
		results:   make(chan evaluated[T], window+1),
		stop:      make(chan struct{}),
	}
}

// read is the read stage: it reads the lines of files in order into batches for the workers, and
// ends the flow at the first error reading them (a file that cannot be read, a line too long, a
// large record the budget has no room for), after the lines read before it.
func (fl *flow[T]) read(ctx context.Context, files []inputs.RecordFile, meter *progress.Counter) {
	defer close(fl.jobs)
	r := batcher[T]{flow: fl, batch: make([]line, 0, batchLines)}
	for _, f := range files {
		var refused error
		err := f.Lines(ctx, func(display string, l strictjson.Line) bool {
			meter.AddBytes(int64(l.Size()) + 1) // and its newline
			var ok bool
			ok, refused = r.add(display, l)
			return ok
		})
		if err == nil && refused != nil {
			err = refused
		}
		if err == nil && fl.stopped.Load() {
			return
		}
		if err != nil {
			r.fail(result.AsInput(err)) // a refused record is the instrument failing (IsInstrumentFailure)
			return
		}
	}
	r.send()
}

// batcher is the read stage's batch being filled and the number of the last batch sent.
type batcher[T any] struct {
	*flow[T]
	seq   int
	batch []line
}

// add puts a line into the batch, sending the batch when it is full, and a large line alone once
// the budget admits it (its place is freed when it is folded, never while it waits here). It
// returns false when reading must stop: the flow stopped, or the budget refused the line (the
// error).
func (r *batcher[T]) add(display string, l strictjson.Line) (bool, error) {
	cost, values := recordCost(l, r.smallCost)
	if cost <= r.smallCost {
		r.batch = append(r.batch, line{file: display, l: l})
		return len(r.batch) < batchLines || r.send(), nil
	}
	// The large record before it is folded first (it is in a batch sent already): then the budget
	// is measured without it.
	select {
	case r.large <- struct{}{}:
	case <-r.stop:
		return false, nil
	}
	what := fmt.Sprintf("%s:%d: a record of %s and %d JSON values", display, l.Number, guard.Approx(int64(l.Size())), values)
	if err := guard.Admit(what, cost); err != nil {
		return false, err
	}
	r.batch = append(r.batch, line{file: display, l: l, large: true})
	return r.send(), nil
}

// send hands the batch, if any, to the workers once the window has room; false when the flow
// stopped first.
func (r *batcher[T]) send() bool {
	if len(r.batch) == 0 {
		return true
	}
	select {
	case r.tokens <- struct{}{}:
	case <-r.stop:
		return false
	}
	r.seq++
	r.jobs <- batch{r.seq, r.batch}
	r.batch = make([]line, 0, batchLines)
	return true
}

// fail ends the flow at err, after the lines read before it: the batch read so far, then err as
// the result of the batch after it.
func (r *batcher[T]) fail(err error) {
	if !r.send() {
		return
	}
	select {
	case r.tokens <- struct{}{}:
		r.results <- evaluated[T]{seq: r.seq + 1, rs: []lineResult[T]{{err: err}}}
	case <-r.stop:
	}
}

// evaluate is the evaluate stage, one worker: each line of each batch read into a record and
// evaluated (evalLine), the batch's results handed to the fold; a batch stops at its first error,
// and every line stops once the flow has.
func (fl *flow[T]) evaluate(ctx context.Context, in *instrument.Instrument, eval Eval[T]) {
	dec := strictjson.NewLineDecoder(strictjson.DefaultLimits)
	decode := inputs.DecodeRecord
	if in.Narrowed() {
		decode = inputs.DecodeEnvelope // a record outside the scope is checked, its carrier not built
	}
	for j := range fl.jobs {
		d := evaluated[T]{seq: j.seq, rs: make([]lineResult[T], 0, len(j.lines))}
		for _, ln := range j.lines {
			if fl.stopped.Load() {
				break
			}
			r := lineResult[T]{large: ln.large}
			r.rec, r.v, r.err = evalLine(ctx, in, dec, decode, ln.file, ln.l, eval)
			d.rs = append(d.rs, r)
			if r.err != nil {
				break // the batch's later lines come after the first error
			}
		}
		fl.results <- d
	}
}

// decoder decodes one line of a record file: inputs.DecodeRecord or inputs.DecodeEnvelope.
type decoder func(*strictjson.LineDecoder, string, strictjson.Line) (inputs.RecordLine, error)

// evalLine decodes one line of a record file (decode), reads its record
// (instrument.ReadRecord) and evaluates the record when it is within the run's scope; a record
// outside it is a nil record and no error.
func evalLine[T any](ctx context.Context, in *instrument.Instrument, dec *strictjson.LineDecoder, decode decoder, file string,
	l strictjson.Line, eval Eval[T]) (*instrument.Record, T, error) {
	var zero T
	d, err := decode(dec, file, l)
	if err != nil {
		return nil, zero, result.AsInput(err)
	}
	rec, err := in.ReadRecord(ctx, d)
	if err != nil {
		return nil, zero, result.AsInput(err)
	}
	if rec == nil {
		return nil, zero, nil // outside the scope: its carrier is not read
	}
	if err := guard.Err(); err != nil {
		// The run is over its memory budget: what is left of the record is not evaluated.
		return nil, zero, result.AsInstrument(fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err))
	}
	v, err := eval(ctx, rec)
	return rec, v, err
}

// fold is the fold stage: it takes the workers' batches back in their order, frees their places
// in the window, and hands each record within the scope and its value to collect; the first error
// in record order (a line's, or collect's) stops the flow and is returned. It returns how many
// records were collected.
func (fl *flow[T]) fold(collect Collect[T], meter *progress.Counter) (int, error) {
	pending := map[int]evaluated[T]{}
	next, collected := 1, 0
	var firstErr error
	for d := range fl.results {
		pending[d.seq] = d
		for {
			d, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-fl.tokens
			for _, r := range d.rs {
				if r.large {
					<-fl.large
				}
				if firstErr != nil || (r.err == nil && r.rec == nil) {
					continue // stopped, or out of scope
				}
				err := r.err
				if err == nil {
					err = collect(r.rec, r.v)
				}
				if err != nil {
					firstErr = err
					fl.stopped.Store(true)
					close(fl.stop)
					continue
				}
				collected++
			}
		}
		meter.Done(len(d.rs))
	}
	return collected, firstErr
}

// What a record costs in memory on its way through the pipeline, by the size of its line and the
// JSON values it holds: every value is decoded into a Go value, read through a compartment into a
// view and converted into a policy value, and the built-in tasks' diff of two content lists
// makes a diagnostic of each block one side lacks. Measured under the built-in tasks (the live
// heap at its peak, GODEBUG=gctrace=1): the costliest shape, a carrier of 500,000 tiny content
// blocks (13.5 MB, 1.5 million values), 1.74 GB, 1.2 KB a value (estimated 1.5 GiB); a text
// block of 10 MB, 46 MB, 4.6 bytes a byte (estimated 80 MB). The estimate only keeps a record the
// budget has no room for from being begun: the watchdog still holds the run to the budget
// (TestLargeRecordRefusedWithinTheBudget).
const (
	costPerByte  = 8
	costPerValue = 1024
)

// recordCost estimates the memory a record line will cost (costPerByte a byte and costPerValue a
// JSON value) and returns how many values it holds. A line so short that even a value every two
// bytes cannot make it cost more than small is not counted: its cost is given as small, and its
// values as 0.
func recordCost(l strictjson.Line, small int64) (cost int64, values int) {
	size := int64(l.Size())
	if size*(costPerByte+costPerValue/2)+costPerValue <= small {
		return small, 0
	}
	values = l.Values()
	return size*costPerByte + int64(values)*costPerValue, values
}
