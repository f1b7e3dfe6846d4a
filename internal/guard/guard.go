// Package guard bounds what the checker spends on the programs a user supplies: a time limit on
// every policy evaluation, a time limit on evaluating the CUE contracts, and a memory budget for
// the whole process. A Rego rule that never ends, a comprehension over numbers.range(1, 1e9) or a
// CUE comprehension over list.Range then stops with a *LimitError naming the policy or the
// contract directory, which the command line reports as "the instrument failed" (exit 3), instead
// of running forever or dying of a fatal out-of-memory error that nothing can catch.
//
// The limits travel with the run, in its context (WithLimits, LimitsOf): two runs in one process
// keep their own. The watchdog does not: memory is the process's, so one budget and one watchdog
// cover whatever runs in it.
//
// Time: Do runs a cancellable computation (an OPA evaluation stops when its context is done)
// under a deadline. Go runs one that cannot be cancelled (CUE evaluation) in a goroutine of its
// own and stops waiting at the deadline; the computation itself runs on until the process exits,
// so a caller that gets a *LimitError from Go must end the process soon (the command line does).
//
// Memory: Watch starts a watchdog that samples the runtime's memory every few milliseconds. It
// sets the Go soft memory limit to 90% of the budget, so the collector works harder before the
// budget is reached, and when the memory in use exceeds the budget, or the heap still live after
// a collection exceeds the soft limit (the collector can no longer keep up: it would only thrash),
// it stops the computation that has been running longest (the culprit: ordinary evaluations take microseconds) and cancels the
// whole run. Avoiding the out-of-memory crash this way is best effort: a single allocation larger
// than the machine's memory still fails fatally before any sample sees it. Below the budget, a
// memory target (Limits.Target, by default DefaultTarget) lowers the soft limit while the live
// heap is small, so that a large run's peak is not twice its live heap; the limit follows the
// live heap up, so the target never makes the collector thrash or the watchdog trip.
//
// The budget covers the whole run, the report's writing included, and the resident memory the
// system counts (RSS), not only the Go runtime's: the watchdog reads both. Once it has stopped the
// run, Err reports why, a Writer fails every write, and what cannot be cancelled (a record's
// schema validation, a report being laid out) checks Err between its steps; Admit refuses, before
// anything is allocated, work whose estimated memory the budget has no room for. Should the
// process go on growing anyway, past the budget by half of SlackPercent, the watchdog ends it
// (exit 3, naming the budget) rather than let it take the machine's memory.
package guard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// Limits are the bounds the guard applies. A zero field means the default.
type Limits struct {
	// Eval bounds one policy evaluation: one prepared query on one input, or one Rego test.
	Eval time.Duration
	// Load bounds evaluating the CUE contracts (parse, unify, validate, decode).
	Load time.Duration
	// Memory is the budget, in bytes, of the memory the Go runtime holds for the whole process.
	Memory int64
	// Target is the memory, in bytes, the collector aims to keep the Go runtime under while the
	// watchdog runs, well below the budget: the Go soft memory limit is Target unless that leaves
	// the heap less than half the live heap to grow into (gcLimit), so a run that needs more is
	// paced as with GOGC=50 rather than collected without end. Zero means DefaultTarget, or no target when
	// GOMEMLIMIT is set; a negative Target means none (the soft limit is then the budget's).
	Target int64
}

