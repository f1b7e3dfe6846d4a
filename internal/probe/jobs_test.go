package probe

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestJobsIdentical: a probe of runs made four at once writes the records, probe.json, probe.cue
// and traffic files of the same probe made one run at a time, byte for byte, and the same lines
// (but the time left), the command's output with Verbose each run's together: with failures mixed
// in, their output hostile, with --max-failures stopping the probe, with --traffic, and in batch
// mode, resumed runs and all. The runs end out of order
// (mode mixed pauses at random first). Five fixtures a case are enough for four jobs to end out
// of order and for a failure to lie between captures (each run is a process: more cost CPU, not
// coverage).
func TestJobsIdentical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		env        []string
		fixtures   []string
		reps       int
		max        int
		batch      bool
		traffic    bool
		verbose    bool
		wantNotRun bool
	}{
		{name: "failures mixed in", env: []string{"TESTAGENT_FAIL=C02,C04"}, fixtures: []string{"C0[1-5]"}, reps: 2, max: 3},
		{name: "verbose, failures mixed in", env: []string{"TESTAGENT_FAIL=C02,C05"}, fixtures: []string{"C0[1-5]"}, reps: 2, max: 3, verbose: true},
		{name: "max-failures stops", env: []string{"TESTAGENT_FAIL=C03,C04"}, fixtures: []string{"C0[1-5]"}, reps: 2, max: 2, wantNotRun: true},
		{name: "traffic", env: []string{"TESTAGENT_FAIL=C03"}, fixtures: []string{"C0[1-5]"}, reps: 2, max: 3, traffic: true},
		{name: "traffic and max-failures", env: []string{"TESTAGENT_FAIL=C02,C03"}, fixtures: []string{"C0[1-5]"}, reps: 1, max: 2, traffic: true, wantNotRun: true},
		{name: "batch, resumed", env: []string{"TESTAGENT_MAX_TURNS=2"}, fixtures: []string{"C0[5-9]"}, reps: 3, batch: true, traffic: true},
		{name: "batch, max-failures stops", env: []string{"TESTAGENT_FAIL=batch"}, fixtures: []string{"C0[5-9]"}, reps: 5, max: 2, batch: true, wantNotRun: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each case probes into its own directory, and a probe ends only what its own runs
			// left behind (their process group and marker): the cases may run together, which
			// keeps their pauses (mode mixed, the runs' ends) from adding up.
			t.Parallel()
			probeWith := func(jobs int) (Options, *Result, string) {
				o := probeOpts(t, "mixed", append([]string{"TESTAGENT_API=openai-chat"}, tt.env...), tt.fixtures...)
				o.Provider = "openai-chat"
				o.Repetitions, o.MaxFailures, o.Batch, o.Traffic, o.Verbose, o.Jobs = tt.reps, tt.max, tt.batch, tt.traffic, tt.verbose, jobs
				var log bytes.Buffer
				o.Log = &log
				res, err := Run(context.Background(), o)
				if err != nil {
					t.Fatalf("jobs %d: %v\n%s", jobs, err, log.String())
				}
				return o, res, log.String()
			}
			one, resOne, logOne := probeWith(1)
			four, resFour, logFour := probeWith(4)
			if (resOne.NotRun > 0) != tt.wantNotRun || resOne.Failed == 0 && len(tt.env) > 0 && !tt.batch {
				t.Fatalf("jobs 1: result %+v, want not run: %v\n%s", resOne, tt.wantNotRun, logOne)
			}
			if !reflect.DeepEqual(resOne, resFour) {
				t.Errorf("results differ:\njobs 1: %+v\njobs 4: %+v", resOne, resFour)
			}
			filesOne, filesFour := testkit.Tree(t, one.Output), testkit.Tree(t, four.Output)
			if tt.traffic && !hasPrefixKey(filesOne, TrafficDir+"/") {
				t.Fatalf("no traffic written: %v", keysOf(filesOne))
			}
			for name, data := range filesOne {
				if !bytes.Equal(filesFour[name], data) {
					t.Errorf("%s differs:\njobs 1: %.2000s\njobs 4: %.2000s", name, data, filesFour[name])
				}
			}
			for name := range filesFour {
				if _, ok := filesOne[name]; !ok {
					t.Errorf("jobs 4 wrote %s, jobs 1 did not", name)
				}
			}
			if a, b := timeLeft.ReplaceAllString(logOne, ""), timeLeft.ReplaceAllString(logFour, ""); a != b {
				t.Errorf("the lines differ:\njobs 1:\n%s\njobs 4:\n%s", a, b)
			}
			if tt.verbose && !strings.Contains(logFour, `::error file=x::pwned\u001b[31m`) {
				t.Errorf("the failing runs' output is not in the log, escaped:\n%s", logFour)
			}
			if strings.ContainsAny(logFour, "\x00\x1b\u202e\x07") {
				t.Errorf("a control character reached the log:\n%q", logFour)
			}
		})
	}
}

// timeLeft is the time-left part of a run's line, which varies from probe to probe.
var timeLeft = regexp.MustCompile(`, about [0-9hms.]+ left`)

func hasPrefixKey(m map[string][]byte, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestJobsMemoryBudget: when the memory budget stops the probe (the watchdog trips) while runs
// are made at once, every running run is ended and the probe fails with the budget's error, an
// instrument failure (exit 3), not a usage error. It is not parallel: the watchdog is the
// process's (package guard: one budget and one watchdog cover whatever runs in a process), and
// Trip stops every run in it, so it runs alone, before the package's parallel tests resume.
func TestJobsMemoryBudget(t *testing.T) {
	ctx, stop := guard.Watch(guard.WithLimits(context.Background(), guard.Limits{Memory: 4 << 30, Target: -1}))
	defer stop()
	o := probeOpts(t, "hang", nil, "C07", "C08", "C09")
	// The runs would hang for the hour were they not ended when the budget stops the probe.
	o.Provider, o.Jobs, o.RunTimeout = "openai-chat", 3, time.Hour
	go func() {
		time.Sleep(300 * time.Millisecond)
		guard.Trip()
	}()
	_, err := Run(ctx, o)
	var le *guard.LimitError
	if !errors.As(err, &le) || result.ExitCode(err) != result.ExitInstrument {
		t.Fatalf("error %v (exit %d), want the budget's, exit %d", err, result.ExitCode(err), result.ExitInstrument)
	}
}
