package check

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// TestDirectLaneIsTheControl asserts what the control lane is for: every catalogued fixture is
// recorded at every stage in three repetitions, and every task passes everywhere, under every
// built-in profile that preserves result metadata.
func TestDirectLaneIsTheControl(t *testing.T) {
	for _, profile := range []string{"strict", "optional-null"} {
		t.Run(profile, func(t *testing.T) {
			r, err := Run(context.Background(), inputs.Options{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			in, err := instrument.Load(context.Background(), inputs.Options{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, res := range r.Each() {
				if res.Lane != "direct" {
					continue
				}
				seen[fmt.Sprintf("%s/%s/%s", res.Fixture, res.Stage, res.Task)] = true
				if res.Outcome != result.Pass || res.Repetitions != 3 {
					t.Errorf("direct %s %s %s: %s in %d repetitions, want pass in 3: %v", res.Fixture, res.Stage, res.Task, res.Outcome, res.Repetitions, res.Diagnostics)
				}
			}
			for _, id := range contract.SortedKeys(in.Model.Fixtures) {
				for _, task := range in.Model.Fixtures[id].Tasks {
					for _, st := range []string{"D1", "A2", "M3", "H4"} {
						if !in.Model.Tasks[task].AtStage(st) {
							continue // a task with stages has no binding elsewhere
						}
						if !seen[id+"/"+st+"/"+task] {
							t.Errorf("direct lane has no result for %s %s %s", id, st, task)
						}
					}
				}
			}
			if r.ExitCode() != result.ExitSatisfied {
				t.Errorf("exit %d, want 0", r.ExitCode())
			}
		})
	}
}

// TestReportDeterministicAndValid runs the built-in check with one worker and with many, twice,
// and requires byte-identical JSON that validates against the report schema.
func TestReportDeterministicAndValid(t *testing.T) {
	var outputs [][]byte
	for _, workers := range []int{1, 8, 8} {
		r, err := Run(context.Background(), inputs.Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := (report.JSON{}).Output(&buf, r); err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, buf.Bytes())
	}
	for i := 1; i < len(outputs); i++ {
		if !bytes.Equal(outputs[0], outputs[i]) {
			t.Fatalf("run %d differs from run 0", i)
		}
	}
	if err := reportkit.ReportSchemaError(t, outputs[0]); err != nil {
		t.Fatalf("report does not validate against its schema: %v", err)
	}
}