// Default time limits: an evaluation of the built-in policies takes microseconds to milliseconds,
// so five seconds (the per-test limit of OPA's own test runner) is generous; loading the
// built-in contracts takes about a second.
const (
	DefaultEval = 5 * time.Second
	DefaultLoad = 60 * time.Second
	// DefaultMemory is the budget unless the machine has less to give (DefaultLimits).
	DefaultMemory = 4 << 30
	// DefaultTarget is the memory target unless the user chose a limit (GOMEMLIMIT or a
	// budget). With the binary's own pages (about 31 MiB resident) it keeps a check of a million
	// bindings at 95 MiB of resident memory, under the 100 MiB goal of issue 45, for about 8%
	// more CPU than the 80 MiB it was until stop 56 (106–108 MiB there), once the census's
	// in-memory buffers were cut (docs/design.md, "The 1M goal met"). A run whose live heap is
	// under about a third of it (most runs, the built-in check among them) never meets it, since
	// the collector's own goal (TargetGCPercent) is lower.
	DefaultTarget = 68 << 20
	// CollectTarget is collect's memory target (Limits.ForVerb): a service whose live heap is
	// small and flat — the loaded contract set, and the uploads in flight, each a compressed
	// body, a read buffer and one event (its readings with --census) — so the heap is paced
	// close above it. Measured with 1M decisions from 4 uploaders: a peak RSS of about 91 MiB
	// against 134 MiB at DefaultTarget, for a few percent more CPU (docs/production.md).
	CollectTarget = 48 << 20
)

// ForVerb is l with the memory target a verb asks for (target > 0; 0 keeps l's), unless the user
// chose the memory the run may hold: with a budget (budgetSet) there is no target (-1), and with
// GOMEMLIMIT set l's target is kept (none unless the caller gave one).
func (l Limits) ForVerb(target int64, budgetSet bool) Limits {
	switch {
	case budgetSet:
		l.Target = -1
	case target > 0 && os.Getenv("GOMEMLIMIT") == "":
		l.Target = target
	}
	return l
}

// DefaultLimits returns the default limits: DefaultEval, DefaultLoad, and a memory budget of
// GOMEMLIMIT when it is set, else DefaultMemory, or three quarters of the memory the machine
// (or its cgroup) has when that is less.
func DefaultLimits() Limits {
	return Limits{Eval: DefaultEval, Load: DefaultLoad, Memory: defaultMemory(), Target: defaultTarget()}
}

// defaultTarget is DefaultTarget, or none (-1) when GOMEMLIMIT sets the soft limit.
func defaultTarget() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return -1
	}
	return DefaultTarget
}

func defaultMemory() int64 {
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		if m := debug.SetMemoryLimit(-1); m > 0 && m < math.MaxInt64 {
			return m
		}
	}
	budget := int64(DefaultMemory)
	if m := machineMemory(); m > 0 && m/4*3 < budget {
		budget = m / 4 * 3
	}
	return budget
}

// machineMemory is the smaller of the cgroup v2 memory limit and MemTotal, or 0 when unknown.
func machineMemory() int64 {
	var m int64
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			m = n
		}
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil && kb > 0 && (m == 0 || kb<<10 < m) {
					m = kb << 10
				}
				break
			}
		}
	}
	return m
}

// limitsKey is the context key of the limits a run is held to.
type limitsKey struct{}

// WithLimits returns a context that carries l, zero fields taking the defaults: what every
// evaluation, load and stream under it is held to (LimitsOf). The limits travel with the run, not
// with the process, so two runs in one process (tests, a server) each keep their own.
func WithLimits(ctx context.Context, l Limits) context.Context {
	// The fields one at a time, as DefaultLimits has them: the memory default reads the cgroup
	// limit and /proc/meminfo, needless when a budget is given.
	if l.Eval <= 0 {
		l.Eval = DefaultEval
	}
	if l.Load <= 0 {
		l.Load = DefaultLoad
	}
	if l.Memory <= 0 {
		l.Memory = defaultMemory()
	}
	if l.Target == 0 {
		l.Target = defaultTarget()
	}
	return context.WithValue(ctx, limitsKey{}, l)
}

// LimitsOf returns the limits ctx carries (WithLimits), else the defaults (DefaultLimits).
func LimitsOf(ctx context.Context) Limits {
	if ctx != nil {
		if l, ok := ctx.Value(limitsKey{}).(Limits); ok {
			return l
		}
	}
	return defaultLimits()
}

// defaultLimits is DefaultLimits, read from the system once.
var defaultLimits = sync.OnceValue(DefaultLimits)

// LimitError is a user's program stopped at a limit: the instrument failed, not the input.
type LimitError struct {
	// What names what was stopped, e.g. "policy contractcheck.tasks.t2 (policies/tasks/t2.rego)".
	What string
	// Limit names the limit, e.g. "the time limit of 5s per evaluation".
	Limit string
}

