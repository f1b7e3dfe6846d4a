package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestReadBatchEdges: the read stage hands lines to workers in batches of batchLines; whichever
// batch the first bad line falls in (its first line, its last, the next batch's first), the error
// reported is that line's at any number of workers, with a second bad line later in the file, and
// a line too long to read (the reader's own error) comes after the records before it, a bad one
// among them included.
func TestReadBatchEdges(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "fixtures", "observations", "direct", "v1", "default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := instrument.Load(context.Background(), inputs.Options{}) // the built-in instrument, shared in the process
	if err != nil {
		t.Fatal(err)
	}
	skip := func(*instrument.Record, []result.Reading) error { return nil }
	good := strings.SplitAfter(string(data), "\n")[:5*batchLines]
	for _, bad := range []int{1, batchLines - 1, batchLines, batchLines + 1, 2 * batchLines, 3*batchLines + 1} {
		for _, kind := range []struct{ name, line, want string }{
			{name: "bad record", line: `{"fixture":"C01"}` + "\n", want: "obs.jsonl:%d: "},
			{name: "line too long", line: `"` + strings.Repeat("x", int(16<<20)) + `"` + "\n", want: "obs.jsonl:%d:1: line %[1]d is"},
		} {
			lines := append([]string(nil), good...)
			lines[bad-1] = kind.line
			if kind.name == "bad record" {
				// a line too long right after: the reader's error must wait for the batch before it
				lines[bad] = `"` + strings.Repeat("x", int(16<<20)) + `"` + "\n"
			}
			lines[len(lines)-2] = `{"fixture":"C02"}` + "\n" // a later bad line never wins
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "obs.jsonl"), []byte(strings.Join(lines, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := inputs.Options{Observations: []string{dir}}.RecordFiles()
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2, 3, 8} {
				_, err := Run(context.Background(), in, files, workers, in.Evaluate, skip)
				want := fmt.Sprintf(kind.want, bad)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s at line %d, workers %d: %v, want an error at %q", kind.name, bad, workers, err, want)
				}
			}
		}
	}
}

// TestEvaluationsDoNotDependOnWorkers: the built-in check evaluates as many inputs on eight
// workers as on one (two workers at the same input wait for one evaluation).
func TestEvaluationsDoNotDependOnWorkers(t *testing.T) {
	in, err := instrument.Load(context.Background(), inputs.Options{}) // the built-in instrument, shared in the process
	if err != nil {
		t.Fatal(err)
	}
	files, err := inputs.Options{}.RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[int]int{}
	for _, w := range []int{1, 8} {
		in.ForgetVerdicts()
		skip := func(*instrument.Record, []result.Reading) error { return nil }
		if _, err := Run(context.Background(), in, files, w, in.Evaluate, skip); err != nil {
			t.Fatal(err)
		}
		counts[w] = in.Evaluations()
	}
	if counts[1] != counts[8] {
		t.Errorf("%d evaluations on one worker, %d on eight", counts[1], counts[8])
	}
}
