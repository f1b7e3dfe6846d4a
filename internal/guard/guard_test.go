package guard

import (
	"context"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestDo(t *testing.T) {
	tests := []struct {
		name    string
		limit   time.Duration
		f       func(context.Context) error
		wantErr string
	}{
		{name: "finishes in time", limit: time.Second, f: func(context.Context) error { return nil }},
		{name: "own error kept", limit: time.Second, f: func(context.Context) error { return errors.New("bad input") }, wantErr: "bad input"},
		{name: "stopped at the time limit", limit: 20 * time.Millisecond, f: func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}, wantErr: "policy p (p.rego): stopped at the time limit of 20ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Do(context.Background(), "policy p (p.rego)", tc.limit, tc.f)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestGoStopsWaiting: a computation that cannot be cancelled is left behind at the deadline.
func TestGoStopsWaiting(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	err := Go(context.Background(), "contracts (c)", 20*time.Millisecond, func() error {
		<-release
		return nil
	})
	var le *LimitError
	if !errors.As(err, &le) || le.What != "contracts (c)" {
		t.Fatalf("error %v, want a *LimitError for contracts (c)", err)
	}
}

// TestWatchStopsTheCulprit: over the budget, the longest-running computation is stopped with a
// *LimitError naming it, and the run's context is cancelled with the same error.
func TestWatchStopsTheCulprit(t *testing.T) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	budget := int64(ms.Sys) + 64<<20
	ctx, stop := watchdog.watch(context.Background(), budget, -1, time.Millisecond, nil)
	defer stop()
	innocent := make(chan error, 1)
	err := Do(ctx, "policy bomb (bomb.rego)", time.Minute, func(ctx context.Context) error {
		go func() {
			innocent <- Do(ctx, "policy innocent (ok.rego)", time.Minute, func(ctx context.Context) error {
				<-ctx.Done()
				return ctx.Err()
			})
		}()
		var hold [][]byte
		for ctx.Err() == nil {
			hold = append(hold, make([]byte, 1<<20))
			for i := 0; i < len(hold[len(hold)-1]); i += 4096 {
				hold[len(hold)-1][i] = 1
			}
		}
		runtime.KeepAlive(hold)
		return ctx.Err()
	})
	if err == nil || !strings.HasPrefix(err.Error(), "policy bomb (bomb.rego): stopped at the memory budget of") {
		t.Fatalf("error %v, want the bomb stopped at the memory budget", err)
	}
	if ierr := <-innocent; ierr == nil || !strings.Contains(ierr.Error(), "policy bomb") {
		t.Errorf("the other computation ended with %v, want the run's cause naming the bomb", ierr)
	}
	if le := Stopped(ctx); le == nil || le.What != "policy bomb (bomb.rego)" {
		t.Errorf("run cancelled with %v", context.Cause(ctx))
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		name, in string
		want     int64
		wantErr  bool
	}{
		{name: "bytes", in: "1000", want: 1000},
		{name: "GiB", in: "4GiB", want: 4 << 30},
		{name: "MiB with space", in: "512 MiB", want: 512 << 20},
		{name: "short unit", in: "2G", want: 2 << 30},
		{name: "zero", in: "0", wantErr: true},
		{name: "negative", in: "-1M", wantErr: true},
		{name: "overflow", in: "99999999999GiB", wantErr: true},
		{name: "words", in: "lots", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err == nil {
				if back, _ := ParseSize(Size(got)); back != got {
					t.Errorf("Size(%d) = %q does not read back", got, Size(got))
				}
			}
		})
	}
}

// TestGCLimit: the soft limit is the target while the live heap is small, rises to leave the heap
// half the live heap (at least minHeadroom) beyond what the runtime holds besides objects, and
// never passes the budget's soft limit; without a target it is the budget's.
func TestGCLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name                         string
		target, soft, live, overhead int64
		want                         int64
	}{
		{name: "small heap: the target", target: 112 * mib, soft: 3600 * mib, live: 20 * mib, overhead: 20 * mib, want: 112 * mib},
		{name: "at the target", target: 112 * mib, soft: 3600 * mib, live: 60 * mib, overhead: 22 * mib, want: 112 * mib},
		{name: "overhead leaves too little room", target: 112 * mib, soft: 3600 * mib, live: 64 * mib, overhead: 44 * mib, want: 140 * mib},
		{name: "large heap: half of it to grow", target: 112 * mib, soft: 3600 * mib, live: 200 * mib, overhead: 20 * mib, want: 320 * mib},
		{name: "small heap, large overhead: at least minHeadroom", target: 16 * mib, soft: 3600 * mib, live: 8 * mib, overhead: 10 * mib, want: 34 * mib},
		{name: "rounded up to a MiB", target: 112 * mib, soft: 3600 * mib, live: 100 * mib, overhead: 1, want: 151 * mib},
		{name: "never above the budget's", target: 112 * mib, soft: 90 * mib, live: 20 * mib, overhead: 20 * mib, want: 90 * mib},
		{name: "large heap near the budget", target: 112 * mib, soft: 400 * mib, live: 300 * mib, overhead: 20 * mib, want: 400 * mib},
		{name: "no target", target: -1, soft: 3600 * mib, live: 20 * mib, overhead: 20 * mib, want: 3600 * mib},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := gcLimit(tc.target, tc.soft, tc.live, tc.overhead); got != tc.want {
				t.Errorf("gcLimit(%d, %d, %d, %d) = %d MiB, want %d MiB", tc.target/mib, tc.soft/mib, tc.live/mib, tc.overhead/mib, got/mib, tc.want/mib)
			}
		})
	}
}

