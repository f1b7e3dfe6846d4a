package check

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestEarliestErrorWhateverTheScheduling: when several records make a policy fail, the error
// reported is the first such record's, at any number of workers, run after run; and a failing
// policy is the instrument failing (exit 3), naming the policy file and the binding.
func TestEarliestErrorWhateverTheScheduling(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) { testkit.WriteFile(t, p, s) }
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
	opts := inputs.Options{Contracts: []string{filepath.Join(dir, "c")}, Policies: []string{filepath.Join(dir, "p")}}
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
