package check

import (
	"errors"

	"github.com/contractcheck/contractcheck/internal/report"
)

// InputError is bad input: a usage error, malformed JSON, a schema-invalid source or record, a
// CUE or Rego error. It maps to exit code 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// InstrumentError is the instrument failing on valid input: a policy whose evaluation fails, or
// whose diagnostics have the wrong shape, kind or atom. It maps to exit code 3: the verdict cannot
// be trusted, and the input is not to blame.
type InstrumentError struct{ Err error }

func (e *InstrumentError) Error() string { return e.Err.Error() }
func (e *InstrumentError) Unwrap() error { return e.Err }

// AsInput classes an error as bad input (exit 2) unless it already has a class.
func AsInput(err error) error { return inputErr(err) }

func inputErr(err error) error {
	var ie *InputError
	var ins *InstrumentError
	if err == nil || errors.As(err, &ie) || errors.As(err, &ins) {
		return err
	}
	return &InputError{Err: err}
}

func instrumentErr(err error) error {
	var ins *InstrumentError
	if err == nil || errors.As(err, &ins) {
		return err
	}
	return &InstrumentError{Err: err}
}

// ExitCode maps an error of a run to its exit code: 3 for an InstrumentError, 2 for anything else
// (bad input or usage), 0 for nil.
func ExitCode(err error) int {
	var ins *InstrumentError
	switch {
	case err == nil:
		return report.ExitSatisfied
	case errors.As(err, &ins):
		return report.ExitInstrument
	}
	return report.ExitInputError
}
