package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
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

// TestRecordsOutsideTheScopeAreChecked: a run whose scope leaves a record out reads its carrier
// without building it (inputs.DecodeEnvelope), and still refuses a line that is no JSON within
// the limits exactly as a run on every record does: the same input error, naming file, line and
// column.
func TestRecordsOutsideTheScopeAreChecked(t *testing.T) {
	data, err := fs.ReadFile(contractcheck.Builtin, "fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	bad := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, `{"fixture":"C02",`) && strings.Contains(l, `"carrier":{"content":[`)
	})
	if bad < 0 {
		t.Fatal("no captured record of C02 in the control lane's records")
	}
	// The carrier's key written twice: the line is no JSON a strict reader takes.
	lines[bad] = strings.Replace(lines[bad], `"carrier":{"content":[`, `"carrier":{"content":[],"content":[`, 1)
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "obs.jsonl"), strings.Join(lines, "\n")+"\n")
	var errs []string
	for _, scope := range []result.Scope{{}, {Fixtures: []string{"C01"}}, {Stages: []string{"H4"}}} {
		_, err := Run(context.Background(), inputs.Options{Observations: []string{dir}, Scope: scope})
		if err == nil || result.ExitCode(err) != 2 {
			t.Fatalf("scope %+v: got %v (exit %d), want an input error (exit 2)", scope, err, result.ExitCode(err))
		}
		errs = append(errs, err.Error())
	}
	want := fmt.Sprintf("obs.jsonl:%d:", bad+1)
	for i, e := range errs {
		if !strings.Contains(e, want) || !strings.Contains(e, `duplicate key "content"`) || e != errs[0] {
			t.Errorf("run %d: %q, want the whole run's %q, naming %s and the key", i, e, errs[0], want)
		}
	}
}
