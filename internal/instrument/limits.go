package instrument

import (
	"context"
	"errors"
	"strings"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// LoadContracts reads the contract layers and evaluates their CUE model (or takes it from the
// model cache, contract.LoadCached) under the guard's load time limit and memory budget. CUE evaluation cannot be cancelled: when a limit is reached, the evaluation is left
// running and an *InstrumentError wrapping a *guard.LimitError naming the contract layers is
// returned (the command line then exits).
func LoadContracts(ctx context.Context, layers []inputs.Dir) (*contract.Model, error) {
	names := make([]string, len(layers))
	for i, d := range layers {
		names[i] = d.Display
	}
	srcs, err := contract.ReadLayers(layers)
	if err != nil {
		return nil, err
	}
	var m *contract.Model
	err = guard.Go(ctx, "contracts ("+strings.Join(names, ", ")+")", guard.LimitsOf(ctx).Load, func() error {
		var err error
		m, err = contract.LoadCached(srcs, contract.CacheDir())
		return err
	})
	var le *guard.LimitError
	if errors.As(err, &le) {
		return nil, &result.InstrumentError{Err: le}
	}
	return m, err
}
