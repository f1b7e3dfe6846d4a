package instrument

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestLoadSharesTheBuiltinBase: two loads of the built-in layers alone share the model, the
// validator, the compiled policies and the projectors (shared.go), and nothing a run writes: each
// has its own map of sources, policy inputs and verdict memo. Options that read anything but the
// binary's built-in layers are loaded afresh, but for the validator, shared by every run without
// a --schemas layer; an unknown profile is the same input error whether the base is shared or not.
func TestLoadSharesTheBuiltinBase(t *testing.T) {
	ctx := context.Background()
	user := t.TempDir()
	if err := os.WriteFile(filepath.Join(user, "extra.rego"), []byte("package shared_test_extra\n\nx := 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		opts   inputs.Options
		shared bool
		// sharedValidator: the validator is shared (no --schemas layer, the binary's built-in
		// schemas), whatever else the run reads.
		sharedValidator bool
	}{
		{name: "the built-in layers again", opts: inputs.Options{}, shared: true, sharedValidator: true},
		{name: "another profile", opts: inputs.Options{Profile: withholdMeta}, shared: true, sharedValidator: true},
		{name: "a scope", opts: inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}}}, shared: true, sharedValidator: true},
		{name: "the built-in file system handed in", opts: inputs.Options{Builtin: contractcheck.Builtin}},
		{name: "a user's policies", opts: inputs.Options{Policies: []string{user}}, sharedValidator: true},
		{name: "a user's schemas", opts: inputs.Options{Schemas: []string{t.TempDir()}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Load(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := in.Model == first.Model && in.engine == first.engine; got != tc.shared {
				t.Errorf("shares the first load's model and engine: %t, want %t", got, tc.shared)
			}
			if got := in.Validator == first.Validator; got != tc.sharedValidator {
				t.Errorf("shares the first load's validator: %t, want %t", got, tc.sharedValidator)
			}
			if len(in.Sources) != len(first.Sources) || len(in.Sources) == 0 {
				t.Fatalf("%d sources, the first load %d", len(in.Sources), len(first.Sources))
			}
			for id := range in.Sources {
				in.Sources[id] = nil // as a challenge case's source stands in for its fixture's
				if first.Sources[id] == nil {
					t.Fatalf("a run's change to its sources reached another run's (fixture %s)", id)
				}
				break
			}
			if len(in.inputs) == 0 || len(first.inputs) == 0 {
				t.Fatal("no policy inputs prepared")
			}
			if in.Evaluations() != 0 {
				t.Errorf("a new instrument's memo holds %d evaluations", in.Evaluations())
			}
			if in.Options().Profile != tc.opts.Profile && tc.opts.Profile != "" {
				t.Errorf("profile %q, want %q", in.Options().Profile, tc.opts.Profile)
			}
		})
	}
	for _, opts := range []inputs.Options{{Profile: "nope"}, {Profile: "nope", Builtin: contractcheck.Builtin}} {
		_, err := Load(ctx, opts)
		var ie *result.InputError
		if !errors.As(err, &ie) || err.Error() != `unknown profile "nope" (the contracts define optional-null, reported-fixes, strict, study, withhold-private-meta)` {
			t.Errorf("unknown profile (built-in file system handed in: %t): %v", opts.Builtin != nil, err)
		}
	}
}
