package probe

import (
	"context"
	"fmt"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/result"
)

// Visibility judges what a probe wrote the way `contractcheck check --observations DIR
// --contracts DIR --profile probe` does, and returns the probed lane's visibility readout
// (docs/visibility.md): what of each channel of a result reaches the model through the user's
// agent. It is empty when the probe selected no fixture the readout rests on (suite visibility,
// or the model's visibility.fixtures).
func Visibility(ctx context.Context, o Options) ([]result.Visibility, error) {
	in := o.Inputs
	in.Contracts = append(append([]string(nil), in.Contracts...), o.Output)
	in.Observations = []string{o.Output}
	in.Profile = ProfileName
	in.Scope = result.Scope{Lanes: []string{o.Lane}, Fixtures: o.Inputs.Scope.Fixtures, Suites: o.Inputs.Scope.Suites}
	r, err := check.Run(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("probe: judging the records in %s: %w", o.Output, err)
	}
	return r.Visibility, nil
}
