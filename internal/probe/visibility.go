package probe

import (
	"slices"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// JudgeOptions are the inputs of the check that judges what a probe wrote, the way
// `contractcheck check --observations DIR --contracts DIR --profile probe` does: the probe's
// layer beside the user's, its records, its profile, and the probed lane (with the probe's own
// fixture selection) as the scope. The check's visibility readout is then the probed lane's
// (docs/visibility.md): what of each channel of a result reaches the model through the user's
// agent; it is empty when no fixture the readout rests on was probed.
//
// With res, the Result of the probe, the fixtures are those the lane's record file holds
// (res.Fixtures): a probe merges by fixture into a directory an earlier probe wrote, so a probe
// of another suite into it keeps, and judges, the earlier probe's records, as check does. Without
// it (nil) they are the probe's own selection.
func JudgeOptions(o Options, res *Result) inputs.Options {
	in := o.Inputs
	in.Contracts = append(append([]string(nil), in.Contracts...), o.Output)
	in.Observations = []string{o.Output}
	in.Profile = ProfileName
	in.Scope = result.Scope{Lanes: []string{o.Lane}, Fixtures: o.Inputs.Scope.Fixtures, Suites: o.Inputs.Scope.Suites}
	if res != nil && len(res.Fixtures) > 0 {
		in.Scope.Fixtures, in.Scope.Suites = slices.Clone(res.Fixtures), nil
	}
	return in
}
