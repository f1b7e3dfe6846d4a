package instrument

import (
	"context"
	"encoding/json"
	"maps"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestViewReadsAgree holds the built-in task policies' declarations of the view members they read
// (custom.reads) to their verdicts: every built-in record, under every profile that changes what
// the tasks compare, gets the same outcome, readout and diagnostics whether the policy is handed
// the declared members or the whole views. A declaration that leaves out a member a policy reads
// through a function (the static check in package policy sees only input.source.<m> and
// input.observed.<m>) fails here.
func TestViewReadsAgree(t *testing.T) {
	ctx := context.Background()
	for _, profile := range []string{strict, "optional-null", withholdMeta} {
		t.Run(profile, func(t *testing.T) {
			declared, err := Load(ctx, inputs.Options{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			whole, err := Load(ctx, inputs.Options{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			// reads is part of the built-in layers' shared base (shared.go), which no run writes:
			// this instrument gets a copy of its own before the test changes it.
			whole.reads = maps.Clone(whole.reads)
			for task := range whole.reads {
				whole.reads[task] = ""
			}
			whole.inputs = map[inputKey]base{}
			if err := whole.prepareInputs(); err != nil {
				t.Fatal(err)
			}
			narrowed := 0
			for task, r := range declared.reads {
				if r != "" {
					narrowed++
				} else {
					t.Errorf("task %s declares no reads", task)
				}
			}
			dirs, err := declared.opts.ObservationDirs()
			if err != nil {
				t.Fatal(err)
			}
			var files []inputs.RecordFile
			for _, d := range dirs {
				fs, err := inputs.RecordFiles(d)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, fs...)
			}
			readings := 0
			err = declared.ReadRecords(ctx, files, func(rec *Record) error {
				a, err := declared.Evaluate(ctx, rec)
				if err != nil {
					return err
				}
				b, err := whole.Evaluate(ctx, rec)
				if err != nil {
					return err
				}
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				if string(ja) != string(jb) {
					t.Errorf("%s:%d: declared reads give %s, the whole views %s", rec.File, rec.Line, ja, jb)
				}
				readings += len(a)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if readings < 5000 || narrowed == 0 {
				t.Fatalf("compared %d readings with %d tasks narrowed: the test tests nothing", readings, narrowed)
			}
			if declared.Evaluations() >= whole.Evaluations() {
				t.Errorf("declared reads made %d evaluations, the whole views %d: no verdict was shared", declared.Evaluations(), whole.Evaluations())
			}
			t.Logf("%d readings (repetitions included): %d evaluations with the declared reads, %d with the whole views", readings, declared.Evaluations(), whole.Evaluations())
		})
	}
}

// TestViewReadsShareVerdicts: two carriers that differ only in a member a task does not declare
// are one policy input to it (one evaluation), and two inputs to a task that reads the member.
func TestViewReadsShareVerdicts(t *testing.T) {
	ctx := context.Background()
	in, err := Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	carrier := func(meta any) any {
		doc := map[string]any{"content": []any{map[string]any{"type": "text", "text": "hello"}}}
		if meta != nil {
			doc["_meta"] = meta
		}
		return doc
	}
	tests := []struct {
		name  string
		task  string
		evals int
	}{
		{name: "T1 reads the content, not the result _meta", task: "T1", evals: 1},
		{name: "T3 reads the error decision, not the result _meta", task: "T3", evals: 1},
		{name: "T5 reads the result _meta", task: "T5", evals: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in.ForgetVerdicts()
			pos := result.Position{Lane: "direct", LaneVersion: "v1", Configuration: "default", Stage: "D1"}
			for _, id := range contract.SortedKeys(in.Model.Fixtures) { // the first fixture the task is evaluated on
				if _, ok := in.inputs[inputKey{id, tc.task, pos.Stage}]; ok {
					pos.Fixture = id
					break
				}
			}
			if pos.Fixture == "" {
				t.Fatalf("no fixture evaluates %s at %s", tc.task, pos.Stage)
			}
			k := inputKey{pos.Fixture, tc.task, pos.Stage}
			for _, meta := range []any{map[string]any{"trace": "a"}, map[string]any{"trace": "b\u2028*/"}} {
				o, err := in.observe(pos.Fixture, pos.Lane, pos.Stage, in.Model.Tasks[tc.task].Compartment, in.reads[tc.task], carrier(meta), nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := in.verdict(ctx, k, pos, o); err != nil {
					t.Fatal(err)
				}
			}
			if got := in.Evaluations(); got != tc.evals {
				t.Errorf("%d evaluations, want %d", got, tc.evals)
			}
		})
	}
}