// Error returns the message.
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: stopped at %s", e.What, e.Limit)
}

// lastTimeLimit is the last time limit timeLimit spelled: every evaluation of a run has the same
// one, and formatting it for each of a million evaluations showed in profiles.
var lastTimeLimit atomic.Pointer[timeLimitText]

type timeLimitText struct {
	d    time.Duration
	text string
}

// timeLimit names the time limit d, "the time limit of 5s".
func timeLimit(d time.Duration) string {
	if l := lastTimeLimit.Load(); l != nil && l.d == d {
		return l.text
	}
	l := &timeLimitText{d, fmt.Sprintf("the time limit of %s", d)}
	lastTimeLimit.Store(l)
	return l.text
}

// Stopped returns the *LimitError that ended ctx, or nil when ctx is live or ended otherwise.
func Stopped(ctx context.Context) *LimitError {
	var le *LimitError
	if errors.As(context.Cause(ctx), &le) {
		return le
	}
	return nil
}

// Do runs f under the time limit d (none when d ≤ 0) and, while a watchdog runs, the memory
// budget, registered as what. f must return soon after its context is done. When f fails after
// its context ended, Do returns why the context ended instead of f's error: the *LimitError of
// a limit, else the context's cause (context.Canceled when the caller cancelled).
func Do(ctx context.Context, what string, d time.Duration, f func(context.Context) error) error {
	// One context serves the time limit and the watchdog: a policy evaluation is a few dozen
	// microseconds, and a second context for the watchdog was a third of what Do cost it.
	watched := watchdog.running.Load()
	if d > 0 || watched {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		if d > 0 {
			t := time.AfterFunc(d, func() { cancel(&LimitError{What: what, Limit: timeLimit(d)}) })
			defer t.Stop()
		}
		if watched {
			defer watchdog.begin(what, cancel)()
		}
	}
	err := f(ctx)
	if err != nil && ctx.Err() != nil {
		if le := Stopped(ctx); le != nil {
			return le
		}
		// Cancelled from outside (another computation failed first): say so, rather than pass
		// on the error the cancellation caused, which would read as a failure of its own.
		return context.Cause(ctx)
	}
	return err
}

// Go runs f, which cannot be cancelled, in a goroutine of its own, and waits for it under the
// time limit d and the memory budget. When a limit stops the wait, Go returns the *LimitError
// and f keeps running: the process should end soon.
func Go(ctx context.Context, what string, d time.Duration, f func() error) error {
	done := make(chan error, 1)
	return Do(ctx, what, d, func(ctx context.Context) error {
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err() // Do returns why ctx ended instead: the *LimitError, or the cause
		}
	})
}

// Watch starts the memory watchdog with the budget ctx carries (LimitsOf) and returns a context that the
// watchdog cancels, with a *LimitError, when the budget is exceeded; stop ends the watchdog and
// restores the soft memory limit (calling it again does nothing). One watchdog runs at a time: a
// second Watch while one runs returns ctx and a stop that does nothing. Should the process grow
// past the budget by half of SlackPercent after the run was stopped (a computation that cannot be
// cancelled went on), the watchdog ends it, within the slack: the *LimitError on standard error,
// exit code 3.
func Watch(ctx context.Context) (context.Context, func()) {
	l := LimitsOf(ctx)
	return watchdog.watch(ctx, l.Memory, l.Target, 5*time.Millisecond, exitProcess)
}

// SlackPercent is how far past the budget, in percent of it, the process may go while what was
// running when the watchdog stopped the run winds down: the watchdog ends a process that passes
// half of it.
const SlackPercent = 10

// Err returns the *LimitError the watchdog stopped the run with, and nil while the run is within
// its budget or no watchdog runs. A computation that no context reaches (a schema validation, a
// report being laid out) checks it between its steps.
func Err() error {
	if le := watchdog.stopped.Load(); le != nil {
		return le
	}
	return nil
}

