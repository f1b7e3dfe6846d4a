package inspect

import (
	"context"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestFixture: a catalogued fixture's entry names where it is written and the source in use; an
// unknown id is an input error that lists the fixtures there are.
func TestFixture(t *testing.T) {
	in, err := instrument.Load(context.Background(), inputs.Options{}) // the built-in instrument, shared in the process
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id, origin, source, wantErr string
	}{
		{name: "catalogued", id: "C01", origin: "catalogue", source: "fixtures/sources/paper/C01.json"},
		{name: "unknown", id: "NOPE", wantErr: `no fixture "NOPE": the catalogue and the fixtures layers have`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Fixture(in, tc.id)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || result.ExitCode(err) != result.ExitInputError {
					t.Fatalf("Fixture(%s): %v (exit %d), want an input error containing %q", tc.id, err, result.ExitCode(err), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.ID != tc.id || e.Origin != tc.origin || !strings.HasSuffix(e.Source, tc.source) || len(e.Sha256) != 64 || len(e.Tasks) == 0 {
				t.Errorf("Fixture(%s) = %+v, want origin %s, source …%s with its sha256, and tasks", tc.id, e, tc.origin, tc.source)
			}
		})
	}
}

// TestRecordAgreesWithEvaluate: inspect record gives each of a record's bindings the outcome and
// readout the instrument's Evaluate gives it, in the same order, and a captured record's every
// task its policy input; a record that was not captured gives its state and no input.
func TestRecordAgreesWithEvaluate(t *testing.T) {
	in, err := instrument.Load(context.Background(), inputs.Options{}) // the built-in instrument, shared in the process
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	recs, err := FindRecords(ctx, in, "", func(r *instrument.Record) bool {
		return r.Repetition == 1 && (r.Fixture == "C01" && r.Lane == "direct" || r.State != "captured")
	})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]bool{}
	for _, rec := range recs {
		states[rec.State] = true
		ins, err := Record(ctx, in, rec)
		if err != nil {
			t.Fatalf("%s:%d: %v", rec.File, rec.Line, err)
		}
		rs, err := in.Evaluate(ctx, rec)
		if err != nil {
			t.Fatalf("%s:%d: %v", rec.File, rec.Line, err)
		}
		if len(ins.Tasks) != len(rs) || len(rs) == 0 {
			t.Fatalf("%s:%d: %d tasks inspected, %d readings", rec.File, rec.Line, len(ins.Tasks), len(rs))
		}
		for i, ti := range ins.Tasks {
			r := rs[i]
			if ti.Task != r.Task || ti.Outcome != r.Outcome || (ti.Input != nil) != (rec.State == "captured") {
				t.Errorf("%s:%d: task %d: inspected %s %s (input %t), evaluated %s %s", rec.File, rec.Line, i, ti.Task, ti.Outcome, ti.Input != nil, r.Task, r.Outcome)
			}
		}
		if ins.Record.Position != rec.Position() || ins.Record.File != rec.File || ins.Record.Line != rec.Line {
			t.Errorf("%s:%d: the record is named %+v", rec.File, rec.Line, ins.Record)
		}
	}
	if !states["captured"] || len(states) < 2 {
		t.Errorf("the records inspected had states %v: want captured ones and others", states)
	}
}
