package probe

import (
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// JudgeOptions are the inputs of the check that judges what a probe wrote, the way
// `contractcheck check --observations DIR --contracts DIR --profile probe` does: the probe's
// layer beside the user's, its records, its profile, and the probed lane (with the probe's own
// fixture selection) as the scope. The check's visibility readout is then the probed lane's
// (docs/visibility.md): what of each channel of a result reaches the model through the user's
// agent; it is empty when the probe selected no fixture the readout rests on.
func JudgeOptions(o Options) instrument.Options {
	in := o.Inputs
	in.Contracts = append(append([]string(nil), in.Contracts...), o.Output)
	in.Observations = []string{o.Output}
	in.Profile = ProfileName
	in.Scope = result.Scope{Lanes: []string{o.Lane}, Fixtures: o.Inputs.Scope.Fixtures, Suites: o.Inputs.Scope.Suites}
	return in
}
