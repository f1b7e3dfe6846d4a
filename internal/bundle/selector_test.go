package bundle

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// TestBundleRefusesSelectors: the bundle's Rego projector reads JSON pointers only, so a contract
// set whose bindings select array elements by value (cmd/contractcheck/testdata/draft-selectors: a
// draft revision and a lane bound that way) is an input error naming each such binding and path,
// not a bundle that would read those paths as object keys.
func TestBundleRefusesSelectors(t *testing.T) {
	t.Parallel()
	layer := filepath.Join("..", "..", "cmd", "contractcheck", "testdata", "draft-selectors")
	opts := instrument.Options{Contracts: []string{filepath.Join(layer, "contracts")}, Schemas: []string{filepath.Join(layer, "schemas")},
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
