package check

import (
	"errors"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/report"
)

// InputError is bad input: a usage error, malformed JSON, a schema-invalid source or record, a
// CUE or Rego error. It maps to exit code 2.
type InputError struct{ Err error }

// Error returns the message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *InputError) Unwrap() error { return e.Err }

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

// AsInput classes an error as bad input (exit 2) unless it already has a class.
func AsInput(err error) error { return inputErr(err) }

// inputErr classes err as bad input, unless it is already classed or is the instrument failing
// (IsInstrumentFailure), which it classes as an *InstrumentError.
func inputErr(err error) error {
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

func instrumentErr(err error) error {
	if err == nil || IsInstrumentFailure(err) {
		return inputErr(err)
	}
	return &InstrumentError{Err: err}
}

// ExitCode maps an error of a run to its exit code: 3 when the instrument failed
// (IsInstrumentFailure), 2 for anything else (bad input, usage or output), 0 for nil.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return report.ExitSatisfied
	case IsInstrumentFailure(err):
		return report.ExitInstrument
	}
	return report.ExitInputError
}
