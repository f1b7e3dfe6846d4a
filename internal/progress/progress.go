// Package progress shows how far a long run is, on standard error only: the records done, their
// rate and the time left. The loops that read records (internal/check/pipeline's, challenge's
// cases, probe's runs) bump a Counter that the run's context carries (From); a Meter started by the verb
// reads it every Interval and draws a bar on a terminal (github.com/schollz/progressbar), or
// writes a plain line every PlainInterval where standard error is not one (a CI log), and clears
// the bar before the report is written. Nothing of it reaches standard output or a report: a run
// with or without progress writes byte-identical reports.
package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	xterm "golang.org/x/term"
)

// Counter is what a run has done so far: the workers bump it (atomic adds, nothing else), the
// Meter reads it. The methods of a nil Counter do nothing, so a loop bumps From(ctx) whether or
// not a meter watches.
type Counter struct {
	records, recordsTotal atomic.Int64
	bytes, bytesTotal     atomic.Int64
	unknown               atomic.Bool // some input's size is not known up front (standard input)
}

// AddTotalBytes adds the size of an input read through AddBytes; a negative size is an input of
// unknown size.
func (c *Counter) AddTotalBytes(n int64) {
	if c == nil {
		return
	}
	if n < 0 {
		c.unknown.Store(true)
		return
	}
	c.bytesTotal.Add(n)
}

// AddTotalRecords adds to the number of records (cases, runs) the run will do, where that is
// known up front and the size in bytes is not.
func (c *Counter) AddTotalRecords(n int) {
	if c != nil {
		c.recordsTotal.Add(int64(n))
	}
}

// AddBytes counts n bytes of input read.
func (c *Counter) AddBytes(n int64) {
	if c != nil {
		c.bytes.Add(n)
	}
}

// Done counts n records (cases, runs) done.
func (c *Counter) Done(n int) {
	if c != nil {
		c.records.Add(int64(n))
	}
}

// Snapshot is a Counter read at one time.
type Snapshot struct {
	Records, RecordsTotal int64
	Bytes, BytesTotal     int64
	// Unknown says the total is not known: the run reads an input of unknown size.
	Unknown bool
}

// Snapshot reads the counter.
func (c *Counter) Snapshot() Snapshot {
	if c == nil {
		return Snapshot{}
	}
	return Snapshot{
		Records: c.records.Load(), RecordsTotal: c.recordsTotal.Load(),
		Bytes: c.bytes.Load(), BytesTotal: c.bytesTotal.Load(), Unknown: c.unknown.Load(),
	}
}

// Fraction is how much of the run is done, from the bytes read when their total is known, else
// from the records; ok is false when no total is known.
func (s Snapshot) Fraction() (f float64, ok bool) {
	switch {
	case s.Unknown:
		return 0, false
	case s.BytesTotal > 0:
		return min(float64(s.Bytes)/float64(s.BytesTotal), 1), true
	case s.RecordsTotal > 0:
		return min(float64(s.Records)/float64(s.RecordsTotal), 1), true
	}
	return 0, false
}

type counterKey struct{}

// With returns a context that carries c to the loops that bump it.
func With(ctx context.Context, c *Counter) context.Context {
	return context.WithValue(ctx, counterKey{}, c)
}

// From is the Counter ctx carries, or nil (whose methods do nothing).
func From(ctx context.Context) *Counter {
	c, _ := ctx.Value(counterKey{}).(*Counter)
	return c
}

// Mode says when progress is shown.
type Mode int

const (
	// Auto shows progress when standard error is a terminal.
	Auto Mode = iota
	// On shows progress always: a bar on a terminal, plain lines elsewhere (--progress).
	On
	// Off shows none (--quiet).
	Off
)

// Options say how a Meter shows progress.
type Options struct {
	Mode Mode
	// Label names the run at the start of the line (the verb: "check").
	Label string
	// What counts the records ("records", "cases", "runs").
	What string
	// Delay is how long a run goes before progress is shown (DefaultDelay, so that a short run
	// shows none); 0 shows it at once, from Start on.
	Delay time.Duration
	// Terminal says w is a terminal (IsTerminal): a bar is drawn, else plain lines are written.
	Terminal bool
	// Interval is how often the bar is redrawn (DefaultInterval when 0); PlainInterval how often
	// a plain line is written (DefaultPlainInterval when 0).
	Interval, PlainInterval time.Duration
}

// The defaults of Options.
const (
	DefaultDelay         = time.Second
	DefaultInterval      = 100 * time.Millisecond
	DefaultPlainInterval = 5 * time.Second
)

// IsTerminal says whether w is a terminal (what golang.org/x/term says is one).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && xterm.IsTerminal(int(f.Fd()))
}

// Meter shows a Counter's progress on a writer until it is stopped.
type Meter struct {
	c     *Counter
	w     io.Writer
	opts  Options
	tty   bool
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	start time.Time

	// Read and written by the meter's goroutine only, then by Stop after it ended.
	bar   *progressbar.ProgressBar
	shown bool     // something was written
	base  Snapshot // the counter at first
	known bool     // the bar shows a share of a known total (else it is a spinner)
	first time.Time
}

// Start returns ctx carrying a new Counter and the Meter that shows it on w (standard error) as
// opts say; with Mode Off, or Auto where w is no terminal (opts.Terminal), ctx is returned as it is and the Meter
// does nothing. Stop the meter before the report is written.
func Start(ctx context.Context, w io.Writer, opts Options) (context.Context, *Meter) {
	tty := opts.Terminal
	if opts.Mode == Off || (opts.Mode == Auto && !tty) {
		return ctx, nil
	}
	if opts.Interval == 0 {
		opts.Interval = DefaultInterval
	}
	if opts.PlainInterval == 0 {
		opts.PlainInterval = DefaultPlainInterval
	}
	if opts.What == "" {
		opts.What = "records"
	}
	m := &Meter{c: &Counter{}, w: w, opts: opts, tty: tty, stop: make(chan struct{}), done: make(chan struct{}), start: time.Now()}
	if opts.Delay <= 0 {
		m.draw(m.start) // before the goroutine: it owns the drawing from then on
	}
	go m.run()
	return With(ctx, m.c), m
}

