package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// pendingRun is a run to make: the fixtures of one repetition (one, or in batch mode all those
// not yet called).
type pendingRun struct {
	rep      int
	fixtures []fixture
}

// runAll makes the runs, repetition by repetition, o.Jobs at once (see slot), and returns their
// records and the provider APIs the command spoke, counting in res. In batch mode, a run that
// ended with some fixtures called and some not (a framework's step cap) is resumed in a fresh
// process with those left. With MaxFailures, after that many consecutive runs failed the same
// way before the MCP server served any fixture, or ran past the time limit alike, the rest are
// not run: each of their fixture repetitions is execution_failed, saying why.
//
// Runs are taken in run order (repetition, then fixture), whatever order they end in: their
// records, their traffic files and the --max-failures count are those of one run at a time. A
// run starts only when fewer than Jobs are running and fewer than window (Jobs, twice that when
// Jobs > 1) ended runs wait for an earlier one, so what is held is bounded by the runs and, with
// Jobs 1, a run starts only once the one before it is taken, exactly as before --jobs. When
// --max-failures stops the probe, runs past the stopping one that had started are cancelled and
// dropped, records, traffic and all, and none starts after. runAll returns only when every run
// it started has ended, its process group and what it left behind ended (on SIGINT or SIGTERM
// too: ctx's end cancels every run).
func (o *Options) runAll(ctx context.Context, fixtures []fixture, lane laneDef, res *Result) ([]record, map[fakeprovider.API]bool, error) {
	var slots []pendingRun
	for rep := 1; rep <= o.Repetitions; rep++ {
		if o.Batch {
			slots = append(slots, pendingRun{rep, fixtures})
			continue
		}
		for _, f := range fixtures {
			slots = append(slots, pendingRun{rep, []fixture{f}})
		}
	}
	// Once for the probe, before its first command starts (reap_linux.go).
	if err := subreaper(); err != nil && !o.Quiet {
		fmt.Fprintf(o.Log, "probe: cannot become a child subreaper (a process the command detaches may outlive the run): %s\n", escape.Terminal(err.Error()))
	}
	jobs := max(o.Jobs, 1)
	window := jobs
	if jobs > 1 {
		window = 2 * jobs
	}
	log := &lockedWriter{w: o.Log}
	prog := &progress{planned: len(slots), started: time.Now()}

	type ended struct {
		i    int
		runs []runOutcome
	}
	endedc := make(chan ended)
	cancels := make([]context.CancelFunc, len(slots))
	taken := make([][]runOutcome, len(slots))
	have := make([]bool, len(slots))
	var (
		records []record
		apis    = map[fakeprovider.API]bool{}
		failure error // an instrument failure: the probe fails once its runs have ended
		stopped bool
		next    int // the next slot to start
		commit  int // the next slot to take
		running int
		streak  int
		last    string
	)
	for {
		for !stopped && failure == nil && ctx.Err() == nil && running < jobs && next < len(slots) && next < commit+window {
			i := next
			sctx, cancel := context.WithCancel(ctx)
			cancels[i] = cancel
			running++
			next++
			go func() {
				endedc <- ended{i, o.slot(sctx, slots[i], lane, log, prog, jobs > 1)}
			}()
		}
		if running == 0 {
			break
		}
		e := <-endedc
		running--
		cancels[e.i]()
		taken[e.i], have[e.i] = e.runs, true
		for !stopped && failure == nil && commit < len(slots) && have[commit] {
			runs := taken[commit]
			taken[commit] = nil
			for _, out := range runs {
				if out.err != nil {
					failure = out.err
					for _, c := range cancels {
						if c != nil {
							c() // the probe fails: the runs still running are ended
						}
					}
					break
				}
				res.Runs++
				for _, r := range out.records {
					if r.Stage == "H4" {
						if r.State == "captured" {
							res.Captured++
						} else {
							res.Failed++
						}
					}
				}
				for _, a := range out.apis {
					apis[a] = true
				}
				records = append(records, out.records...)
				o.traffic.write(out.traffic)
				if out.log != nil {
					out.log.flushTo(log, prog)
				}
				if out.resumed != nil && jobs > 1 {
					prog.resume()
				}

				// A failure before any fixture was served cannot be the fixture's doing (an SDK
				// that rejects an invalid result fails alike on a row of such fixtures, and
				// rightly so), so runs that failed alike then say the command is broken; so do
				// runs that hung alike, served or not, each costing the whole --run-timeout.
				sig := ""
				if !out.served || out.timedOut {
					sig = failureSignature(out.records, out.fixtures)
				}
				switch {
				case sig == "":
					streak, last = 0, ""
				case sig == last:
					streak++
				default:
					streak, last = 1, sig
				}
				// The runs left: this slot's resumed run, if the run was resumed, and every later
				// slot's.
				var left []pendingRun
				if out.resumed != nil {
					left = append(left, *out.resumed)
				}
				left = append(left, slots[commit+1:]...)
				if o.MaxFailures == 0 || streak < o.MaxFailures || len(left) == 0 {
					continue
				}
				stopped = true
				for j := commit + 1; j < len(slots); j++ {
					if cancels[j] != nil {
						cancels[j]() // started: its end is waited for, and dropped
					}
				}
				recs, err := o.notRun(log, lane, streak, last, left, res)
				if err != nil {
					return nil, nil, err
				}
				records = append(records, recs...)
				break
			}
			commit++
		}
	}
	if failure != nil {
		return nil, nil, failure
	}
	if ctx.Err() != nil {
		// Why: a signal (the caller's), or the memory budget (a *guard.LimitError, exit 3).
		return nil, nil, fmt.Errorf("probe: the runs stopped: %w", context.Cause(ctx))
	}
	return records, apis, nil
}

