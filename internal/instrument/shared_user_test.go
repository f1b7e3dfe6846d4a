package instrument

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/scaffold"
)

// TestLoadSharesAUserBase: a load of the same user layers, unchanged, in the same working
// directory, shares the last load's base (shared.go: userKey), whatever its profile; a file
// changed, the same files in another directory, or a load with other layers, loads afresh. Each
// run keeps its own map of sources: one run's change never reaches the next. It is not parallel: the process keeps one user base, which
// a parallel test's load would replace.
func TestLoadSharesAUserBase(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "mine")
	if _, err := scaffold.Init(scaffold.InitOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	layerOpts := func(d, profile string) inputs.Options {
		return inputs.Options{Contracts: []string{d}, Policies: []string{d}, Profile: profile}
	}
	other := filepath.Join(t.TempDir(), "mine")
	if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// change is done before the load (nil: nothing).
		change func(t *testing.T)
		opts   inputs.Options
		shared bool
	}{
		{name: "the same layers again", opts: layerOpts(dir, "mine"), shared: true},
		{name: "another profile", opts: layerOpts(dir, "strict"), shared: true},
		{name: "the same files in another directory", opts: layerOpts(other, "mine")},
		{name: "the first directory again", opts: layerOpts(dir, "mine")},
		{name: "unchanged once more", opts: layerOpts(dir, "mine"), shared: true},
		{name: "a contract file changed", change: func(t *testing.T) {
			appendTo(t, filepath.Join(dir, "t6.cue"), "\n// a comment\n")
		}, opts: layerOpts(dir, "mine")},
		{name: "a policy file changed", change: func(t *testing.T) {
			appendTo(t, filepath.Join(dir, "t6.rego"), "\n# a comment\n")
		}, opts: layerOpts(dir, "mine")},
		{name: "a file added", change: func(t *testing.T) {
			appendTo(t, filepath.Join(dir, "notes.txt"), "notes\n")
		}, opts: layerOpts(dir, "mine")},
		{name: "the policies alone", opts: inputs.Options{Policies: []string{dir}, Profile: "strict"}},
	}
	prev, err := Load(ctx, layerOpts(dir, "mine"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.change != nil {
				tc.change(t)
			}
			in, err := Load(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := in.Model == prev.Model && in.engine == prev.engine && in.Validator == prev.Validator; got != tc.shared {
				t.Errorf("shares the previous load's model, engine and validator: %t, want %t", got, tc.shared)
			}
			if got := in.Options().Profile; got != tc.opts.Profile || in.Profile.Doc != in.Model.Profiles[got].Doc {
				t.Errorf("profile %q, want %q, its model's", got, tc.opts.Profile)
			}
			if len(in.Sources) == 0 || len(in.Sources) != len(prev.Sources) {
				t.Fatalf("%d sources, the previous load %d", len(in.Sources), len(prev.Sources))
			}
			for id, src := range in.Sources {
				if src == nil {
					t.Fatalf("an earlier run's change to its sources reached this run's (fixture %s)", id)
				}
			}
			for id := range in.Sources {
				in.Sources[id] = nil // as a challenge case's source stands in for its fixture's
				break
			}
			prev = in
		})
	}
}

// appendTo appends text to a file.
func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
