// Package testtier says which tier a test is in. `go test ./...` is the fast, hermetic tier: no
// network after `go mod download`, nothing installed beyond Go. A test that builds stock OPA,
// downloads modules, runs npm packages or the Python root is in the integration tier, which
// CONTRACTCHECK_INTEGRATION=1 switches on (.ci/run does, so CI runs both); there, a missing
// prerequisite is a failure, never a skip.
package testtier

import (
	"os"
	"testing"
)

// Var is the variable that switches the integration tier on.
const Var = "CONTRACTCHECK_INTEGRATION"

// Integration reports whether the integration tier is on.
func Integration() bool { return os.Getenv(Var) == "1" }

// Require skips t unless the integration tier is on; needs says what the test needs, for the
// skip message.
func Require(t testing.TB, needs string) {
	t.Helper()
	if !Integration() {
		t.Skipf("integration tier (%s=1): %s", Var, needs)
	}
}

// Missing fails t when the integration tier is on and skips it otherwise: a prerequisite the
// fast tier may lack but the integration tier must have.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if Integration() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
