// Command gen validates the source of every built-in fixture against its MCP revision and writes
// the list of validated sources the binary embeds (internal/check/builtin_sources.json): run by
// go generate in internal/check, so that a check trusts the built-in sources it was built with
// instead of compiling MCP schemas to validate them again. A test fails when the file is not
// current.
package main

import (
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck/internal/check"
)

func main() {
	data, err := check.ValidateBuiltinSources()
	if err == nil {
		err = os.WriteFile(check.BuiltinSourcesFile, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
