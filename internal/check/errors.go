package check

import "github.com/contractcheck/contractcheck/internal/result"

// inputErr classes err as bad input (result.AsInput): unless it is already classed, or is the
// instrument failing, which it classes as a *result.InstrumentError.
func inputErr(err error) error { return result.AsInput(err) }

// instrumentErr classes err as the instrument failing (a *result.InstrumentError), unless it is
// nil or already the instrument failing, which it leaves to inputErr.
func instrumentErr(err error) error {
	if err == nil || result.IsInstrumentFailure(err) {
		return inputErr(err)
	}
	return &result.InstrumentError{Err: err}
}
