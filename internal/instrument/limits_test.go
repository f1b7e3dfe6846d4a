package instrument

import (
	"context"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// limitsLayer is the layer of testdata/limits: a contracts layer adding one task per case on
// fixture C01, and a policy layer whose package limits.cases holds the cases (value.<case>: a
// builtin call past one of the sandbox's limits), limits.task the task policy calling the case
// its task names, cases_test.rego one Rego test per case (internal/policy's
// TestBuiltinLimitsInRegoTests runs them; cmd/contractcheck's limits_test.go runs both through
// the command line), and builtins.json the builtin each case calls, which a refusal must name:
// each case a call that would allocate or compute in proportion to an argument's value
// (bits.lsh(1, 1e12) asks for a 125 GB number).
var limitsLayer = struct{ contracts, policies string }{
	contracts: filepath.Join("testdata", "limits", "contracts"),
	policies:  filepath.Join("testdata", "limits", "policies"),
}

// TestBuiltinLimitsInTasks: a task policy calling a builtin past the sandbox's limits stops the
// evaluation of the record at once: an instrument failure (exit 3) naming the record's file and
// line, the task, the binding, the policy, the builtin and the call's position. The layer is
// loaded once; each case evaluates C01's direct record on an instrument scoped to its task (what
// check --task does), sharing the loaded model and compiled policies.
func TestBuiltinLimitsInTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	obs := filepath.Join(t.TempDir(), "obs")
	data, err := fs.ReadFile(contractcheck.Builtin, "fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	testkit.WriteFile(t, filepath.Join(obs, "direct.jsonl"), first+"\n")
	opts := inputs.Options{Contracts: []string{limitsLayer.contracts}, Policies: []string{limitsLayer.policies}, Observations: []string{obs}}
	in, err := Load(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	files, err := opts.RecordFiles()
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Record
	if err := in.ReadRecords(ctx, files, func(rec *Record) error {
		recs = append(recs, rec)
		return nil
	}); err != nil || len(recs) != 1 {
		t.Fatalf("read %d records, error %v; want C01's one", len(recs), err)
	}
	var builtins map[string]string // case → builtin
	testkit.ReadJSON(t, filepath.Join("testdata", "limits", "builtins.json"), &builtins)
	for _, name := range slices.Sorted(maps.Keys(builtins)) {
		t.Run(name, func(t *testing.T) {
			scoped, err := in.WithProfile(in.opts.Profile)
			if err != nil {
				t.Fatal(err)
			}
			scoped.opts.Scope = result.Scope{Tasks: []string{name}}
			rs, err := scoped.Evaluate(ctx, recs[0])
			if err == nil || result.ExitCode(err) != result.ExitInstrument {
				t.Fatalf("readings %v, error %v: want an instrument failure (exit 3)", rs, err)
			}
			want := regexp.MustCompile(`obs/direct\.jsonl:1: task ` + name + ` \(C01 direct v1 default D1\): ` +
				`policy limits\.task \(.*limits/policies/task\.rego\): stopped at the sandbox's limit of [^\n]*: ` +
				regexp.QuoteMeta(builtins[name]) + ` at .*limits/policies/cases\.rego:\d+:\d+ would make `)
			if !want.MatchString(err.Error()) {
				t.Errorf("error does not match %s:\n%v", want, err)
			}
		})
	}
}
