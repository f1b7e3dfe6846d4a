package result

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/guard"
)

// Exit codes of a check, as SPEC §5 defines them.
const (
	// ExitSatisfied: the profile is satisfied.
	ExitSatisfied = 0
	// ExitUnmet: a required contract is unmet.
	ExitUnmet = 1
	// ExitInputError: bad input or usage, or a gate that selected nothing.
	ExitInputError = 2
	// ExitInstrument: the instrument failed; no verdict can be trusted.
	ExitInstrument = 3
)

// ExitCode is a property of the report: 3 when the instrument failed (unstable repetitions, or
// a run that failed before its verdict: Failure), 2 when the gate selected nothing (a profile
// with no requirement, or a requirement that gated no binding) or a census read from decision
// logs is incomplete (Lacking: bindings lacking, or decisions that are errors), 1 when a required
// contract is unmet, 0 when the profile is satisfied.
func (r *Report) ExitCode() int {
	switch {
	case r.Failure != nil:
		return r.Failure.Exit
	case r.Summary.Unstable > 0 || r.Gate.Verdict == VerdictInstrumentFailed:
		return ExitInstrument
	case r.Gate.Verdict == VerdictSelectedNothing || r.Gate.Verdict == VerdictIncomplete || r.Lacking != nil:
		return ExitInputError
	case !r.Gate.Satisfied:
		return ExitUnmet
	}
	return ExitSatisfied
}

// GateError explains a verdict that is not a plain pass or fail, for the message beside the exit
// code: the run's failure, the unstable bindings, or the requirements that gated nothing. It is
// nil otherwise.
func (r *Report) GateError() error {
	if r.Failure != nil {
		return errors.New(r.Failure.Error)
	}
	switch r.Gate.Verdict {
	case VerdictInstrumentFailed:
		return fmt.Errorf("the instrument failed: %d bindings are unstable (their repetitions disagree); no verdict can be given", r.Summary.Unstable)
	case VerdictSelectedNothing:
		if len(r.Gate.Requirements) == 0 {
			return fmt.Errorf("profile %s requires nothing: a gate that selects no binding cannot pass (add a requirement)", r.Profile)
		}
		var lines []string
		if scope := r.ScopeText(); scope != "" {
			lines = append(lines, "the run is restricted to "+scope+", and no requirement gates a binding within it")
		}
		for _, q := range r.Gate.Requirements {
			if q.Unmatched == "" {
				continue
			}
			at := ""
			if q.Position != "" {
				at = q.Position + ": "
			}
			lines = append(lines, fmt.Sprintf("%s%s (%q) gates no binding: %s", at, q.Name, q.Doc, q.Unmatched))
		}
		return fmt.Errorf("profile %s: a requirement selected nothing, so the gate cannot pass:\n%s", r.Profile, strings.Join(lines, "\n"))
	}
	if r.Lacking != nil {
		return r.Lacking.Err()
	}
	if r.Gate.Verdict == VerdictIncomplete {
		// A census read while its writer runs (check --census): the parts written so far.
		return errors.New("the census is still being written (no completion marker): the report covers the parts written so far and gives no verdict")
	}
	return nil
}

// Err says what a census lacks, with the first few lacking bindings, for the message beside exit
// code 2.
func (l *Lacking) Err() error {
	var parts []string
	if l.Count > 0 {
		parts = append(parts, fmt.Sprintf("the decision logs lack %d of the %d expected bindings (restrict the run with --lane, --fixture, … to what was judged, or post what is lacking); lacking:\n%s",
			l.Count, l.Expected, firstFew(l.First, l.Count, "lacking")))
	}
	if e := l.Errors; e != nil && e.Count > 0 {
		parts = append(parts, fmt.Sprintf("%d decisions in the logs are errors, not verdicts: what was posted there was not judged (fix what the service posts: the position must be one the bundle's contract set knows); errors:\n%s",
			e.Count, firstFew(e.First, e.Count, "lacking.errors")))
	}
	return fmt.Errorf("the census is incomplete and gives no verdict: %s", strings.Join(parts, ";\n"))
}

// firstFew is the first five of first, a list of count, a line each, and, if count is more, a
// line that says how many more and that the JSON report's member lists the first len(first).
func firstFew[T fmt.Stringer](first []T, count int, member string) string {
	var lines []string
	for _, x := range first[:min(len(first), 5)] {
		lines = append(lines, x.String())
	}
	s := strings.Join(lines, "\n")
	if count > len(lines) {
		s += fmt.Sprintf("\n(and %d more: the JSON report's %s member lists the first %d)", count-len(lines), member, len(first))
	}
	return s
}

// Summary says in words what an incomplete census lacks: "N of the M expected bindings lacking"
// and "K decisions that are errors", as they apply.
func (l *Lacking) Summary() string {
	var parts []string
	if l.Count > 0 {
		parts = append(parts, fmt.Sprintf("%d of the %d expected bindings lacking", l.Count, l.Expected))
	}
	if l.Errors != nil {
		parts = append(parts, fmt.Sprintf("%d decisions that are errors", l.Errors.Count))
	}
	return strings.Join(parts, ", ")
}

// String is the decision as a message names it: where it was logged, its id and the error.
func (d DecisionError) String() string {
	return fmt.Sprintf("%s: decision %s: %s", d.At, strconv.Quote(d.Decision), d.Error)
}

// InputError is bad input: a usage error, malformed JSON, a schema-invalid source or record, a
// CUE or Rego error. It maps to exit code 2.
type InputError struct{ Err error }

// Error returns the message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *InputError) Unwrap() error { return e.Err }

// Inputf is bad input (an *InputError, exit 2) whose message format and args say, as
// fmt.Errorf does.
func Inputf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// InstrumentError is the instrument failing on valid input: a policy whose evaluation fails, or
// whose diagnostics have the wrong shape, kind or atom, or a policy or the contracts stopped at a
// resource limit (internal/guard). It maps to exit code 3: the verdict cannot be trusted, and the
// input is not to blame.
type InstrumentError struct{ Err error }

// Error returns the message.
func (e *InstrumentError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *InstrumentError) Unwrap() error { return e.Err }

// IsInstrumentFailure reports whether err, however wrapped (an *InputError included), is the
// instrument failing: an *InstrumentError or a *guard.LimitError.
func IsInstrumentFailure(err error) bool {
	var ie *InstrumentError
	var le *guard.LimitError
	return errors.As(err, &ie) || errors.As(err, &le)
}

// AsInput classes err as bad input (exit 2), unless it is already classed or is the instrument
// failing (IsInstrumentFailure), which it classes as an *InstrumentError.
func AsInput(err error) error {
	var ie *InputError
	switch {
	case err == nil:
		return err
	case IsInstrumentFailure(err):
		var ins *InstrumentError
		if errors.As(err, &ins) {
			return err
		}
		return &InstrumentError{Err: err}
	case errors.As(err, &ie):
		return err
	}
	return &InputError{Err: err}
}

// ExitCode maps an error of a run to its exit code: 3 when the instrument failed
// (IsInstrumentFailure), 2 for anything else (bad input, usage or output), 0 for nil.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitSatisfied
	case IsInstrumentFailure(err):
		return ExitInstrument
	}
	return ExitInputError
}

// AsInstrument classes err as the instrument failing (an *InstrumentError), unless it is nil or
// already the instrument failing, which it leaves to AsInput.
func AsInstrument(err error) error {
	if err == nil || IsInstrumentFailure(err) {
		return AsInput(err)
	}
	return &InstrumentError{Err: err}
}