// TestOverheadLeavesFreePages: the overhead gcLimit counts is what the runtime holds besides heap
// objects less its free heap pages, which the runtime gives back when the limit asks (counted,
// they raised the limit by what the heap had freed, so that the heap never had to give it back).
func TestOverheadLeavesFreePages(t *testing.T) {
	held := make([][]byte, 0, 1024)
	for range 1024 {
		held = append(held, make([]byte, 64<<10))
	}
	runtime.KeepAlive(held)
	held = nil
	runtime.GC() // the 64 MiB are now free heap pages, not yet returned to the system
	samples := newSamples()
	u := measure(samples, nil)
	goUsed := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64())
	objects, free := int64(samples[3].Value.Uint64()), int64(samples[4].Value.Uint64())
	if free == 0 {
		t.Fatalf("no free heap pages after freeing 64 MiB")
	}
	if want := goUsed - objects - free; u.overhead != want {
		t.Errorf("overhead %d, want %d (the runtime's memory %d less objects %d and free pages %d)", u.overhead, want, goUsed, objects, free)
	}
}

// TestLiveWindow: the live heap gcLimit is given is the least of the last liveCycles
// collections' figures, so that one collection's jump does not raise the limit, while a live
// heap that stays higher is followed within liveCycles collections.
func TestLiveWindow(t *testing.T) {
	const mib = 1 << 20
	type sample struct {
		cycle uint64
		live  int64
	}
	tests := []struct {
		name    string
		samples []sample
		want    int64 // what the last sample returns
	}{
		{name: "first figure", samples: []sample{{1, 40 * mib}}, want: 40 * mib},
		{name: "one cycle's jump is not followed", samples: []sample{{1, 40 * mib}, {2, 41 * mib}, {3, 62 * mib}}, want: 40 * mib},
		{name: "a jump that drops back", samples: []sample{{1, 40 * mib}, {2, 62 * mib}, {3, 42 * mib}}, want: 40 * mib},
		{name: "a lasting rise is followed after liveCycles", samples: []sample{{1, 40 * mib}, {2, 60 * mib}, {3, 61 * mib}, {4, 60 * mib}, {5, 62 * mib}}, want: 60 * mib},
		{name: "a fall is followed at once", samples: []sample{{1, 60 * mib}, {2, 61 * mib}, {3, 20 * mib}}, want: 20 * mib},
		{name: "samples of one cycle: the last kept", samples: []sample{{7, 30 * mib}, {7, 30 * mib}, {8, 50 * mib}, {8, 50 * mib}}, want: 30 * mib},
		{name: "cycles missed between samples", samples: []sample{{1, 20 * mib}, {9, 50 * mib}, {10, 55 * mib}}, want: 50 * mib},
		{name: "cycles far apart forget the old figure", samples: []sample{{3, 10 * mib}, {3 + liveCycles, 50 * mib}}, want: 50 * mib},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w liveWindow
			var got int64
			for _, s := range tc.samples {
				got = w.observe(s.cycle, s.live)
			}
			if got != tc.want {
				t.Errorf("after %v: %d MiB, want %d MiB", tc.samples, got/mib, tc.want/mib)
			}
		})
	}
}

