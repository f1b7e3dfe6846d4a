package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestEarliestErrorWhateverTheScheduling: when several records make a policy fail, the error
// reported is the first such record's, at any number of workers, run after run; and a failing
// policy is the instrument failing (exit 3), naming the policy file and the binding.
func TestEarliestErrorWhateverTheScheduling(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "c", "t7.cue"), `package contracts

tasks: T7: {doc: "Fails on every text block but the control lane's.", role: "guard", policy: "custom.t7", compartment: "content", atoms: ["block.text"], appliesTo: {}}
`)
	// to_number fails on any text that is not a number: every text-bearing binding outside the
	// control lane is an evaluation error.
	write(filepath.Join(dir, "p", "t7.rego"), `package custom.t7

diagnostics contains {"atom": "block.text", "path": "", "kind": "missing"} if {
	input.lane != "direct"
	some b in input.observed.content
	to_number(b.text) > 0
}
`)
	opts := Options{Contracts: []string{filepath.Join(dir, "c")}, Policies: []string{filepath.Join(dir, "p")}}
	var first string
	for _, workers := range []int{1, 2, 3, 8, 16, 2, 8, 16} {
		opts.Workers = workers
		_, err := Run(context.Background(), opts)
		var ins *result.InstrumentError
		if !errors.As(err, &ins) || result.ExitCode(err) != 3 {
			t.Fatalf("workers %d: got %v (exit %d), want an instrument error (exit 3)", workers, err, result.ExitCode(err))
		}
		if !strings.Contains(err.Error(), "task T7") || !strings.Contains(err.Error(), "/t7.rego") {
			t.Errorf("workers %d: %v does not name the task, the binding and the policy file", workers, err)
		}
		if first == "" {
			first = err.Error()
			continue
		}
		if err.Error() != first {
			t.Errorf("workers %d: %q, want the earliest record's error %q", workers, err, first)
		}
	}
}

// TestStreamBatchEdges: the reader hands lines to workers in batches of streamBatch; whichever
// batch the first bad line falls in (its first line, its last, the next batch's first), the error
// reported is that line's at any number of workers, with a second bad line later in the file, and
// a line too long to read (the reader's own error) comes after the records before it, a bad one
// among them included.
func TestStreamBatchEdges(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "observations", "direct", "v1", "default.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	good := strings.SplitAfter(string(data), "\n")[:5*streamBatch]
	for _, bad := range []int{1, streamBatch - 1, streamBatch, streamBatch + 1, 2 * streamBatch, 3*streamBatch + 1} {
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
			for _, workers := range []int{1, 2, 3, 8} {
				_, err := Run(context.Background(), Options{Observations: []string{dir}, Workers: workers})
				want := fmt.Sprintf(kind.want, bad)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s at line %d, workers %d: %v, want an error at %q", kind.name, bad, workers, err, want)
				}
			}
		}
	}
}
