package main

import (
	"os"
	"testing"
)

// TestCapabilitiesVerb prints the file the repository ships beside the policies, byte for byte.
func TestCapabilitiesVerb(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cli(t, "capabilities")
	shipped, err := os.ReadFile("../../policies/capabilities.json")
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || stdout != string(shipped) {
		t.Errorf("capabilities: exit %d, output differs from policies/capabilities.json (%d bytes, want %d)\n%s", code, len(stdout), len(shipped), stderr)
	}
}
