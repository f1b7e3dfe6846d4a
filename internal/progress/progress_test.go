package progress

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestNilCounterDoesNothing(t *testing.T) {
	var c *Counter
	c.AddTotalBytes(10)
	c.AddTotalRecords(3)
	c.AddBytes(5)
	c.Done(1)
	if s := c.Snapshot(); s != (Snapshot{}) {
		t.Errorf("a nil counter's snapshot is %+v", s)
	}
	if From(context.Background()) != nil {
		t.Error("a context without a counter gave one")
	}
}

func TestFraction(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      Snapshot
		want   float64
		wantOK bool
	}{
		{name: "nothing known", s: Snapshot{Records: 5}},
		{name: "bytes", s: Snapshot{Bytes: 25, BytesTotal: 100, Records: 1, RecordsTotal: 2}, want: 0.25, wantOK: true},
		{name: "records without bytes", s: Snapshot{Records: 1, RecordsTotal: 4}, want: 0.25, wantOK: true},
		{name: "an input of unknown size", s: Snapshot{Bytes: 25, BytesTotal: 100, Unknown: true}},
		{name: "never past the end", s: Snapshot{Bytes: 120, BytesTotal: 100}, want: 1, wantOK: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.s.Fraction()
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Fraction() = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestStartOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{name: "quiet", opts: Options{Mode: Off, Terminal: true}},
		{name: "auto where no terminal", opts: Options{Mode: Auto}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bytes.Buffer
			ctx, m := Start(context.Background(), &w, tc.opts)
			From(ctx).Done(3) // a loop bumps nothing: no counter
			m.Stop()
			if m != nil || From(ctx) != nil || w.Len() != 0 {
				t.Errorf("meter %v, counter %v, output %q: want none", m, From(ctx), w.String())
			}
		})
	}
}

// TestPlainLines: where standard error is no terminal, --progress writes whole lines without a
// carriage return or an escape, and a last line saying what was done.
func TestPlainLines(t *testing.T) {
	var w bytes.Buffer
	ctx, m := Start(context.Background(), &w, Options{Mode: On, Label: "check", What: "records", PlainInterval: time.Hour})
	c := From(ctx)
	c.AddTotalBytes(1000)
	c.AddBytes(400)
	c.Done(40)
	m.Stop()
	m.Stop() // a second Stop does nothing
	out := w.String()
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("plain progress holds a carriage return or an escape: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || lines[0] != "check: starting" || !strings.HasPrefix(lines[1], "check: 40 records in ") {
		t.Errorf("lines %q: want the first draw and the last line", lines)
	}
}

// TestBarCleared: on a terminal the bar is drawn and cleared when the meter stops, so that the
// report starts on a clean line.
func TestBarCleared(t *testing.T) {
	var w bytes.Buffer
	ctx, m := Start(context.Background(), &w, Options{Mode: Auto, Terminal: true, Label: "check", Interval: time.Hour})
	From(ctx).Done(7)
	m.Stop()
	out := w.String()
	if !strings.Contains(out, "check: starting") {
		t.Errorf("no bar drawn: %q", out)
	}
	if strings.Contains(out, "\n") {
		t.Errorf("the bar wrote a line break: %q", out)
	}
	last := out[strings.LastIndexByte(out[:len(out)-1], '\r'):]
	if strings.Trim(last, " \r") != "" {
		t.Errorf("the bar was not cleared at the end: %q", last)
	}
}

// TestNotShownBeforeDelay: a run shorter than the delay shows nothing.
func TestNotShownBeforeDelay(t *testing.T) {
	var w bytes.Buffer
	ctx, m := Start(context.Background(), &w, Options{Mode: On, Terminal: true, Delay: time.Hour})
	From(ctx).Done(7)
	m.Stop()
	if w.Len() != 0 {
		t.Errorf("a short run showed %q", w.String())
	}
}

func TestLine(t *testing.T) {
	start := time.Unix(1000, 0)
	m := &Meter{opts: Options{Label: "check", What: "records"}, start: start}
	m.first, m.base = start.Add(time.Second), Snapshot{Records: 10, Bytes: 100, BytesTotal: 1000}
	for _, tc := range []struct {
		name  string
		s     Snapshot
		at    time.Duration
		final bool
		want  string
	}{
		{name: "starting", s: Snapshot{}, at: time.Second, want: "check: starting"},
		{name: "rate and time left", s: Snapshot{Records: 110, Bytes: 550, BytesTotal: 1000}, at: 3 * time.Second, want: "check: 110 records, 50/s, 2s left (55%)"},
		{name: "records of a known number", s: Snapshot{Records: 30, RecordsTotal: 40}, at: 3 * time.Second, want: "check: 30/40 records, 10/s, 1s left (75%)"},
		{name: "final", s: Snapshot{Records: 210, Bytes: 1000, BytesTotal: 1000}, at: 5 * time.Second, final: true, want: "check: 210 records in 5s (50/s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.Line(tc.s, start.Add(tc.at), tc.final); got != tc.want {
				t.Errorf("Line = %q, want %q", got, tc.want)
			}
		})
	}
}