// Trip stops the run as the watchdog does when the memory budget is exceeded: the computation
// running longest and the run's context are cancelled with a *LimitError naming the budget, which
// Err returns from then on. It reports false, and does nothing, when no watchdog runs. A caller
// that knows the run cannot go on within the budget calls it; so do tests of what must stop.
func Trip() bool {
	if !watchdog.running.Load() {
		return false
	}
	watchdog.trip(watchdog.budget.Load())
	return true
}

// Writer returns a writer that passes writes on to w until the watchdog stops the run, and then
// fails every write with the *LimitError: a report is not written on past the budget.
func Writer(w io.Writer) io.Writer { return budgetWriter{w} }

type budgetWriter struct{ w io.Writer }

func (b budgetWriter) Write(p []byte) (int, error) {
	if err := Err(); err != nil {
		return 0, err
	}
	return b.w.Write(p)
}

// Admit checks, before work that needs about need bytes of memory is begun, that the budget has
// room for it beside what the process holds (the live heap, the runtime's own memory and the
// resident memory outside Go's heap; garbage does not count, and when the last sample leaves too
// little room a collection is forced and the memory measured again). When it has not, Admit
// returns a *LimitError naming what and the budget, and the work should not be begun. Without a
// watchdog it admits everything.
func Admit(what string, need int64) error {
	w := watchdog
	if !w.running.Load() {
		return nil
	}
	if err := Err(); err != nil {
		return err
	}
	if need <= w.headroom.Load() {
		return nil
	}
	runtime.GC() // what the last collection found live may be garbage by now
	budget := w.budget.Load()
	left := budget - measure(newSamples(), nil).inUse
	if need <= left {
		return nil
	}
	return &LimitError{What: what, Limit: fmt.Sprintf("the memory budget of %s: it needs about %s, and %s of it is left",
		Size(budget), Approx(need), Approx(max(left, 0)))}
}

// Approx formats a byte count to two or three significant digits in the largest unit it fills:
// "1.6 GiB", "230 MiB", "512 B".
func Approx(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	switch {
	case u == 0:
		return fmt.Sprintf("%d B", n)
	case f < 10:
		return fmt.Sprintf("%.1f %s", f, units[u])
	}
	return fmt.Sprintf("%.0f %s", f, units[u])
}

// exitProcess ends a process that went on growing past the budget's slack after the watchdog
// stopped its run: a computation that cannot be cancelled would otherwise take the machine's
// memory. The message names the budget, made safe for a terminal and a CI log; the exit code is
// the instrument's.
func exitProcess(le *LimitError, _ int64) {
	fmt.Fprintln(os.Stderr, exitMessage(le))
	os.Exit(3)
}

// exitMessage is what exitProcess prints: one line, the error through escape.Terminal.
func exitMessage(le error) string {
	return "contractcheck: " + escape.Terminal(le.Error()) +
		" (the process went on growing past the budget after the run was stopped, and was ended)"
}

// gcLimit is the Go soft memory limit for a live heap: the target, unless that leaves the heap
// less than half the live heap (and at least minHeadroom) to grow into before a collection,
// counting the memory the runtime holds besides heap objects that it cannot give back (overhead:
// fragmented heap pages, stacks, metadata; not the free heap pages, which the runtime returns to
// the system when the limit asks); in whole MiB, never above soft (the budget's). Without a
// target it is soft. A limit the live heap nearly fills makes the collector run without end: this
// one never paces the heap tighter than GOGC=50. The live heap it is given is the smoothed one
// (liveWindow), not one collection's.
func gcLimit(target, soft, live, overhead int64) int64 {
	if target <= 0 {
		return soft
	}
	limit := max(target, overhead+live+max(live/2, minHeadroom))
	limit = (limit + 1<<20 - 1) &^ (1<<20 - 1)
	return min(limit, soft)
}

// TargetGCPercent is the collector's GOGC while a memory target bounds the heap (and the user
// set no GOGC): the target, not the proportional goal, keeps a large run's heap down, so a small
// one (the built-in check's live heap is about 20 MB) may grow three times its live heap before
// a collection instead of twice, and is collected half as often (a twentieth of the built-in
// check's time).
const TargetGCPercent = 200

