package check

import (
	"context"
	"errors"
	"fmt"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/guard"
)

// InstrumentError is the instrument failing rather than the input being bad: a user's policy or
// contract stopped at a resource limit (internal/guard), and any other failure of the checker's
// own that is not the input's fault. It maps to exit code 3.
type InstrumentError struct{ Err error }

func (e *InstrumentError) Error() string { return e.Err.Error() }
func (e *InstrumentError) Unwrap() error { return e.Err }

// IsInstrumentFailure reports whether err, however wrapped (an *InputError included), is the
// instrument failing: an *InstrumentError or a *guard.LimitError.
func IsInstrumentFailure(err error) bool {
	var ie *InstrumentError
	var le *guard.LimitError
	return errors.As(err, &ie) || errors.As(err, &le)
}

// loadContracts evaluates the CUE contract model under the guard's load time limit and memory
// budget. CUE evaluation cannot be cancelled: when a limit is reached, the evaluation is left
// running and a *guard.LimitError naming the contract directory is returned (the command line
// then exits).
func loadContracts(ctx context.Context, d Dir) (*contract.Model, error) {
	var m *contract.Model
	err := guard.Go(ctx, fmt.Sprintf("contracts (%s)", d.Display), guard.Current().Load, func() error {
		var err error
		m, err = contract.Load(d.FS, d.Root, d.Display)
		return err
	})
	var le *guard.LimitError
	if errors.As(err, &le) {
		return nil, &InstrumentError{Err: le}
	}
	return m, err
}
