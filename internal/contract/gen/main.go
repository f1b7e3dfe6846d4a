// Command gen evaluates the built-in contract layer and writes it as the cached model the binary
// embeds (internal/contract/builtin_model.json): run by go generate in internal/contract, so that
// a check on the built-in contracts does not evaluate CUE at start-up. A test fails when the file
// is not the model of the .cue files beside it.
package main

import (
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/layer"
)

func main() {
	if err := run("builtin_model.json"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	srcs, err := contract.ReadLayers([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts")})
	if err != nil {
		return err
	}
	m, err := contract.Evaluate(srcs)
	if err != nil {
		return err
	}
	data, err := contract.Encode(m, contract.Key(srcs))
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}