// minHeadroom is the least heap growth gcLimit leaves between collections.
const minHeadroom = 16 << 20

// liveCycles is how many collections' live heaps liveWindow keeps.
const liveCycles = 4

// liveWindow smooths the live heap the collector reports for gcLimit: the least of what the last
// liveCycles collections found live. One collection's figure jumps up and drops back (on a busy
// machine a long concurrent cycle counts what was allocated while it ran as live), and a limit
// that followed each jump let the heap grow into it; a live heap that really grows raises the
// least within liveCycles collections, which the headroom gcLimit leaves (half the live heap)
// covers meanwhile. The watchdog's own checks read the live heap unsmoothed.
type liveWindow struct {
	cycles [liveCycles]uint64
	lives  [liveCycles]int64
	set    [liveCycles]bool
}

// observe records live, the heap that collection cycle found live (a later sample of the same cycle
// replaces it), and returns the least live heap of the cycles since cycle-liveCycles.
func (w *liveWindow) observe(cycle uint64, live int64) int64 {
	i := cycle % liveCycles
	w.cycles[i], w.lives[i], w.set[i] = cycle, live, true
	least := live
	for j := range liveCycles {
		if w.set[j] && w.cycles[j]+liveCycles > cycle {
			least = min(least, w.lives[j])
		}
	}
	return least
}

// task is a computation the watchdog may stop.
type task struct {
	what   string
	start  time.Time
	cancel context.CancelCauseFunc
}

type dog struct {
	mu      sync.Mutex
	running atomic.Bool
	tasks   map[*task]struct{}
	root    context.CancelCauseFunc
	// budget is the running watchdog's budget; headroom is the budget less the memory in use
	// (usage.inUse) at its last sample.
	budget, headroom atomic.Int64
	// stopped is why the watchdog stopped the run, nil while the run is within its budget.
	stopped atomic.Pointer[LimitError]
}

var watchdog = &dog{tasks: map[*task]struct{}{}}

// begin registers a computation, which cancel stops, until the returned end is called.
func (w *dog) begin(what string, cancel context.CancelCauseFunc) (end func()) {
	t := &task{what: what, start: time.Now(), cancel: cancel}
	w.mu.Lock()
	w.tasks[t] = struct{}{}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.tasks, t)
		w.mu.Unlock()
	}
}

// usage is one sample of the process's memory.
type usage struct {
	// used is what the budget is held to: the memory the Go runtime holds (less what it released
	// to the system) or the process's resident memory, whichever is larger.
	used int64
	// live is the heap the last collection found live; overhead what the runtime holds besides
	// heap objects and free heap pages (fragmented heap pages, stacks, metadata).
	live, overhead int64
	// cycle counts the collections completed (what live was measured at).
	cycle uint64
	// inUse is what would remain were the garbage collected and the free heap pages reused: the
	// live heap, the runtime's memory but its free heap pages, and the resident memory beyond the
	// Go runtime's (the binary's pages, C libraries).
	inUse int64
}

func newSamples() []metrics.Sample {
	return []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"}}
}

// measure samples the runtime's memory into samples (newSamples) and the resident memory through
// rss (read afresh when nil).
func measure(samples []metrics.Sample, rss *rssReader) usage {
	metrics.Read(samples)
	goUsed := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64())
	live := int64(samples[2].Value.Uint64())
	objects := int64(samples[3].Value.Uint64())
	free := int64(samples[4].Value.Uint64())
	if rss == nil {
		rss = openRSS()
		defer rss.close()
	}
	resident := rss.read()
	return usage{used: max(goUsed, resident), live: live, overhead: goUsed - objects - free, cycle: samples[5].Value.Uint64(),
		inUse: live + goUsed - objects - free + max(resident-goUsed, 0)}
}