// TestForVerb: a verb's own memory target (collect's) replaces the default, unless the user chose
// the memory: --memory-budget means no target, GOMEMLIMIT keeps what the limits had.
func TestForVerb(t *testing.T) {
	tests := []struct {
		name       string
		start      int64 // the limits' target before
		target     int64
		budgetSet  bool
		gomemlimit string
		want       int64
	}{
		{name: "the verb's target", target: CollectTarget, want: CollectTarget},
		{name: "the verb's target over the default", start: DefaultTarget, target: CollectTarget, want: CollectTarget},
		{name: "no target of its own: the limits' kept", start: DefaultTarget, want: DefaultTarget},
		{name: "a budget: no target", start: DefaultTarget, target: CollectTarget, budgetSet: true, want: -1},
		{name: "a budget, no verb target: no target", budgetSet: true, want: -1},
		{name: "GOMEMLIMIT: the verb's target not taken", target: CollectTarget, gomemlimit: "200MiB", want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gomemlimit != "" {
				t.Setenv("GOMEMLIMIT", tc.gomemlimit)
			}
			got := Limits{Target: tc.start, Memory: 1 << 30}.ForVerb(tc.target, tc.budgetSet)
			if got.Target != tc.want || got.Memory != 1<<30 {
				t.Errorf("ForVerb(%d, %v) from %d: target %d, memory %d; want target %d", tc.target, tc.budgetSet, tc.start, got.Target, got.Memory, tc.want)
			}
		})
	}
}

// TestWatchSetsTheTarget: while the watchdog runs, the Go soft memory limit is the target (the
// test's heap is far below it), and stopping the watchdog restores the previous limit.
func TestWatchSetsTheTarget(t *testing.T) {
	const target = 512 << 20
	debug.FreeOSMemory() // what earlier tests held is neither live nor held by the runtime
	prev := debug.SetMemoryLimit(-1)
	_, stop := watchdog.watch(context.Background(), 8<<30, target, time.Millisecond, nil)
	time.Sleep(10 * time.Millisecond)
	got := debug.SetMemoryLimit(-1)
	stop()
	if got != target {
		t.Errorf("soft limit %d MiB while watching, want the target %d MiB", got>>20, target>>20)
	}
	if after := debug.SetMemoryLimit(-1); after != prev {
		t.Errorf("soft limit %d after the watchdog stopped, want %d restored", after, prev)
	}
}

