package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	opabundle "github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// uncataloguedSources generates W0 results no catalogue entry names, for one revision: every block
// kind (text plain, annotated and with _meta; image; audio; an embedded resource of text and of a
// blob; a resource link), the structured states the revision allows (absent, an object, and at
// 2026-07-28 null and an array), the error flag true, false and absent, result _meta, and the
// JSON-RPC result and error responses.
func uncataloguedSources(revision string) map[string]map[string]any {
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	blocks := []map[string]any{
		text("plain text"),
		{"type": "text", "text": "annotated", "annotations": map[string]any{"audience": []any{"user"}, "priority": 0.5}},
		{"type": "text", "text": "with meta", "_meta": map[string]any{"k": "v"}},
		{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
		{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
		{"type": "resource", "resource": map[string]any{"uri": "file:///r/a.txt", "mimeType": "text/plain", "text": "resource text"}},
		{"type": "resource", "resource": map[string]any{"uri": "file:///r/b.bin", "blob": "AAEC"}},
		{"type": "resource_link", "uri": "file:///r/c.txt", "name": "c.txt", "title": "C"},
	}
	structured := []any{nil, map[string]any{"orderId": "A-1", "total": 12.5, "lines": []any{1, 2}}}
	if revision == "2026-07-28" {
		structured = append(structured, "null", []any{map[string]any{"id": 1}, map[string]any{"id": 2}})
	}
	out := map[string]map[string]any{}
	add := func(doc map[string]any) {
		if revision == "2026-07-28" && doc["jsonrpc"] == nil {
			doc["resultType"] = "complete"
		}
		out[fmt.Sprintf("G%02d", len(out)+1)] = doc
	}
	for _, b := range blocks {
		add(map[string]any{"content": []any{b}})
	}
	for i, s := range structured {
		for _, isError := range []any{nil, true, false} {
			doc := map[string]any{"content": []any{text(`{"orderId":"A-1"}`)}}
			switch {
			case s == "null":
				doc["structuredContent"] = nil
			case s != nil:
				doc["structuredContent"] = s
			}
			if isError != nil {
				doc["isError"] = isError
			}
			if i == 1 && isError == nil {
				doc["_meta"] = map[string]any{"trace": "t-1"}
			}
			add(doc)
		}
	}
	add(map[string]any{"content": []any{}})
	add(map[string]any{"content": []any{blocks[0], blocks[3], blocks[7]}, "_meta": map[string]any{"k": 1}})
	add(map[string]any{"jsonrpc": "2.0", "id": 7, "error": map[string]any{"code": -32602, "message": "unknown tool"}})
	res := map[string]any{"content": []any{text("wrapped")}, "isError": false}
	if revision == "2026-07-28" {
		res["resultType"] = "complete"
	}
	add(map[string]any{"jsonrpc": "2.0", "id": 8, "result": res})
	return out
}

// lossy is a carrier that lost what a framework may lose: the structured value, the error flag,
// the result _meta, and every block but the first, whose annotations and _meta are dropped.
func lossy(src map[string]any) map[string]any {
	if src["jsonrpc"] != nil {
		return map[string]any{"jsonrpc": "2.0", "id": src["id"], "result": map[string]any{"content": []any{}}}
	}
	out := map[string]any{"content": []any{}}
	if items, _ := src["content"].([]any); len(items) > 0 {
		first := maps.Clone(items[0].(map[string]any))
		delete(first, "annotations")
		delete(first, "_meta")
		out["content"] = []any{first}
	}
	if rt, ok := src["resultType"]; ok {
		out["resultType"] = rt
	}
	return out
}

// TestUncataloguedAgrees holds the bundle's judging of a posted source no catalogue entry names
// (rego/derive.rego, decision.rego) to check's (internal/instrument DeriveFixtures, the task
// queries): on generated sources of both pinned revisions that have shapes, each posted with the
// source itself and a lossy carrier through the direct lane, the same tasks in the same order, and
// per task the same outcome, diagnostics and readout, evaluated by OPA's own evaluator on the
// built bundle (the stock OPA server is TestStockOPAAgreesWithCheck's, in the integration tier).
func TestUncataloguedAgrees(t *testing.T) {
	ctx := context.Background()
	pq := decisionQuery(t, builtin(t))
	agreeOnUncatalogued(t, func(input map[string]any) (map[string]any, error) {
		iv, err := ast.InterfaceToValue(asJSON(t, input))
		if err != nil {
			return nil, err
		}
		rs, err := pq.Eval(ctx, rego.EvalParsedInput(iv))
		if err != nil {
			return nil, err
		}
		if len(rs) != 1 {
			return nil, fmt.Errorf("%d results", len(rs))
		}
		d, _ := asJSON(t, rs[0].Bindings["d"]).(map[string]any)
		return d, nil
	})
}

// agreeOnUncatalogued posts every generated uncatalogued source, with itself and a lossy carrier,
// to decide (a decision of the bundle) and holds each decision to check's verdicts.
func agreeOnUncatalogued(t *testing.T, decide func(map[string]any) (map[string]any, error)) {
	ctx := context.Background()
	compared := 0
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		sources := uncataloguedSources(revision)
		dir := t.TempDir()
		for id, doc := range sources {
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, filepath.Join(dir, "sources", "gen", id+".json"), string(data))
		}
		in, err := instrument.Load(ctx, inputs.Options{Fixtures: []string{dir}, Revision: revision})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range slices.Sorted(maps.Keys(sources)) {
			f := in.Model.Fixtures[id]
			if !f.Derived {
				t.Fatalf("%s: not derived", id)
			}
			// Both sides read the source as the bytes were written.
			src, err := strictjson.Decode(id, in.Sources[id].Data, strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			for _, carrier := range []map[string]any{sources[id], lossy(sources[id])} {
				name := fmt.Sprintf("%s %s %s", revision, id, testkit.JSON(t, carrier))
				input := map[string]any{"fixture": id, "suite": "gen", "source": src, "carrier": carrier,
					"lane": "direct", "laneVersion": "v1", "configuration": "default", "stage": "D1"}
				d, err := decide(input)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				d = asJSON(t, d).(map[string]any)
				if d["errors"] != nil {
					t.Fatalf("%s: the bundle refuses it: %v", name, d["errors"])
				}
				results, _ := d["results"].([]any)
				var tasks []string
				for _, r := range results {
					tasks = append(tasks, r.(map[string]any)["task"].(string))
				}
				if !slices.Equal(tasks, f.Tasks) {
					t.Errorf("%s: the bundle evaluates %v, check %v", name, tasks, f.Tasks)
					continue
				}
				pos := result.Position{Fixture: id, Lane: "direct", LaneVersion: "v1", Configuration: "default", Stage: "D1"}
				for i, task := range f.Tasks {
					v, err := in.EvaluatePair(ctx, task, pos, f, src, asJSON(t, carrier))
					if err != nil {
						t.Fatalf("%s %s: %v", name, task, err)
					}
					r := results[i].(map[string]any)
					outcome := result.Unmet
					if v.Pass() {
						outcome = result.Pass
					}
					logged, err := decisionlog.EncodeTaskResult(task, outcome, v.Diagnostics, v.Readout, false)
					if err != nil {
						t.Fatal(err)
					}
					want := asJSON(t, map[string]any{"diagnostics": logged["diagnostics"], "readout": logged["readout"]})
					got := map[string]any{"diagnostics": r["diagnostics"], "readout": r["readout"]}
					if testkit.JSON(t, got) != testkit.JSON(t, want) {
						t.Errorf("%s %s:\nbundle %s\ncheck  %s", name, task, testkit.JSON(t, got), testkit.JSON(t, want))
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d task verdicts compared", compared)
	if compared < 100 {
		t.Fatalf("%d task verdicts compared: the generated set is too small to prove anything", compared)
	}
}

// asJSON is v as JSON reads it back: numbers as json.Number, objects as map[string]any.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := strictjson.Decode("", data, strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decisionQuery is OPA's own evaluator prepared on the bundle b as stock OPA loads it (written as
// a tarball and read back), for data.contractcheck.decision.
func decisionQuery(t *testing.T, b *Bundle) rego.PreparedEvalQuery {
	t.Helper()
	var tarball bytes.Buffer
	if err := b.WriteTarGz(&tarball); err != nil {
		t.Fatal(err)
	}
	ob, err := opabundle.NewReader(&tarball).WithRegoVersion(ast.RegoV1).Read()
	if err != nil {
		t.Fatal(err)
	}
	pq, err := rego.New(rego.Query("d := data.contractcheck.decision"), rego.ParsedBundle("contracts", &ob),
		rego.Capabilities(ast.CapabilitiesForThisVersion()), rego.StrictBuiltinErrors(true)).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return pq
}
