package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
)

// TestSharedBaseConcurrentProfiles runs the built-in check under two profiles that judge the same
// records differently, twice each and all at once, on the built-in layers' shared base
// (internal/instrument shared.go), and holds every report to the one an unshared load of the same
// layers gives (the built-in file system handed in, which is never shared): no run's profile,
// policy inputs, verdicts or sources reach another's.
func TestSharedBaseConcurrentProfiles(t *testing.T) {
	ctx := context.Background()
	profiles := []string{"strict", "withhold-private-meta"}
	encode := func(opts inputs.Options) ([]byte, error) {
		r, err := Run(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opts.Profile, err)
		}
		return json.Marshal(r)
	}
	want := map[string][]byte{}
	for _, p := range profiles {
		var err error
		if want[p], err = encode(inputs.Options{Profile: p, Builtin: contractcheck.Builtin}); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Equal(want[profiles[0]], want[profiles[1]]) {
		t.Fatal("the two profiles give one report: the test could not tell them apart")
	}
	// The base is kept by the first load of the built-in layers alone: the runs below all use it.
	a, err := instrument.Load(ctx, inputs.Options{Profile: profiles[0]})
	if err != nil {
		t.Fatal(err)
	}
	b, err := instrument.Load(ctx, inputs.Options{Profile: profiles[1]})
	if err != nil {
		t.Fatal(err)
	}
	if a.Model != b.Model || a.Validator != b.Validator || a.Engine() != b.Engine() {
		t.Fatal("two loads of the built-in layers do not share their base")
	}
	type run struct {
		profile string
		got     []byte
		err     error
	}
	runs := []*run{{profile: profiles[0]}, {profile: profiles[1]}, {profile: profiles[0]}, {profile: profiles[1]}}
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() { r.got, r.err = encode(inputs.Options{Profile: r.profile, Workers: 2}) })
	}
	wg.Wait()
	for i, r := range runs {
		if r.err != nil {
			t.Fatalf("run %d: %v", i, r.err)
		}
		if !bytes.Equal(r.got, want[r.profile]) {
			t.Errorf("run %d (%s) on the shared base: its report differs from an unshared load's", i, r.profile)
		}
	}
}