func (w *dog) watch(ctx context.Context, budget, target int64, every time.Duration, exit func(le *LimitError, used int64)) (context.Context, func()) {
	if !w.running.CompareAndSwap(false, true) {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w.mu.Lock()
	w.root = cancel
	w.mu.Unlock()
	w.stopped.Store(nil)
	w.budget.Store(budget)
	soft := budget / 10 * 9
	limit := gcLimit(target, soft, 0, 0)
	prev := debug.SetMemoryLimit(limit)
	prevPercent := -2 // not changed
	if _, set := os.LookupEnv("GOGC"); !set && target > 0 {
		prevPercent = debug.SetGCPercent(TargetGCPercent)
	}
	samples, rss := newSamples(), openRSS()
	var window liveWindow
	w.headroom.Store(budget - measure(samples, rss).inUse)
	quit := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer rss.close()
		tick := time.NewTicker(every)
		defer tick.Stop()
		winding := false // the run is stopped: sampled more often
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			u := measure(samples, rss)
			w.headroom.Store(budget - u.inUse)
			if le := w.stopped.Load(); le != nil {
				// The run is stopped and winding down: what cannot be cancelled must not take
				// the process past the budget's slack. The process is ended at half the slack,
				// sampled five times as often, so that what it allocates between two samples
				// (and while it exits) stays within the other half.
				if !winding {
					winding = true
					tick.Reset(max(every/5, time.Millisecond/2))
				}
				if exit != nil && u.used > budget+budget/200*SlackPercent {
					exit(le, u.used)
					return
				}
			} else if u.used > budget || u.live > soft {
				w.trip(budget)
			}
			if l := gcLimit(target, soft, window.observe(u.cycle, u.live), u.overhead); l != limit {
				limit = l
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	var once sync.Once
	return ctx, func() { once.Do(func() { w.stop(quit, stopped, prev, prevPercent, cancel) }) }
}

// stop ends the watchdog whose loop quit ends and stopped reports ended, and restores the soft
// memory limit and GOGC it changed.
func (w *dog) stop(quit, stopped chan struct{}, prev int64, prevPercent int, cancel context.CancelCauseFunc) {
	close(quit)
	<-stopped
	debug.SetMemoryLimit(prev)
	if prevPercent != -2 {
		debug.SetGCPercent(prevPercent)
	}
	w.mu.Lock()
	w.root = nil
	w.mu.Unlock()
	cancel(nil)
	w.stopped.Store(nil)
	w.running.Store(false)
}

// trip stops the longest-running computation and the run; the first trip's error stays.
func (w *dog) trip(budget int64) {
	limit := fmt.Sprintf("the memory budget of %s", Size(budget))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped.Load() != nil {
		return
	}
	var culprit *task
	for t := range w.tasks {
		if culprit == nil || t.start.Before(culprit.start) {
			culprit = t
		}
	}
	le := &LimitError{What: "the run", Limit: limit}
	if culprit != nil {
		le.What = culprit.what
	}
	w.stopped.Store(le) // before anything is cancelled: whoever sees the cancellation sees Err
	if culprit != nil {
		culprit.cancel(le)
	}
	if w.root != nil {
		w.root(le)
	}
}

// rssReader reads the process's resident memory from /proc/self/statm, kept open between reads;
// a nil reader (no /proc) reads 0.
type rssReader struct {
	f    *os.File
	page int64
	buf  [128]byte
}

func openRSS() *rssReader {
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return nil
	}
	return &rssReader{f: f, page: int64(os.Getpagesize())}
}

// read returns the resident memory in bytes, 0 when it cannot be read.
func (r *rssReader) read() int64 {
	if r == nil {
		return 0
	}
	n, _ := r.f.ReadAt(r.buf[:], 0)
	fields := bytes.Fields(r.buf[:n]) // size resident shared text lib data dt, in pages
	if len(fields) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * r.page
}

func (r *rssReader) close() {
	if r != nil {
		r.f.Close()
	}
}

// Size formats a byte count the way the --memory-budget flag reads it (ParseSize).
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// ParseSize reads a byte count with an optional unit: B, KiB, MiB, GiB (or K, M, G, the same
// powers of 1024).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a size: want a positive number of bytes with an optional unit KiB, MiB or GiB", s)
	}
	return n * mult, nil
}
