// Command gen validates the source of every built-in fixture against its MCP revision and writes
// the list of validated sources the binary embeds (internal/instrument/builtin_sources.json): run by
// go generate in internal/instrument, so that a check trusts the built-in sources it was built with
// instead of compiling MCP schemas to validate them again. A test fails when the file is not
// current.
package main

import (
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck/internal/instrument"
)

func main() {
	data, err := instrument.ValidateBuiltinSources()
	if err == nil {
		err = os.WriteFile(instrument.BuiltinSourcesFile, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
