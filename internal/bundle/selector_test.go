package bundle

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

// TestBundleRefusesSelectors: the bundle's Rego projector reads JSON pointers only, so a contract
// set whose bindings select array elements by value (cmd/contractcheck/testdata/draft-selectors: a
// draft revision and a lane bound that way) is an input error naming each such binding and path,
// not a bundle that would read those paths as object keys.
func TestBundleRefusesSelectors(t *testing.T) {
	t.Parallel()
	layer := filepath.Join("..", "..", "cmd", "contractcheck", "testdata", "draft-selectors")
	opts := inputs.Options{Contracts: []string{filepath.Join(layer, "contracts")}, Schemas: []string{filepath.Join(layer, "schemas")},
		Fixtures: []string{filepath.Join(layer, "fixtures")}, Revision: "DRAFT-2026-12-01"}
	_, err := Build(context.Background(), opts)
	var ie *result.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("Build: %v, want an input error", err)
	}
	for _, want := range []string{
		`revisions."DRAFT-2026-12-01".source.structured.path: path "/outputs[audience=\"assistant\", format=\"structured\"]/structuredContent" selects an array element by value; the bundle's projector reads JSON pointers only`,
		`lanes.draft-host.stages.A2.compartments.content.content.path: path "/outputs[audience=\"assistant\",format=\"content\"]/content" selects an array element by value`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestBundleRefusesSourceCompartments: a bundle's policy input carries the source view only, so a
// task that reads source compartments (tasks.<id>.sources, input.sources) is an input error naming
// the task, not a bundle whose policy would read no such member.
func TestBundleRefusesSourceCompartments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"c/x.cue": "package contracts\n\nrevisions: \"2025-11-25\": compartments: user: _mcpResult\n\n" +
			"tasks: TX: {doc: \"d\", role: \"guard\", policy: \"x.tasks.tx\", compartment: \"content\", atoms: [\"block.count\"], sources: [\"user\"], appliesTo: fixtures: [\"C01\"]}\n",
		"p/tx.rego": "package x.tasks.tx\n\ndiagnostics contains {\"atom\": \"block.count\", \"path\": \"\", \"kind\": \"added\"} if count(input.sources.user.content) == 0\n",
	}
	testkit.WriteTree(t, dir, files)
	opts := inputs.Options{Contracts: []string{filepath.Join(dir, "c")}, Policies: []string{filepath.Join(dir, "p")}}
	_, err := Build(context.Background(), opts)
	var ie *result.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("Build: %v, want an input error", err)
	}
	if want := "tasks.TX.sources: the task reads source compartments (user), which the bundle's policy input does not carry"; !strings.Contains(err.Error(), want) {
		t.Errorf("error lacks %q:\n%v", want, err)
	}
}
