package testkit

import (
	"fmt"
	"os"
	"testing"
)

// RunWithOwnCache runs m's tests with a model cache of their own: unless the caller named one
// ($CONTRACTCHECK_CACHE, as cmd's scripts and CI may), a temporary directory, removed when the
// tests are done. A package whose tests load user contract layers (each test its own temporary
// directory) then neither writes an entry into the user's cache (~/.cache/contractcheck) for
// every run nor reads one another build wrote: `go test ./...` stays hermetic. TestMain calls it:
//
//	func TestMain(m *testing.M) { os.Exit(testkit.RunWithOwnCache(m)) }
func RunWithOwnCache(m *testing.M) int {
	if os.Getenv("CONTRACTCHECK_CACHE") != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "contractcheck-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "test cache:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv("CONTRACTCHECK_CACHE", dir); err != nil {
		fmt.Fprintln(os.Stderr, "test cache:", err)
		return 2
	}
	return m.Run()
}