// BenchmarkDo is what Do adds to a computation that returns at once (a policy evaluation takes
// tens of microseconds), with a time limit, alone and while the watchdog runs.
func BenchmarkDo(b *testing.B) {
	for _, tc := range []struct {
		name    string
		watched bool
	}{{name: "plain"}, {name: "watched", watched: true}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			if tc.watched {
				var stop func()
				ctx, stop = Watch(ctx)
				defer stop()
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := Do(ctx, "policy x", 5*time.Second, func(context.Context) error { return nil }); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// TestWriterStopsWithTheRun: a Writer passes writes on while the run is within its budget; once
// the watchdog has stopped the run (Trip), Err returns the *LimitError naming the budget and every
// write fails with it; stopping the watchdog clears it.
func TestWriterStopsWithTheRun(t *testing.T) {
	ctx, stop := watchdog.watch(context.Background(), 8<<30, -1, time.Millisecond, nil)
	defer stop()
	var out strings.Builder
	w := Writer(&out)
	if _, err := io.WriteString(w, "before"); err != nil || Err() != nil {
		t.Fatalf("write within the budget: %v (Err %v)", err, Err())
	}
	if !Trip() {
		t.Fatal("Trip found no watchdog running")
	}
	_, err := io.WriteString(w, "after")
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "the memory budget of 8GiB" {
		t.Fatalf("write after the trip: %v, want a *LimitError naming the budget", err)
	}
	if Stopped(ctx) == nil || Err() == nil {
		t.Errorf("after the trip the run's context holds %v and Err is %v", context.Cause(ctx), Err())
	}
	if out.String() != "before" {
		t.Errorf("written %q, want only what came before the trip", out.String())
	}
	stop()
	if Err() != nil || Trip() {
		t.Errorf("after the watchdog stopped: Err %v, and Trip still trips", Err())
	}
}

// TestWatchEndsAProcessThatGoesOn: once the watchdog has stopped the run, a computation that goes
// on allocating anyway is let run until the process passes the budget by half of SlackPercent;
// then the watchdog ends the process with the *LimitError (here the exit is recorded instead),
// within the slack.
func TestWatchEndsAProcessThatGoesOn(t *testing.T) {
	u := measure(newSamples(), nil)
	budget := u.used + 256<<20
	ended := make(chan *LimitError, 1)
	// endedOn is what the watchdog's last sample saw, endedAt what the process held when the exit
	// ran: the runtime may return a few free pages between the two, so the threshold is checked
	// on the sample the watchdog acted on, and the slack on the larger of the two.
	var endedOn, endedAt int64
	ctx, stop := watchdog.watch(context.Background(), budget, -1, time.Millisecond, func(le *LimitError, used int64) {
		endedOn, endedAt = used, max(used, measure(newSamples(), nil).used)
		ended <- le
	})
	defer stop()
	var hold [][]byte
	var le *LimitError
	for le == nil {
		page := make([]byte, 1<<20)
		for i := 0; i < len(page); i += 4096 {
			page[i] = 1 // resident
		}
		hold = append(hold, page) // on past the trip: a computation that does not listen
		select {
		case le = <-ended:
		case <-time.After(time.Millisecond): // a MiB a millisecond: a report being laid out, not a bomb
		}
		if len(hold) > int(2*budget>>20) {
			t.Fatalf("held %d MiB, twice the budget of %d MiB, and the process was not ended", len(hold), budget>>20)
		}
	}
	runtime.KeepAlive(hold)
	hold = nil
	defer debug.FreeOSMemory() // the heap the next test's watchdog sees is its own
	if Stopped(ctx) == nil {
		t.Error("the process was ended without the run being stopped first")
	}
	if endedOn <= budget+budget/200*SlackPercent || endedAt > budget+budget/100*SlackPercent {
		t.Errorf("ended on a sample of %d MiB, holding %d MiB, want past half the slack and within the slack of the budget of %d MiB", endedOn>>20, endedAt>>20, budget>>20)
	}
	if !strings.HasPrefix(le.Limit, "the memory budget of") {
		t.Errorf("ended with %v, want the memory budget named", le)
	}
}

// TestAdmit: work whose memory fits beside what the process holds is admitted; work that does not,
// even after a collection, is refused with a *LimitError naming it, the budget, what it needs and
// what is left; without a watchdog everything is admitted.
func TestAdmit(t *testing.T) {
	if err := Admit("anything", 1<<50); err != nil {
		t.Fatalf("without a watchdog: %v", err)
	}
	budget := (measure(newSamples(), nil).used + 256<<20) &^ (1<<20 - 1)
	_, stop := watchdog.watch(context.Background(), budget, -1, time.Millisecond, nil)
	defer stop()
	tests := []struct {
		name    string
		need    int64
		wantErr string
	}{
		{name: "a little", need: 1 << 20},
		{name: "half of what is left", need: 100 << 20},
		{name: "more than the budget", need: 2 * budget,
			wantErr: "record r.jsonl:7: stopped at the memory budget of " + Size(budget) + ": it needs about " + Approx(2*budget) + ", and "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Admit("record r.jsonl:7", tc.need)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var le *LimitError
			if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tc.wantErr) || !strings.HasSuffix(err.Error(), " of it is left") {
				t.Fatalf("Admit = %v, want a *LimitError starting %q", err, tc.wantErr)
			}
		})
	}
	if Err() != nil {
		t.Errorf("a refusal stopped the run: %v", Err())
	}
}

func TestApprox(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		want string
	}{
		{name: "bytes", n: 512, want: "512 B"},
		{name: "a fraction of a MiB", n: 1536 << 10, want: "1.5 MiB"},
		{name: "hundreds of MiB", n: 230 << 20, want: "230 MiB"},
		{name: "GiB", n: 1717986918, want: "1.6 GiB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Approx(tc.n); got != tc.want {
				t.Errorf("Approx(%d) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
}

// TestExitMessage: what the watchdog prints when it ends the process shows the characters a
// terminal or a CI runner would act on as escapes, so that no name in the message can start a line.
func TestExitMessage(t *testing.T) {
	const tail = " (the process went on growing past the budget after the run was stopped, and was ended)"
	tests := []struct{ name, in, want string }{
		{name: "plain", in: "policy p (p.rego)", want: "policy p (p.rego)"},
		{name: "newline and a command", in: "a\n::error::x", want: `a\n::error::x`},
		{name: "escape and bidi", in: "\x1b[31m\u202e", want: `\u001b[31m\u202e`},
		{name: "line separator", in: "a\u2028b", want: `a\u2028b`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := exitMessage(errors.New(tc.in)), "contractcheck: "+tc.want+tail; got != want {
				t.Errorf("exitMessage(%q) = %q, want %q", tc.in, got, want)
			}
		})
	}
}

// TestResidentMemory: the watchdog reads the process's resident memory, which holds at least the
// pages the process has touched and keeps.
func TestResidentMemory(t *testing.T) {
	r := openRSS()
	if r == nil {
		t.Skip("no /proc/self/statm")
	}
	defer r.close()
	before := r.read()
	page := make([]byte, 64<<20)
	for i := 0; i < len(page); i += 4096 {
		page[i] = 1
	}
	after := r.read()
	runtime.KeepAlive(page)
	page = nil
	debug.FreeOSMemory()
	if before <= 0 || after < 64<<20 {
		t.Errorf("resident memory %d MiB, then %d MiB while holding 64 MiB touched", before>>20, after>>20)
	}
}