// run waits for the delay, then draws until stopped.
func (m *Meter) run() {
	defer close(m.done)
	every := m.opts.Interval
	if !m.tty {
		every = m.opts.PlainInterval
	}
	wait := m.opts.Delay
	if wait <= 0 {
		wait = every // Start drew at once
	}
	select {
	case <-m.stop:
		return
	case <-time.After(wait):
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		m.draw(time.Now())
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
	}
}

// Stop ends the meter: on a terminal the bar is cleared, elsewhere a last line says what was
// done (when progress was shown at all). It may be called more than once, and on a nil Meter.
func (m *Meter) Stop() {
	if m == nil {
		return
	}
	m.once.Do(func() {
		close(m.stop)
		<-m.done
		if !m.shown {
			return
		}
		if m.bar != nil {
			_ = m.bar.Exit()
			_ = m.bar.Clear()
			return
		}
		fmt.Fprintln(m.w, m.Line(m.c.Snapshot(), time.Now(), true))
	})
}

// draw shows the counter as it is at now.
func (m *Meter) draw(now time.Time) {
	s := m.c.Snapshot()
	if m.first.IsZero() && (s.Records > 0 || s.Bytes > 0) {
		// The rate is measured from the first draw that saw work done, not from the loading
		// before it, and only over what was done since.
		m.first, m.base = now, s
	}
	m.shown = true
	if !m.tty {
		fmt.Fprintln(m.w, m.Line(s, now, false))
		return
	}
	_, known := s.Fraction()
	if m.bar != nil && known != m.known {
		// The total became known after the bar started (the inputs are listed after loading):
		// the spinner gives way to a bar.
		_ = m.bar.Exit()
		_ = m.bar.Clear()
		m.bar = nil
	}
	if m.bar == nil {
		m.known = known
		max := int64(-1)
		if known {
			max = 1000
		}
		m.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(m.w),
			progressbar.OptionSetTheme(progressbar.ThemeASCII),
			progressbar.OptionSetWidth(20),
			progressbar.OptionThrottle(m.opts.Interval/2),
			progressbar.OptionSetRenderBlankState(true),
			// The meter turns the spinner: the library's own goroutine for it would go on
			// drawing after the bar is cleared (it stops only at a finished bar).
			progressbar.OptionSetSpinnerChangeInterval(0),
			progressbar.OptionSetPredictTime(false), // the description says the time left
			progressbar.OptionSetElapsedTime(false),
			progressbar.OptionSetDescription(m.describe(s, now)),
		)
	}
	m.bar.Describe(m.describe(s, now))
	if f, ok := s.Fraction(); ok {
		_ = m.bar.Set64(min(int64(f*1000), 999)) // the bar ends when the meter stops, not before
	} else {
		_ = m.bar.Add64(1) // the spinner turns
	}
}

// describe is the bar's text: the label, the records done, the rate and the time left.
func (m *Meter) describe(s Snapshot, now time.Time) string {
	if s == (Snapshot{}) {
		return m.opts.Label + ": starting" // loading what the run needs
	}
	d := fmt.Sprintf("%s: %d %s", m.opts.Label, s.Records, m.opts.What)
	if s.RecordsTotal > 0 && s.BytesTotal == 0 && !s.Unknown {
		d = fmt.Sprintf("%s: %d/%d %s", m.opts.Label, s.Records, s.RecordsTotal, m.opts.What)
	}
	if r, ok := m.rate(s, now); ok {
		d += fmt.Sprintf(", %.0f/s", r)
	}
	if left, ok := m.left(s, now); ok {
		d += ", " + left.Round(time.Second).String() + " left"
	}
	return d
}

// Line is a plain line of progress (no carriage return, no escape), for a log; final says the run
// is over.
func (m *Meter) Line(s Snapshot, now time.Time, final bool) string {
	if final {
		line := fmt.Sprintf("%s: %d %s in %s", m.opts.Label, s.Records, m.opts.What, now.Sub(m.start).Round(100*time.Millisecond))
		if r, ok := m.rate(s, now); ok {
			line += fmt.Sprintf(" (%.0f/s)", r)
		}
		return line
	}
	line := m.describe(s, now)
	if f, ok := s.Fraction(); ok {
		line += fmt.Sprintf(" (%.0f%%)", 100*f)
	}
	return line
}

// rate is the records done a second since the first.
func (m *Meter) rate(s Snapshot, now time.Time) (float64, bool) {
	from, base := m.first, m.base
	if from.IsZero() {
		from, base = m.start, Snapshot{} // no draw saw work done: the run was short
	}
	el := now.Sub(from).Seconds()
	if s.Records == 0 || el < 0.2 {
		return 0, false
	}
	return float64(s.Records-base.Records) / el, true
}

// left estimates the time left from the share done since the first record.
func (m *Meter) left(s Snapshot, now time.Time) (time.Duration, bool) {
	f, ok := s.Fraction()
	f0, _ := m.base.Fraction()
	if !ok || f <= f0 || m.first.IsZero() {
		return 0, false
	}
	el := now.Sub(m.first)
	if el < 500*time.Millisecond {
		return 0, false
	}
	return time.Duration(float64(el) * (1 - f) / (f - f0)), true
}