// slot makes the run of one slot: p, then in batch mode the resumed runs of the fixtures it left
// uncalled, one after the other, and returns them in the order made. With buffered (--jobs above
// 1), each run's lines (its leftover processes, with Verbose the command's output) are kept in
// the outcome for runAll to write when it takes the run, in run order, its progress ("run k/n",
// the time left) said then: the log reads as one run at a time would write it, and a run
// --max-failures drops says nothing. Unbuffered, the lines go to log as they come.
func (o *Options) slot(ctx context.Context, p pendingRun, lane laneDef, log *lockedWriter, prog *progress, buffered bool) []runOutcome {
	var outs []runOutcome
	for {
		ro := *o
		ro.Log = log
		var buf *runLog
		line := prog.line()
		if buffered {
			buf = &runLog{}
			ro.Log = buf
			line = func() string { return progressMark }
		}
		lineOf := func(int) string { return line() }
		if o.Batch {
			lineOf = func(i int) string { return fmt.Sprintf("fixture %d/%d of %s", i+1, len(p.fixtures), line()) }
		}
		out := ro.runOnce(ctx, p.fixtures, p.rep, lane, lineOf)
		out.fixtures, out.log = p.fixtures, buf
		if o.Batch && out.err == nil && len(out.uncalled) > 0 && len(out.uncalled) < len(p.fixtures) && ctx.Err() == nil {
			// The records of the fixtures left are the resumed run's.
			left := map[string]bool{}
			for _, f := range out.uncalled {
				left[f.id] = true
			}
			kept := out.records[:0]
			for _, r := range out.records {
				if !left[r.Fixture] {
					kept = append(kept, r)
				}
			}
			out.records = kept
			out.resumed = &pendingRun{p.rep, out.uncalled}
			if !buffered {
				prog.resume()
			}
			if !o.Quiet {
				fmt.Fprintf(ro.Log, "probe: repetition %d: the command ended with %d of %d fixtures not called (a step cap?): resuming them in a fresh process\n", p.rep, len(out.uncalled), len(p.fixtures))
			}
		}
		outs = append(outs, out)
		if out.resumed == nil {
			return outs
		}
		p = *out.resumed
	}
}

