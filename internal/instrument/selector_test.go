package instrument

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// draftOptions read cmd/contractcheck/testdata/draft-selectors: a draft revision whose results are
// outputs[], bound by value selectors, a lane (draft-host) bound the same way, and three sources
// no catalogue entry names.
func draftOptions() inputs.Options {
	layer := filepath.Join("..", "..", "cmd", "contractcheck", "testdata", "draft-selectors")
	return inputs.Options{Contracts: []string{filepath.Join(layer, "contracts")}, Schemas: []string{filepath.Join(layer, "schemas")},
		Fixtures: []string{filepath.Join(layer, "fixtures")}, Revision: "DRAFT-2026-12-01"}
}

// TestSourceViewThroughRevision: a fixture's source view is read through its revision's binding
// (the assistant's outputs of a draft result, by value), a built-in fixture's through its own.
func TestSourceViewThroughRevision(t *testing.T) {
	in, err := Load(context.Background(), draftOptions())
	if err != nil {
		t.Fatal(err)
	}
	d1 := in.SourceView("D1")
	if s, _ := d1["structured"].(map[string]any); s["orderId"] != "B-7" || len(s) != 2 {
		t.Errorf("D1's structured slot is %v, want the assistant's structured output", d1["structured"])
	}
	if c, _ := d1["content"].([]any); len(c) != 1 {
		t.Errorf("D1's content is %v, want the assistant's one text block", d1["content"])
	}
	if _, has := in.SourceView("D2")["structured"]; has {
		t.Errorf("D2's structured slot is %v: the only structured output is the user's", in.SourceView("D2")["structured"])
	}
	if s, _ := in.SourceView("C05")["structured"].(map[string]any); s == nil {
		t.Errorf("C05 beside the layer has no structured slot: %v", in.SourceView("C05"))
	}
	if in.Model.Fixtures["D1"].Revision != "DRAFT-2026-12-01" {
		t.Errorf("D1's revision is %q", in.Model.Fixtures["D1"].Revision)
	}
}

// TestEvaluatePairOneWay: EvaluatePair (mutate's and challenge's seam) refuses a source or a
// carrier in which a selector matches several outputs, as an input error naming the path: it is
// never read as absent.
func TestEvaluatePairOneWay(t *testing.T) {
	ctx := context.Background()
	in, err := Load(ctx, draftOptions())
	if err != nil {
		t.Fatal(err)
	}
	doc := func(s string) any {
		v, err := strictjson.Decode("test", []byte(s), strictjson.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	one := doc(`{"outputs": [{"audience": "assistant", "format": "structured", "structuredContent": {"a": 1}}]}`)
	two := doc(`{"outputs": [{"audience": "assistant", "format": "structured", "structuredContent": {"a": 1}}, {"audience": "assistant", "format": "structured", "structuredContent": {"a": 2}}]}`)
	pos := result.Position{Fixture: "D1", Lane: "draft-host", LaneVersion: "v1", Configuration: "default", Stage: "A2"}
	f := in.Model.Fixtures["D1"]
	tests := []struct {
		name            string
		source, carrier any
		err             string
	}{
		{name: "one assistant output each side", source: one, carrier: one},
		{name: "two in the source", source: two, carrier: one, err: "fixture D1: the source: compartment revisions.\"DRAFT-2026-12-01\".source: path"},
		{name: "two in the carrier", source: one, carrier: two, err: "fixture D1, lane draft-host, stage A2: the carrier: compartment lanes.draft-host.stages.A2.compartments."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := in.EvaluatePair(ctx, "T2", pos, f, tc.source, tc.carrier)
			if tc.err == "" {
				if err != nil || !v.Pass() {
					t.Fatalf("EvaluatePair: %v, pass %v; want a pass", err, v.Pass())
				}
				return
			}
			if err == nil || result.ExitCode(err) != result.ExitInputError || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "2 elements of the array at \"/outputs\"") {
				t.Fatalf("EvaluatePair: %v, want an input error holding %q", err, tc.err)
			}
		})
	}
}
