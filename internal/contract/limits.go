package contract

import (
	"context"
	"errors"
	"strings"

	"github.com/contractcheck/contractcheck/internal/guard"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/result"
)

// LoadLimited reads the contract layers and evaluates their CUE model (or takes it from the model
// cache, LoadCached) under the run's load time limit and memory budget (internal/guard: the
// limits the context carries), as the policies are evaluated under theirs (internal/policy). CUE
// evaluation cannot be cancelled: when a limit is reached, the evaluation is left running and an
// *result.InstrumentError wrapping a *guard.LimitError naming the contract layers is returned
// (the command line then exits). A run loads its model so (instrument.Load, and the verbs that
// need the model alone: validate, capture); Load is the model without the limits or the cache.
func LoadLimited(ctx context.Context, layers []layer.Dir) (*Model, error) {
	names := make([]string, len(layers))
	for i, d := range layers {
		names[i] = d.Display
	}
	srcs, err := ReadLayers(layers)
	if err != nil {
		return nil, err
	}
	var m *Model
	err = guard.Go(ctx, "contracts ("+strings.Join(names, ", ")+")", guard.LimitsOf(ctx).Load, func() error {
		var err error
		m, err = LoadCached(srcs, CacheDir())
		return err
	})
	var le *guard.LimitError
	if errors.As(err, &le) {
		return nil, &result.InstrumentError{Err: le}
	}
	return m, err
}