// notRun writes the line that says --max-failures stopped the probe, and returns the records of
// the runs left, each fixture repetition execution_failed "not run: …", counted in res.
func (o *Options) notRun(log io.Writer, lane laneDef, streak int, last string, left []pendingRun, res *Result) ([]record, error) {
	n := 0
	for _, q := range left {
		n += len(q.fixtures)
	}
	why := fmt.Sprintf("not run: probe stopped after %d consecutive runs failed the same way (--max-failures %d): %s", streak, o.MaxFailures, last)
	fmt.Fprintf(log, "probe: stopped after %d consecutive runs failed the same way (--max-failures %d; 0 never stops): %s; the %d fixture repetitions left are execution_failed, not run\n",
		streak, o.MaxFailures, escape.Terminal(last), n)
	var records []record
	for _, q := range left {
		for _, f := range q.fixtures {
			recs, err := recordsFor(o, lane, f, q.rep, nil, nil, errors.New(why))
			if err != nil {
				return nil, fmt.Errorf("probe: the records of a run not run: %w", err)
			}
			records = append(records, recs...)
			res.Failed++
			res.NotRun++
		}
	}
	return records, nil
}

// progress counts the runs ended and planned, for each run's line.
type progress struct {
	mu            sync.Mutex
	done, planned int
	started       time.Time
}

// resume plans one more run (a batch run resumed).
func (p *progress) resume() {
	p.mu.Lock()
	p.planned++
	p.mu.Unlock()
}

// next counts one more run ended and says so (runProgress).
func (p *progress) next() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	return runProgress(p.done, p.planned, time.Since(p.started))
}

// line returns a run's progress text: the first call, made when the run has ended, counts it
// among the runs ended and fixes the text; later calls (a batch run's line per fixture) return
// the same.
func (p *progress) line() func() string { return sync.OnceValue(p.next) }

// progressMark stands for a run's progress text in its kept lines until runAll takes the run
// (runLog.flushTo). The command's output cannot forge it: its lines are escaped (lineWriter),
// NUL included.
const progressMark = "\x00progress\x00"

// lockedWriter serializes writes to w: each line probe writes is one Write, whole in the log
// whichever run writes it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// runLog keeps a run's lines until runAll takes the run, up to maxRunLog bytes: past that they
// are counted, and the count said when the lines are written.
type runLog struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	dropped int
}

// maxRunLog bounds the bytes a run's kept lines (the command's output, with Verbose) hold.
const maxRunLog = 4 << 20

func (r *runLog) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf.Len()+len(p) > maxRunLog {
		r.dropped += len(p)
		return len(p), nil
	}
	return r.buf.Write(p)
}

// flushTo writes the run's lines to log at once, the run counted among those ended in prog and
// its progress text in place of progressMark.
func (r *runLog) flushTo(log *lockedWriter, prog *progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	text := prog.next()
	out := bytes.ReplaceAll(r.buf.Bytes(), []byte(progressMark), []byte(text))
	if r.dropped > 0 {
		out = fmt.Appendf(out, "probe: %d bytes of the run's lines left out (more than %d are not kept with --jobs above 1)\n", r.dropped, maxRunLog)
	}
	_, _ = log.Write(out)
	r.buf.Reset()
}

// runProgress says that run of total runs have ended and, from the time they took (elapsed),
// about how long the rest will take (nothing under half a second).
func runProgress(run, total int, elapsed time.Duration) string {
	s := fmt.Sprintf("run %d/%d", run, total)
	if run > 0 && run < total {
		if left := (elapsed * time.Duration(total-run) / time.Duration(run)).Round(time.Second); left > 0 {
			s += ", about " + left.String() + " left"
		}
	}
	return s
}

// runURL is a run's URL path prefix on its hub (/r/<token>), and runHost the hub's loopback
// address, a port of the run's own: an agent's output may quote either.
var (
	runURL  = regexp.MustCompile(`/r/[0-9a-f]{16}`)
	runHost = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
)

// failureSignature is how a run failed, for telling two failures alike: the first failure of its
// records, without the command's output tail (timestamps, pids) and with the run's fixture ids,
// URL token and port made generic; "" when no record of the run failed.
func failureSignature(records []record, fixtures []fixture) string {
	for _, r := range records {
		if r.State != "execution_failed" {
			continue
		}
		msg, _, _ := strings.Cut(r.Error, "; the command's output ended with: ")
		msg = runURL.ReplaceAllString(msg, "/r/…")
		msg = runHost.ReplaceAllString(msg, "127.0.0.1:…")
		for _, f := range fixtures {
			msg = strings.ReplaceAll(msg, f.id, "<fixture>")
		}
		return msg
	}
	return ""
}
