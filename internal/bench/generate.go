// Package bench generates binding sets for measuring contractcheck: a contracts layer adding a lane
// "bench" whose every stage reads the whole result, and observation records of the built-in
// fixtures at as many versions of that lane as it takes to reach a number of bindings. Every other
// version's carriers lose what frameworks are seen to lose (structuredContent, isError, block
// annotations), so passes and unmet bindings with diagnostics are both evaluated. With Unique,
// every carrier carries _meta entries naming its version and stage, on the result and on each of
// its content blocks, so that no two bindings share what their task reads and none is served by
// the verdict memo: a task that reads the content or the result _meta sees them. Only what no
// carrier can vary without another verdict stays shared: the error decision (T3 reads isError and
// a raised error alone) and the one fixture whose source is a JSON-RPC error response, which has
// no result to carry them. Repetitions repeat each record.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package bench

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Set is a generated binding set on disk.
type Set struct {
	Contracts    string // the contracts layer adding lane "bench"
	Observations string // the directory of its records
	Bindings     int    // the bindings a check of it evaluates
	Records      int
}

// Options size a set.
type Options struct {
	Bindings    int  // at least this many bindings
	Repetitions int  // records per position (1 when 0)
	Unique      bool // no two bindings share a policy input
	// Conftest, when set, is a directory to write each record to as a JSON file of its own, with
	// data.json listing the fixtures whose source holds structuredContent: conftest's inputs for
	// the same decision (internal/bench/conftest).
	Conftest string
}

