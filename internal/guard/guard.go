// Package guard bounds what the checker spends on the programs a user supplies: a time limit on
// every policy evaluation, a time limit on evaluating the CUE contracts, and a memory budget for
// the whole process. A Rego rule that never ends, a comprehension over numbers.range(1, 1e9) or a
// CUE comprehension over list.Range then stops with a *LimitError naming the policy or the
// contract directory, which the command line reports as "the instrument failed" (exit 3), instead
// of running forever or dying of a fatal out-of-memory error that nothing can catch.
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
package guard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
	// budget). With the binary's own pages (about 30 MB) it keeps a check of a million bindings
	// under 150 MB of resident memory; a run whose live heap is under half of it (most runs) never
	// meets it, since the collector's own goal (GOGC=100) is lower.
	DefaultTarget = 112 << 20
)

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

var current atomic.Pointer[Limits]

// Set replaces the limits (zero fields take the defaults) and returns a function restoring the
// previous ones.
func Set(l Limits) (restore func()) {
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
	prev := current.Swap(&l)
	return func() { current.Store(prev) }
}

// Current returns the limits in force.
func Current() Limits {
	if l := current.Load(); l != nil {
		return *l
	}
	l := DefaultLimits()
	current.CompareAndSwap(nil, &l)
	return *current.Load()
}

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

// Watch starts the memory watchdog with the current budget and returns a context that the
// watchdog cancels, with a *LimitError, when the budget is exceeded; stop ends the watchdog and
// restores the soft memory limit. One watchdog runs at a time: a second Watch while one runs
// returns ctx and a stop that does nothing.
func Watch(ctx context.Context) (context.Context, func()) {
	l := Current()
	return watchdog.watch(ctx, l.Memory, l.Target, 5*time.Millisecond)
}

// gcLimit is the Go soft memory limit for a live heap: the target, unless that leaves the heap
// less than half the live heap (and at least minHeadroom) to grow into before a collection,
// counting the memory the runtime holds besides heap objects (overhead: free and fragmented
// heap pages, stacks, metadata); in whole MiB, never above soft (the budget's). Without a target
// it is soft. A limit the live heap nearly fills makes the collector run without end: this one
// never paces the heap tighter than GOGC=50.
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

func (w *dog) watch(ctx context.Context, budget, target int64, every time.Duration) (context.Context, func()) {
	if !w.running.CompareAndSwap(false, true) {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w.mu.Lock()
	w.root = cancel
	w.mu.Unlock()
	soft := budget / 10 * 9
	limit := gcLimit(target, soft, 0, 0)
	prev := debug.SetMemoryLimit(limit)
	prevPercent := -2 // not changed
	if _, set := os.LookupEnv("GOGC"); !set && target > 0 {
		prevPercent = debug.SetGCPercent(TargetGCPercent)
	}
	quit := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/gc/heap/live:bytes"},
			{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			metrics.Read(samples)
			used := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64())
			live := int64(samples[2].Value.Uint64())
			if used > budget || live > soft {
				w.trip(budget)
				return
			}
			overhead := used - int64(samples[3].Value.Uint64())
			if l := gcLimit(target, soft, live, overhead); l != limit {
				limit = l
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return ctx, func() {
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
		w.running.Store(false)
	}
}

// trip stops the longest-running computation and the run.
func (w *dog) trip(budget int64) {
	limit := fmt.Sprintf("the memory budget of %s", Size(budget))
	w.mu.Lock()
	defer w.mu.Unlock()
	var culprit *task
	for t := range w.tasks {
		if culprit == nil || t.start.Before(culprit.start) {
			culprit = t
		}
	}
	le := &LimitError{What: "the run", Limit: limit}
	if culprit != nil {
		le.What = culprit.what
		culprit.cancel(le)
	}
	if w.root != nil {
		w.root(le)
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
