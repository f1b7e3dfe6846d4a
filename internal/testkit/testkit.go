// Package testkit holds the small checks that the tests of many packages share, so that each is
// written once. It imports nothing of this module, so any package's tests can use it (package
// reportkit holds the helpers that need the engine).
package testkit

import (
	"strings"
	"testing"
)

// ErrCase holds err to a table case's expected error want: with want empty, err must be nil (t
// fails at once otherwise) and ErrCase returns false, the case goes on; with want given, err must
// hold want (t fails at once otherwise) and ErrCase returns true, the case is done.
func ErrCase(t testing.TB, err error, want string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	return true
}
