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
		{name: "input error made by Inputf", err: Inputf("--jobs %d is below 1", -1), want: ExitInputError},
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

// TestInputf: Inputf is an *InputError whose message is fmt.Errorf's, what it wraps kept.
func TestInputf(t *testing.T) {
	cause := errors.New("no such file")
	err := Inputf("--output %q: %w", "out", cause)
	var ie *InputError
	if !errors.As(err, &ie) || err.Error() != `--output "out": no such file` || !errors.Is(err, cause) {
		t.Errorf("Inputf = %T %q, want an *InputError saying --output \"out\": no such file and wrapping the cause", err, err)
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

// TestLackingErr: the message beside exit 2 for an incomplete census names the first five
// lacking bindings and error decisions, and says how many more the JSON report lists.
func TestLackingErr(t *testing.T) {
	binding := func(f string) Binding {
		return Binding{Position: Position{Fixture: f, Lane: "direct", LaneVersion: "v1", Configuration: "default", Stage: "D1"}, Task: "T1"}
	}
	var bindings []Binding
	for _, f := range []string{"C01", "C02", "C03", "C04", "C05", "C06"} {
		bindings = append(bindings, binding(f))
	}
	decision := DecisionError{At: "opa.log:3", Decision: "id-1", Error: `{"code":"eval_error"}`}
	const (
		head    = "the census is incomplete and gives no verdict: "
		lack    = "the decision logs lack %d of the %d expected bindings (restrict the run with --lane, --fixture, … to what was judged, or post what is lacking); lacking:\n"
		errs    = "%d decisions in the logs are errors, not verdicts: what was posted there was not judged (fix what the service posts: the position must be one the bundle's contract set knows); errors:\n"
		first5  = "C01 direct v1 default D1 T1\nC02 direct v1 default D1 T1\nC03 direct v1 default D1 T1\nC04 direct v1 default D1 T1\nC05 direct v1 default D1 T1"
		decided = `opa.log:3: decision "id-1": {"code":"eval_error"}`
	)
	tests := []struct {
		name    string
		lacking Lacking
		want    string
	}{
		{name: "all listed", lacking: Lacking{Expected: 4, Held: 2, Count: 2, First: bindings[:2]},
			want: head + fmt.Sprintf(lack, 2, 4) + "C01 direct v1 default D1 T1\nC02 direct v1 default D1 T1"},
		{name: "more than five", lacking: Lacking{Expected: 9, Held: 1, Count: 8, First: bindings},
			want: head + fmt.Sprintf(lack, 8, 9) + first5 + "\n(and 3 more: the JSON report's lacking member lists the first 6)"},
		{name: "errors only", lacking: Lacking{Expected: 3, Held: 3, Errors: &DecisionErrors{Count: 1, First: []DecisionError{decision}}},
			want: head + fmt.Sprintf(errs, 1) + decided},
		{name: "both, errors past the list", lacking: Lacking{Expected: 2, Held: 1, Count: 1, First: bindings[:1], Errors: &DecisionErrors{Count: 4, First: []DecisionError{decision}}},
			want: head + fmt.Sprintf(lack, 1, 2) + "C01 direct v1 default D1 T1;\n" + fmt.Sprintf(errs, 4) + decided + "\n(and 3 more: the JSON report's lacking.errors member lists the first 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.lacking.Err().Error(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
