package pipeline

import (
	"context"
	"reflect"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/visibility"
)

// TestReleaseReadsTheSame: the built-in records evaluated and read for visibility after the
// instrument's caches and the visibility reader's memo are let go (as a run lets them go at its
// stream's end) give the readings they gave before, evaluated afresh, and the count of
// evaluations is kept across the release.
func TestReleaseReadsTheSame(t *testing.T) {
	ctx := context.Background()
	shared, err := instrument.Load(ctx, inputs.Options{}) // the built-in instrument, shared in the process
	if err != nil {
		t.Fatal(err)
	}
	in, err := shared.WithProfile(shared.Options().Profile) // caches of its own
	if err != nil {
		t.Fatal(err)
	}
	vis, err := Visibility(ctx, in)
	if err != nil || vis == nil {
		t.Fatalf("the built-in visibility reader: %v, %v", vis, err)
	}
	files, err := inputs.Options{}.RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	type read struct {
		rs  []result.Reading
		vis *visibility.Reading
	}
	run := func() []read {
		var out []read
		eval := func(ctx context.Context, rec *instrument.Record) (read, error) {
			rs, err := in.Evaluate(ctx, rec)
			if err != nil {
				return read{}, err
			}
			v, err := ReadVisibility(ctx, in, vis, rec)
			return read{rs, v}, err
		}
		if _, err := Run(ctx, in, files, 1, eval, func(_ *instrument.Record, r read) error { out = append(out, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := run()
	n := in.Evaluations()
	in.ReleaseCaches()
	vis.Release()
	if in.Evaluations() != n {
		t.Fatalf("%d evaluations counted after the release, %d before", in.Evaluations(), n)
	}
	after := run()
	if !reflect.DeepEqual(after, before) {
		t.Error("the records read otherwise after the release")
	}
	if in.Evaluations() < 2*n {
		t.Errorf("%d evaluations after the release, %d before: a verdict was kept", in.Evaluations()-n, n)
	}
	var none *visibility.Reader
	none.Release() // nothing to read: no reader, nothing to release
}
