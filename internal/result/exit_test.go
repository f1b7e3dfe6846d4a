package result

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/guard"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name     string
		unstable int
		verdict  string
		want     int
	}{
		{name: "satisfied", verdict: VerdictSatisfied, want: ExitSatisfied},
		{name: "unmet", verdict: VerdictUnmet, want: ExitUnmet},
		{name: "selected nothing is a usage error", verdict: VerdictSelectedNothing, want: ExitInputError},
		{name: "unstable wins over unmet", unstable: 1, verdict: VerdictUnmet, want: ExitInstrument},
		{name: "instrument failed", unstable: 1, verdict: VerdictInstrumentFailed, want: ExitInstrument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{Summary: Summary{Unstable: tc.unstable}, Gate: Gate{Verdict: tc.verdict, Satisfied: tc.verdict == VerdictSatisfied}}
			if got := r.ExitCode(); got != tc.want {
				t.Errorf("exit %d, want %d", got, tc.want)
			}
		})
	}
}

// TestErrorExitCode: an error of a run maps to exit 3 when it is the instrument failing, however
// wrapped, and to 2 otherwise; AsInput classes an error without hiding the instrument failing.
func TestErrorExitCode(t *testing.T) {
	limit := &guard.LimitError{What: "policy p", Limit: "the time limit"}
	tests := []struct {
		name       string
		err        error
		want       int
		instrument bool // AsInput gives an *InstrumentError, else an *InputError
	}{
		{name: "nil", err: nil, want: ExitSatisfied},
		{name: "plain error is input", err: errors.New("bad"), want: ExitInputError},
		{name: "input error", err: &InputError{Err: errors.New("bad")}, want: ExitInputError},
		{name: "instrument error", err: &InstrumentError{Err: errors.New("boom")}, want: ExitInstrument, instrument: true},
		{name: "instrument error wrapped as input", err: &InputError{Err: &InstrumentError{Err: errors.New("boom")}}, want: ExitInstrument, instrument: true},
		{name: "resource limit", err: limit, want: ExitInstrument, instrument: true},
		{name: "resource limit wrapped", err: fmt.Errorf("task T2: %w", limit), want: ExitInstrument, instrument: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExitCode(tc.err); got != tc.want {
				t.Errorf("ExitCode: %d, want %d", got, tc.want)
			}
			classed := AsInput(tc.err)
			if got := ExitCode(classed); got != tc.want {
				t.Errorf("ExitCode(AsInput): %d, want %d", got, tc.want)
			}
			if tc.err == nil {
				if classed != nil {
					t.Errorf("AsInput(nil) = %v", classed)
				}
				return
			}
			var ie *InputError
			var ins *InstrumentError
			if tc.instrument && !errors.As(classed, &ins) || !tc.instrument && !errors.As(classed, &ie) {
				t.Errorf("AsInput: %T, want instrument %v", classed, tc.instrument)
			}
		})
	}
}

// TestFailedReport: the report of a run that failed before its verdict gives exit 3, no verdict
// and the run's error, as the run printed it, whatever its gate would say otherwise.
func TestFailedReport(t *testing.T) {
	err := &InstrumentError{Err: errors.New("policy p.rego: evaluating custom.t7\nat obs/x.jsonl:1")}
	tests := []struct {
		name  string
		scope *Scope
	}{
		{name: "unrestricted"},
		{name: "restricted", scope: &Scope{Lanes: []string{"direct"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Failed("strict", tc.scope, err)
			if r.ExitCode() != ExitInstrument {
				t.Errorf("exit %d, want %d", r.ExitCode(), ExitInstrument)
			}
			if gerr := r.GateError(); gerr == nil || gerr.Error() != err.Error() {
				t.Errorf("GateError %v, want the run's error %q", gerr, err)
			}
			if want := "profile strict the instrument failed (no verdict): 0 bindings"; !strings.HasPrefix(r.Verdict(), want) {
				t.Errorf("Verdict %q, want it to start %q", r.Verdict(), want)
			}
			if r.Gate.Satisfied || r.Len() != 0 || r.Scope != tc.scope || r.ReportVersion != Version || r.Failure.Exit != ExitInstrument {
				t.Errorf("report %+v", r)
			}
		})
	}
}
