package guard

import (
	"context"
	"errors"
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
	ctx, stop := watchdog.watch(context.Background(), budget, -1, time.Millisecond)
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

// TestWatchSetsTheTarget: while the watchdog runs, the Go soft memory limit is the target (the
// test's heap is far below it), and stopping the watchdog restores the previous limit.
func TestWatchSetsTheTarget(t *testing.T) {
	const target = 512 << 20
	prev := debug.SetMemoryLimit(-1)
	_, stop := watchdog.watch(context.Background(), 8<<30, target, time.Millisecond)
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
