package bundle

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestBundleWithDraftRevision: a bundle built with a user's schema layer holding a draft MCP
// revision packs the catalogue entry of that revision (its source validated against the draft
// when the bundle is built: the MCP schemas themselves are not in a bundle) and judges it as check
// does; built without the layer, the entry's revision is an input error at its position.
func TestBundleWithDraftRevision(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schemaJSON, err := contractcheck.Builtin.ReadFile("schemas/mcp/2025-11-25/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	// The draft: 2025-11-25 with structuredContent any JSON value.
	draft := strings.Replace(string(schemaJSON), `"description": "An optional JSON object that represents the structured result of the tool call.",
                    "type": "object"`, `"description": "Any JSON value."`, 1)
	if draft == string(schemaJSON) {
		t.Fatal("2025-11-25's structuredContent is not written as the test expects")
	}
	testkit.WriteTree(t, dir, map[string]string{
		"schemas/mcp/DRAFT-2026-v1/schema.json": draft,
		"contracts/fixtures.cue": `package contracts

fixtures: U01: {
	suite:    "orders"
	family:   "structured"
	revision: "DRAFT-2026-v1"
	tasks: ["T1", "T2"]
	doc: "A list as the structured value."
	targets: ["", "/0/sku"]
}

revisions: "DRAFT-2026-v1": {doc: "2025-11-25's result shape.", source: _mcpResult}
`,
		"fixtures/sources/orders/U01.json": `{"content": [{"type": "text", "text": "[{\"sku\": \"A-1\"}]"}], "structuredContent": [{"sku": "A-1"}]}`,
	})
	opts := inputs.Options{Contracts: []string{filepath.Join(dir, "contracts")}, Fixtures: []string{filepath.Join(dir, "fixtures")}}

	// Without the schema layer: an input error at the catalogue entry.
	_, err = Build(ctx, opts)
	var ie *result.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "fixtures.cue:3:11: fixture U01: unknown MCP revision \"DRAFT-2026-v1\"") {
		t.Fatalf("Build without the schema layer: %v, want an input error at the entry", err)
	}

	opts.Schemas = []string{filepath.Join(dir, "schemas")}
	b, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	pq := decisionQuery(t, b)
	input := map[string]any{"fixture": "U01", "lane": "direct", "laneVersion": "v1", "configuration": "default", "stage": "D1",
		"carrier": map[string]any{"content": []any{map[string]any{"type": "text", "text": `[{"sku": "A-1"}]`}}, "structuredContent": []any{map[string]any{"sku": "A-1"}}}}
	iv, err := ast.InterfaceToValue(input)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(iv))
	if err != nil || len(rs) != 1 {
		t.Fatalf("eval: %v (%d results)", err, len(rs))
	}
	d := asJSON(t, rs[0].Bindings["d"]).(map[string]any)
	if d["errors"] != nil {
		t.Fatalf("the bundle refuses the draft fixture: %v", d["errors"])
	}
	results, _ := d["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("results %v, want T1 and T2", results)
	}
	for _, r := range results {
		if o := r.(map[string]any)["outcome"]; o != "pass" {
			t.Errorf("%v: outcome %v, want pass (the carrier is the source)", r.(map[string]any)["task"], o)
		}
	}
}