// Generate writes a set below dir.
func Generate(dir string, o Options) (Set, error) {
	if o.Repetitions <= 0 {
		o.Repetitions = 1
	}
	srcs, err := contract.ReadLayers([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts")})
	if err != nil {
		return Set{}, err
	}
	m, err := contract.LoadCached(srcs, "")
	if err != nil {
		return Set{}, err
	}
	type source struct {
		doc any
		sha string
	}
	sources := map[string]source{}
	kinds := map[string][]string{}
	perVersion := 0
	for _, id := range contract.SortedKeys(m.Fixtures) {
		f := m.Fixtures[id]
		data, err := fs.ReadFile(contractcheck.Builtin, "fixtures/sources/"+f.Suite+"/"+id+".json")
		if err != nil {
			return Set{}, err
		}
		doc, err := strictjson.Decode(id, data, strictjson.DefaultLimits)
		if err != nil {
			return Set{}, err
		}
		sum := sha256.Sum256(data)
		sources[id] = source{doc, hex.EncodeToString(sum[:])}
		kinds[id] = contentKinds(doc)
	}
	// The tasks a check evaluates: those each fixture names, those whose appliesTo selects it,
	// each at the stages it is evaluated at.
	if err := m.ResolveTasks(kinds); err != nil {
		return Set{}, err
	}
	for _, id := range contract.SortedKeys(m.Fixtures) {
		for _, t := range m.Fixtures[id].Tasks {
			for _, st := range benchStages {
				if m.Tasks[t].AtStage(st) {
					perVersion++
				}
			}
		}
	}
	versions := (o.Bindings + perVersion - 1) / perVersion
	set := Set{Contracts: filepath.Join(dir, "contracts"), Observations: filepath.Join(dir, "observations"), Bindings: versions * perVersion}
	var names []string
	for v := range versions {
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("v%d", v)))
	}
	lane := fmt.Sprintf(`package contracts

// A generated lane for measuring: every stage reads the whole result.
lanes: bench: {
	doc:    "A generated lane for the benchmark: every stage reads the whole result."
	origin: "captured"
	versions: [%s]
	configurations: default: doc: "The only configuration."
	stages: {
		D1: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
		A2: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
		M3: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
		H4: {exposure: "observed", doc: "generated", carrier: "carriers/mcp-source.schema.json", compartments: _mcpCompartments}
	}
}

// bench gates the generated lane, so that the gate has something to decide on.
profiles: bench: {
	doc:        "The generated lane's bindings end in pass or unmet."
	nullPolicy: "strict"
	require: [{doc: "Every binding of the generated lane is captured.", lanes: ["bench"], outcomes: ["pass", "unmet"]}]
}
`, strings.Join(names, ", "))
	for _, d := range []string{set.Contracts, set.Observations} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Set{}, err
		}
	}
	if err := os.WriteFile(filepath.Join(set.Contracts, "bench.cue"), []byte(lane), 0o644); err != nil {
		return Set{}, err
	}
	f, err := os.Create(filepath.Join(set.Observations, "bench.jsonl"))
	if err != nil {
		return Set{}, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if o.Conftest != "" {
		if err := os.MkdirAll(filepath.Join(o.Conftest, "records"), 0o755); err != nil {
			f.Close()
			return Set{}, err
		}
		var structured []string
		for _, id := range contract.SortedKeys(m.Fixtures) {
			// The fixtures contractcheck decides T2 on, whose source has the slot.
			if doc, ok := sources[id].doc.(map[string]any); ok && slices.Contains(m.Fixtures[id].Tasks, "T2") {
				if _, has := doc["structuredContent"]; has {
					structured = append(structured, id)
				}
			}
		}
		data, _ := json.Marshal(map[string]any{"structured": structured})
		if err := os.WriteFile(filepath.Join(o.Conftest, "data.json"), data, 0o644); err != nil {
			f.Close()
			return Set{}, err
		}
	}
	for v := range versions {
		for _, id := range contract.SortedKeys(m.Fixtures) {
			src := sources[id]
			carrier := src.doc
			if v%2 == 1 {
				carrier = degrade(carrier)
			}
			for _, st := range benchStages {
				carrier := carrier
				if o.Unique {
					carrier = withPositionMeta(carrier, v, st)
				}
				for rep := 1; rep <= o.Repetitions; rep++ {
					rec := map[string]any{
						"fixture": id, "lane": "bench", "laneVersion": fmt.Sprintf("v%d", v), "configuration": "default",
						"stage": st, "repetition": rep, "state": "captured", "carrier": carrier,
						"sourceSha256": src.sha, "origin": "captured",
					}
					data, err := json.Marshal(rec)
					if err == nil {
						_, err = w.Write(append(data, '\n'))
					}
					if err != nil {
						f.Close()
						return Set{}, err
					}
					set.Records++
					if o.Conftest != "" {
						name := filepath.Join(o.Conftest, "records", fmt.Sprintf("%07d.json", set.Records))
						if err := os.WriteFile(name, data, 0o644); err != nil {
							f.Close()
							return Set{}, err
						}
					}
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return Set{}, err
	}
	return set, f.Close()
}

// benchStages are the generated lane's stages.
var benchStages = []string{"D1", "A2", "M3", "H4"}

// contentKinds lists the kinds of block a source's result content holds, sorted (a JSON-RPC
// envelope's result; none for an error response), as a check resolves task selectors with.
func contentKinds(doc any) []string {
	m, _ := doc.(map[string]any)
	if _, isRPC := m["jsonrpc"]; isRPC {
		m, _ = m["result"].(map[string]any)
	}
	items, _ := m["content"].([]any)
	var kinds []string
	for _, it := range items {
		obj, _ := it.(map[string]any)
		if k, ok := obj["type"].(string); ok && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// withPositionMeta adds _meta entries naming the version and the stage to the result and to each
// of its content blocks (inside a JSON-RPC envelope's result when there is one), which every
// compartment of the lane reads: a policy shares a verdict between positions whose inputs it
// cannot tell apart (check hands a task only the view members it declares it reads), and none
// reads the version or the stage themselves. A task reading the content (T1, T2, T4) sees the
// blocks' entries, one reading the result _meta (T5) the result's. A JSON-RPC error response has
// no result to carry them.
func withPositionMeta(doc any, v int, stage string) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := map[string]any{}
	for k, x := range m {
		out[k] = x
	}
	if res, ok := m["result"]; ok {
		out["result"] = withPositionMeta(res, v, stage)
		return out
	}
	if _, isRPC := m["jsonrpc"]; isRPC {
		return out
	}
	out["_meta"] = stampMeta(m["_meta"], v, stage)
	if content, ok := m["content"].([]any); ok {
		blocks := make([]any, len(content))
		for i, c := range content {
			b, ok := c.(map[string]any)
			if !ok {
				blocks[i] = c
				continue
			}
			nb := maps.Clone(b)
			nb["_meta"] = stampMeta(b["_meta"], v, stage)
			blocks[i] = nb
		}
		out["content"] = blocks
	}
	return out
}

// stampMeta is a copy of a _meta value (nil or an object) with entries naming the version and
// stage added.
func stampMeta(old any, v int, stage string) map[string]any {
	meta := map[string]any{}
	if o, ok := old.(map[string]any); ok {
		maps.Copy(meta, o)
	}
	meta["bench/version"] = json.Number(fmt.Sprint(v))
	meta["bench/stage"] = stage
	return meta
}

// degrade drops what frameworks are seen to drop: structuredContent, isError and block annotations.
func degrade(doc any) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := map[string]any{}
	for k, v := range m {
		if k != "structuredContent" && k != "isError" {
			out[k] = v
		}
	}
	if content, ok := m["content"].([]any); ok {
		blocks := make([]any, len(content))
		for i, c := range content {
			if b, ok := c.(map[string]any); ok {
				nb := map[string]any{}
				for k, v := range b {
					if k != "annotations" {
						nb[k] = v
					}
				}
				blocks[i] = nb
			} else {
				blocks[i] = c
			}
		}
		out["content"] = blocks
	}
	return out
}
