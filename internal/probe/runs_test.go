package probe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestMaxFailures: after MaxFailures consecutive runs failed the same way the probe stops, says
// so, and every run not run is execution_failed "not run: …", never a gap; 0 never stops, and
// runs that pass, or fail after the MCP server served their fixture, do not count.
func TestMaxFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		mode                 string
		env                  []string
		timeout              time.Duration
		max                  int
		wantRuns, wantNotRun int
		wantWhy              string
	}{
		{name: "stops after 2 alike", mode: "exit1", max: 2, wantRuns: 2, wantNotRun: 3},
		{name: "0 never stops", mode: "exit1", max: 0, wantRuns: 5},
		{name: "more than the runs", mode: "exit1", max: 9, wantRuns: 5},
		// Failures after the fixture was served may be the fixture's doing: they never stop it.
		{name: "failures after a fixture was served", mode: "no-followup", max: 2, wantRuns: 5},
		// A hang costs the whole timeout: hangs alike stop it, served or not.
		{name: "hangs after a fixture was served", mode: "agent", env: []string{"TESTAGENT_API=openai-chat", "TESTAGENT_MODE=hang-after-call"},
			timeout: time.Second, max: 2, wantRuns: 2, wantNotRun: 3, wantWhy: "the command did not finish within --run-timeout 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each case probes into its own directory: the cases run together, so that the
			// hangs' timeouts do not add up.
			t.Parallel()
			o := probeOpts(t, tt.mode, tt.env, "C0[1-5]")
			o.Provider = "openai-chat"
			o.MaxFailures = tt.max
			if tt.timeout > 0 {
				o.RunTimeout = tt.timeout
			}
			why := tt.wantWhy
			if why == "" {
				why = "the command exited with exit status 1"
			}
			res, log := runLogged(t, o)
			if res.Runs != tt.wantRuns || res.NotRun != tt.wantNotRun || res.Failed != 5 || res.Captured != 0 {
				t.Fatalf("result %+v\n%s", res, log)
			}
			recs := readRecords(t, o)
			notRun := 0
			for _, id := range []string{"C01", "C02", "C03", "C04", "C05"} {
				h4 := h4Of(t, recs, id, 1)
				if h4.State != "execution_failed" {
					t.Errorf("%s H4 %+v", id, h4)
				}
				if strings.HasPrefix(h4.Error, "not run: probe stopped after 2 consecutive runs failed the same way (--max-failures 2): "+why) {
					notRun++
				}
			}
			if notRun != tt.wantNotRun {
				t.Errorf("%d records say not run, want %d", notRun, tt.wantNotRun)
			}
			said := strings.Contains(log, "probe: stopped after 2 consecutive runs failed the same way")
			if said != (tt.wantNotRun > 0) {
				t.Errorf("the log says it stopped: %v, want %v\n%s", said, tt.wantNotRun > 0, log)
			}
		})
	}
	t.Run("runs that pass, with 1", func(t *testing.T) {
		// Only failures count: a probe whose runs pass runs them all.
		o := probeOpts(t, "agent", []string{"TESTAGENT_API=openai-chat"}, "C0[1-9]")
		o.MaxFailures = 1
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if res.NotRun != 0 || res.Runs != 9 {
			t.Errorf("a probe with no failure stopped: %+v", res)
		}
	})
}

// TestBatchResume: a framework that stops at its step cap with fixtures left uncalled is resumed
// in a fresh process with those, until every fixture was called; the lines count the runs and
// the fixtures of each truthfully.
func TestBatchResume(t *testing.T) {
	t.Parallel()
	o := probeOpts(t, "agent", []string{"TESTAGENT_API=openai-chat", "TESTAGENT_MAX_TURNS=2"}, "C0[5-9]")
	o.Batch = true
	res, log := runLogged(t, o)
	// Each run: the first fixture captured, the second called but its result never sent on
	// (the cap), the rest resumed.
	if res.Runs != 3 || res.Captured != 3 || res.Failed != 2 {
		t.Fatalf("result %+v\n%s", res, log)
	}
	recs := readRecords(t, o)
	for _, id := range []string{"C05", "C06", "C07", "C08", "C09"} {
		if h4 := h4Of(t, recs, id, 1); strings.Contains(h4.Error, "never got to call the tool") {
			t.Errorf("%s was never called: %s", id, h4.Error)
		}
	}
	for _, w := range []string{
		"probe: C05 repetition 1: captured (fixture 1/5 of run 1/1)",
		"probe: repetition 1: the command ended with 3 of 5 fixtures not called (a step cap?): resuming them in a fresh process",
		"probe: C07 repetition 1: captured (fixture 1/3 of run 2/2",
		"probe: repetition 1: the command ended with 1 of 3 fixtures not called",
		"probe: C09 repetition 1: captured (fixture 1/1 of run 3/3",
	} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
}

// TestFailureSignature: two failures are alike when their message is, whatever the command's
// output tail, the fixture, the run's URL token or its port.
func TestFailureSignature(t *testing.T) {
	t.Parallel()
	c09, c07 := []fixture{{id: "C09"}}, []fixture{{id: "C07"}}
	sig := func(msg string, fs []fixture) string {
		return failureSignature([]record{{Position: result.Position{Stage: "H4"}, State: "execution_failed", Error: msg}}, fs)
	}
	tests := []struct {
		name  string
		a, b  string
		fa    []fixture
		fb    []fixture
		alike bool
	}{
		{"output tails differ", "the command exited with exit status 1; the command's output ended with: 12:00:01 boom", "the command exited with exit status 1; the command's output ended with: 12:00:02 boom", c09, c07, true},
		{"fixture ids differ", "the fake model never got to call the tool for C09: 2 model requests", "the fake model never got to call the tool for C07: 2 model requests", c09, c07, true},
		{"run tokens differ", "POST /r/0123456789abcdef/mcp: refused", "POST /r/fedcba9876543210/mcp: refused", c09, c07, true},
		// Each run has a port of its own (probe.go, hub).
		{"run ports differ", "dial tcp 127.0.0.1:40001: connection reset", "dial tcp 127.0.0.1:40002: connection reset", c09, c07, true},
		{"causes differ", "the command exited with exit status 1", "the command exited with exit status 2", c09, c09, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sig(tt.a, tt.fa) == sig(tt.b, tt.fb); got != tt.alike {
				t.Errorf("alike %v, want %v: %q, %q", got, tt.alike, sig(tt.a, tt.fa), sig(tt.b, tt.fb))
			}
		})
	}
	if s := failureSignature([]record{{Position: result.Position{Stage: "H4"}, State: "captured"}}, c09); s != "" {
		t.Errorf("a run that passed has signature %q", s)
	}
}
