package instrument

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/progress"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// RecordFile is one .jsonl file of observation records: its directory and its fs path there.
type RecordFile struct {
	Dir  Dir
	Path string
}

// Display is the file's name in messages and reports.
func (f RecordFile) Display() string {
	_, d := f.Dir.Path(f.Dir.Rel(f.Path))
	return d
}

// size is the file's size in bytes, or -1 when it is not known (standard input, a file that cannot
// be read: its error comes when it is read).
func (f RecordFile) size() int64 {
	if isStdin(f.Dir) {
		return -1
	}
	fi, err := fs.Stat(f.Dir.FS, f.Path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// RecordFiles lists the .jsonl files below the options' observation directories, sorted within
// each directory, so records are always read in one order.
func (o Options) RecordFiles() ([]RecordFile, error) {
	dirs, err := o.ObservationDirs()
	if err != nil {
		return nil, err
	}
	var out []RecordFile
	for _, d := range dirs {
		if isStdin(d) {
			out = append(out, RecordFile{Dir: d, Path: StdinName})
			continue
		}
		files, err := RecordFiles(d)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// RecordFiles lists the .jsonl files below a directory, sorted.
func RecordFiles(d Dir) ([]RecordFile, error) {
	var files []string
	err := fs.WalkDir(d.FS, d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("observation records under %s: %w", d.Display, safeio.PathCause(err))
	}
	sort.Strings(files)
	out := make([]RecordFile, len(files))
	for i, f := range files {
		out[i] = RecordFile{Dir: d, Path: f}
	}
	return out, nil
}

// Stream is the one evaluation loop of every verb that reads observation records (check,
// compare): the lines of files are read in order by one goroutine, and decoded, validated,
// restricted to the run's scope and evaluated (eval) by workers, which hand the records to collect
// one at a time in record order, whatever the workers' scheduling. The first error in record
// order (a bad record, a failing evaluation, a collect error) stops the stream and is returned,
// so the error, like everything collected, does not depend on the number of workers. Lines travel
// in batches of streamBatch (a channel hand-off and a wake-up per line were a tenth of a 10k-record
// run), and at most a few batches per worker are in flight: memory does not grow with the number
// of records. It returns how many records were collected.
func Stream[T any](ctx context.Context, in *Instrument, files []RecordFile, workers int,
	eval func(context.Context, *Record) (T, error), collect func(*Record, T) error) (int, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	meter := progress.From(ctx) // nil when no one watches: its methods do nothing
	if meter != nil {
		for _, f := range files {
			meter.AddTotalBytes(f.size())
		}
	}
	type line struct {
		file  string // its display name
		l     strictjson.Line
		large bool // it holds the stream's one place for a large record (recordCost)
	}
	type job struct {
		seq   int
		lines []line
	}
	type lineResult struct {
		rec   *Record // nil for a record outside the run's scope
		v     T
		err   error
		large bool // the line held the place for a large record: collecting it frees the place
	}
	// done is a batch's results in line order, up to its first error (or until the stream stopped).
	type done struct {
		seq int
		rs  []lineResult
	}
	window := 2 * workers                 // batches
	tokens := make(chan struct{}, window) // one per batch read and not yet collected
	// A record whose decoding and evaluation may cost a share of the memory budget (recordCost)
	// holds the one place for a large record from before it is read until it is collected, and
	// is admitted only if the budget has room for it then (guard.Admit): the window bounds what
	// the other lines in flight may cost.
	large := make(chan struct{}, 1)
	smallCost := guard.LimitsOf(ctx).Memory / int64(8*window*streamBatch)
	jobs := make(chan job, window)
	results := make(chan done, window+1)
	stop := make(chan struct{})
	var stopped atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dec := strictjson.NewLineDecoder(strictjson.DefaultLimits)
			for j := range jobs {
				d := done{seq: j.seq, rs: make([]lineResult, 0, len(j.lines))}
				for _, ln := range j.lines {
					if stopped.Load() {
						break
					}
					r := lineResult{large: ln.large}
					r.rec, r.v, r.err = streamEval(ctx, in, dec, ln.file, ln.l, eval)
					d.rs = append(d.rs, r)
					if r.err != nil {
						break // the batch's later lines come after the first error
					}
				}
				results <- d
			}
		}()
	}
	wg.Add(1)
	go func() { // the reader
		defer wg.Done()
		defer close(jobs)
		seq := 0
		var batch []line
		send := func() bool {
			if len(batch) == 0 {
				return true
			}
			select {
			case tokens <- struct{}{}:
			case <-stop:
				return false
			}
			seq++
			jobs <- job{seq, batch}
			batch = make([]line, 0, streamBatch)
			return true
		}
		// fail ends the stream at err, after the lines read before it.
		fail := func(err error) {
			if !send() {
				return
			}
			select {
			case tokens <- struct{}{}:
				results <- done{seq: seq + 1, rs: []lineResult{{err: err}}}
			case <-stop:
			}
		}
		for _, f := range files {
			var refused error
			err := readLines(ctx, f, func(display string, l strictjson.Line) bool {
				meter.AddBytes(int64(l.Size()) + 1) // and its newline
				cost, values := recordCost(l, smallCost)
				if cost <= smallCost {
					batch = append(batch, line{file: display, l: l})
					return len(batch) < streamBatch || send()
				}
				// The large record before it is collected first (it is in a batch sent already):
				// then the budget is measured without it.
				select {
				case large <- struct{}{}:
				case <-stop:
					return false
				}
				what := fmt.Sprintf("%s:%d: a record of %s and %d JSON values", display, l.Number, guard.Approx(int64(l.Size())), values)
				if err := guard.Admit(what, cost); err != nil {
					refused = err
					return false
				}
				batch = append(batch, line{file: display, l: l, large: true})
				return send() // at once: its place is freed when it is collected, never while it waits here
			})
			if err == nil && refused != nil {
				err = refused
			}
			if err == nil && stopped.Load() {
				return
			}
			if err != nil {
				fail(inputErr(err)) // a refused record is the instrument failing (IsInstrumentFailure)
				return
			}
		}
		send()
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]done{}
	next, collected := 1, 0
	var firstErr error
	for d := range results {
		pending[d.seq] = d
		for {
			d, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-tokens
			for _, r := range d.rs {
				if r.large {
					<-large
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
					stopped.Store(true)
					close(stop)
					continue
				}
				collected++
			}
		}
		meter.Done(len(d.rs))
	}
	return collected, firstErr
}

// streamBatch is how many lines the reader hands a worker at a time.
const streamBatch = 8

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

// streamEval reads one line of a record file (readRecord) and evaluates the record when it is
// within the run's scope; a record outside it is a nil record and no error.
func streamEval[T any](ctx context.Context, in *Instrument, dec *strictjson.LineDecoder, file string, l strictjson.Line,
	eval func(context.Context, *Record) (T, error)) (*Record, T, error) {
	var zero T
	rec, err := in.readRecord(dec, file, l)
	if err != nil {
		return nil, zero, inputErr(err)
	}
	if rec == nil {
		return nil, zero, nil // outside the scope: its carrier is not read
	}
	if err := guard.Err(); err != nil {
		// The run is over its memory budget: what is left of the record is not evaluated.
		return nil, zero, instrumentErr(fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err))
	}
	v, err := eval(ctx, rec)
	return rec, v, err
}

// Visibility prepares the visibility policy the model names for the instrument's profile (nil
// when the model selects no fixture or stage for it).
func (in *Instrument) Visibility(ctx context.Context) (*visibility.Reader, error) {
	return visibility.New(ctx, in.Model, in.opts.Profile, blockKinds(in.srcViews), in.engine, in)
}

// ReadVisibility evaluates the visibility policy's channels on one record: nil when the record is
// of no fixture or stage the readout reads.
func (in *Instrument) ReadVisibility(ctx context.Context, vis *visibility.Reader, rec *Record) (*visibility.Reading, error) {
	if !vis.Reads(rec.Fixture, rec.Stage) {
		return nil, nil
	}
	rd, err := vis.Read(ctx, visibility.Record{
		File: rec.File, Line: rec.Line, Fixture: rec.Fixture, Lane: rec.Lane, LaneVersion: rec.LaneVersion,
		Configuration: rec.Configuration, Stage: rec.Stage, Repetition: rec.Repetition, State: rec.State,
		// The views the record's tasks read, cached by the carrier's bytes: not projected twice.
		Observe: func(compartment string) (project.View, [sha256.Size]byte, error) {
			o, err := in.observe(rec.Fixture, rec.Lane, rec.Stage, compartment, "", rec.Carrier, rec.carrierBytes)
			if err != nil {
				return nil, [sha256.Size]byte{}, err
			}
			return o.tree, o.hash, nil
		},
	})
	if err != nil {
		return nil, instrumentErr(err)
	}
	return rd, nil
}

// viewOnce is one view of a record's carrier: a compartment, with the members a task keeps.
type viewOnce struct{ compartment, reads string }

// Evaluate projects one record's carrier through each compartment its tasks read and evaluates
// every task of the profile on it. A record that was not captured gives its state as the outcome
// of every task: never an unmet.
func (in *Instrument) Evaluate(ctx context.Context, rec *Record) ([]result.Reading, error) {
	f := in.Model.Fixtures[rec.Fixture]
	tasks := in.tasksInScope(in.Model.ProfileTasks(in.Profile, f))
	out := make([]result.Reading, 0, len(tasks))
	views := map[viewOnce]*observed{}
	pos := rec.Position()
	for _, task := range tasks {
		if !in.Model.Tasks[task].AtStage(rec.Stage) {
			continue // the task decides nothing at this stage
		}
		r := result.Reading{
			Binding:    result.Binding{Position: pos, Task: task},
			Repetition: rec.Repetition, Origin: rec.Origin, Outcome: rec.State, Error: rec.Error,
			File: rec.File, Line: rec.Line,
		}
		if rec.State != "captured" {
			out = append(out, r)
			continue
		}
		comp, reads := in.Model.Tasks[task].Compartment, in.reads[task]
		view, ok := views[viewOnce{comp, reads}]
		if !ok {
			if err := guard.Err(); err != nil {
				// Over the memory budget: the projection and the policy input cannot be
				// cancelled once begun.
				return nil, instrumentErr(fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err))
			}
			var err error
			if view, err = in.observe(rec.Fixture, rec.Lane, rec.Stage, comp, reads, rec.Carrier, rec.carrierBytes); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", rec.File, rec.Line, err)
			}
			views[viewOnce{comp, reads}] = view
		}
		v, err := in.verdict(ctx, inputKey{rec.Fixture, task, rec.Stage}, pos, view)
		if err != nil {
			return nil, instrumentErr(fmt.Errorf("%s:%d: task %s (%s %s %s %s %s): %w", rec.File, rec.Line, task, rec.Fixture, rec.Lane, rec.LaneVersion, rec.Configuration, rec.Stage, err))
		}
		r.Readout, r.Diagnostics, r.Outcome, r.Fingerprint = v.Readout, v.Diagnostics, v.outcome, v.fingerprint
		out = append(out, r)
	}
	return out, nil
}
