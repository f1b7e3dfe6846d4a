package instrument

import (
	"bytes"
	"testing"
)

// The list of built-in sources validated at build time is the one a validation of the built-in
// sources gives now: a source or a revision that changed without go generate fails here, before a
// binary could trust it.
func TestBuiltinSourcesAreCurrent(t *testing.T) {
	got, err := ValidateBuiltinSources()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, builtinSourcesJSON) {
		t.Fatalf("%s is not the list of the built-in sources as they validate now: run go generate ./internal/instrument", BuiltinSourcesFile)
	}
	if len(builtinSources) == 0 {
		t.Fatal("no built-in source is listed")
	}
}

// Only the fixture, revision and bytes the build validated are trusted.
func TestValidatedAtBuild(t *testing.T) {
	var id string
	var s ValidatedSource
	for id, s = range builtinSources {
		break
	}
	other := "2025-06-18"
	if s.Revision == other {
		other = "2025-11-25"
	}
	tests := []struct {
		name, id, revision, sha string
		want                    bool
	}{
		{name: "as built", id: id, revision: s.Revision, sha: s.Sha256, want: true},
		{name: "another revision", id: id, revision: other, sha: s.Sha256},
		{name: "other bytes", id: id, revision: s.Revision, sha: "00" + s.Sha256[2:]},
		{name: "a fixture the build did not list", id: "U99", revision: s.Revision, sha: s.Sha256},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := validatedAtBuild(tc.id, tc.revision, tc.sha); got != tc.want {
				t.Errorf("validatedAtBuild = %v, want %v", got, tc.want)
			}
		})
	}
}
