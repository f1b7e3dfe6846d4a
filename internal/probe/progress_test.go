package probe

import (
	"testing"
	"time"
)

func TestRunProgress(t *testing.T) {
	for _, tc := range []struct {
		name       string
		run, total int
		elapsed    time.Duration
		want       string
	}{
		{name: "first run", run: 1, total: 30, want: "run 1/30"},
		{name: "time left from the runs before", run: 11, total: 30, elapsed: 20 * time.Second, want: "run 11/30, about 40s left"},
		{name: "last run", run: 30, total: 30, elapsed: time.Minute, want: "run 30/30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runProgress(tc.run, tc.total, tc.elapsed); got != tc.want {
				t.Errorf("runProgress = %q, want %q", got, tc.want)
			}
		})
	}
}
