package probe

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestRunProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		run, total int
		elapsed    time.Duration
		want       string
	}{
		{name: "first run", run: 1, total: 30, elapsed: 3 * time.Second, want: "run 1/30, about 1m27s left"},
		{name: "time left from the runs ended", run: 10, total: 30, elapsed: 20 * time.Second, want: "run 10/30, about 40s left"},
		{name: "nothing left to speak of", run: 1, total: 2, elapsed: 100 * time.Millisecond, want: "run 1/2"},
		{name: "last run", run: 30, total: 30, elapsed: time.Minute, want: "run 30/30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runProgress(tc.run, tc.total, tc.elapsed); got != tc.want {
				t.Errorf("runProgress = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRunLines: a probe's progress is its line per run, with the run's number of all (and the
// time left, which varies); Quiet leaves the lines out and the records the same.
func TestRunLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		quiet bool
		want  []string
	}{
		{name: "lines", want: []string{"probe: C07 repetition 1: captured (run 1/2)\n", "probe: C09 repetition 1: captured (run 2/2)\n"}},
		{name: "quiet", quiet: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := probeOpts(t, "agent", []string{"TESTAGENT_API=openai-chat"}, "C09", "C07")
			o.Quiet = tc.quiet
			var log bytes.Buffer
			o.Log = &log
			if _, err := Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			// The time left is the machine's: a slow one says it after the first run.
			if got := timeLeft.ReplaceAllString(log.String(), ""); got != strings.Join(tc.want, "") {
				t.Errorf("log %q, want %q", got, tc.want)
			}
		})
	}
}
