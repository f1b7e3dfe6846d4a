package challenge

import (
	"fmt"
	"strings"

	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/project"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// The recursive-search baseline is the checker the study warns against: channel-insensitive, it
// looks for each source value anywhere in the carrier (any depth, any member, inside any string,
// inside any string that parses whole as JSON) and calls a value lost only when it is found
// nowhere. For a fault it looks for the source values of the atoms the fault changes, and
// detects the fault when one is missing; for a control it looks for every primary source value
// (block texts, payloads, URIs and MIME types, the structured slot, the error flag, the result
// _meta), and accepts the control when all are found.

// probe is one source value to look for; with key set, as the value of a member of that name.
type probe struct {
	key   string
	value any
	label string
}

var atomKeys = map[string][]string{
	"block.text": {"text"}, "block.payload": {"payload"}, "block.uri": {"uri"},
	"block.mimeType": {"mimeType"}, "block.name": {"name"}, "block.title": {"title"},
	"block.description": {"description"}, "block.size": {"size"}, "block.icons": {"icons"},
	"block.annotations": {"annotations"}, "block._meta": {"_meta"}, "block.resourceMeta": {"resourceMeta"},
	"block.primary": {"text", "payload", "uri"}, "block.count": {"text", "payload", "uri"},
}

var primaryKeys = []string{"text", "payload", "uri", "mimeType"}

func recursiveSearch(c *mutate.Case, src project.View, carrier any) (string, []string) {
	var probes []probe
	if c.Kind == mutate.Fault {
		probes = faultProbes(c, src)
	} else {
		probes = allProbes(src)
	}
	var missing []string
	for _, p := range probes {
		if !found(carrier, p, 0) {
			missing = append(missing, p.label)
		}
	}
	switch {
	case c.Kind == mutate.Fault && len(missing) > 0:
		return Detected, missing
	case c.Kind == mutate.Fault:
		return Missed, nil
	case len(missing) > 0:
		return Rejected, missing
	}
	return Accepted, nil
}

func sourceBlocks(src project.View) []map[string]any {
	items, _ := src["content"].([]any)
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i], _ = it.(map[string]any)
	}
	return out
}

func blockProbes(bs []map[string]any, idx int, keys []string) []probe {
	if idx < 0 || idx >= len(bs) || bs[idx] == nil {
		return nil
	}
	var out []probe
	for _, k := range keys {
		if v, ok := bs[idx][k]; ok {
			out = append(out, probe{value: v, label: fmt.Sprintf("content/%d/%s", idx, k)})
		}
	}
	return out
}

func faultProbes(c *mutate.Case, src project.View) []probe {
	var out []probe
	bs := sourceBlocks(src)
	for _, atom := range c.Atoms {
		switch {
		case strings.HasPrefix(atom, "block."):
			for _, b := range c.Blocks {
				out = append(out, blockProbes(bs, b, atomKeys[atom])...)
			}
		case strings.HasPrefix(atom, "structured."):
			slot, ok := src["structured"]
			if !ok {
				continue
			}
			if c.Path == "" {
				out = append(out, probe{value: slot, label: "structured"})
				continue
			}
			if v, ok := strictjson.Lookup(slot, c.Path); ok {
				toks := strings.Split(c.Path, "/")
				out = append(out, probe{key: strictjson.UnescapeToken(toks[len(toks)-1]), value: v, label: "structured" + c.Path})
			}
		case atom == "error.decision":
			out = append(out, errorProbes(src)...)
		case atom == "result._meta":
			if v, ok := src["meta"]; ok {
				out = append(out, probe{value: v, label: "_meta"})
			}
		}
	}
	return dedupe(out)
}

func errorProbes(src project.View) []probe {
	var out []probe
	if v, ok := src["isError"]; ok {
		out = append(out, probe{key: "isError", value: v, label: "isError"})
	}
	if r, ok := src["raised"].(map[string]any); ok {
		if msg, ok := r["message"]; ok {
			out = append(out, probe{value: msg, label: "error/message"})
		}
	}
	return out
}

func allProbes(src project.View) []probe {
	var out []probe
	bs := sourceBlocks(src)
	for i := range bs {
		out = append(out, blockProbes(bs, i, primaryKeys)...)
	}
	if v, ok := src["structured"]; ok {
		out = append(out, probe{value: v, label: "structured"})
	}
	out = append(out, errorProbes(src)...)
	if v, ok := src["meta"]; ok {
		out = append(out, probe{value: v, label: "_meta"})
	}
	return dedupe(out)
}

func dedupe(ps []probe) []probe {
	seen := map[string]bool{}
	var out []probe
	for _, p := range ps {
		if !seen[p.label] {
			seen[p.label] = true
			out = append(out, p)
		}
	}
	return out
}

// found searches v for the probe: an equal value anywhere (or, with a key, an equal member of
// that name), a string holding it, or a string that parses whole as JSON and holds it.
func found(v any, p probe, depth int) bool {
	if depth > 64 {
		return false
	}
	if p.key == "" && strictjson.Equal(v, p.value) {
		return true
	}
	switch x := v.(type) {
	case string:
		if s, ok := p.value.(string); ok && p.key == "" && s != "" && strings.Contains(x, s) {
			return true
		}
		if parsed, err := strictjson.Decode("", []byte(x), strictjson.DefaultLimits); err == nil {
			if _, isStr := parsed.(string); !isStr {
				return found(parsed, p, depth+1)
			}
		}
	case []any:
		for _, e := range x {
			if found(e, p, depth+1) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if p.key != "" && k == p.key && strictjson.Equal(e, p.value) {
				return true
			}
			if found(e, p, depth+1) {
				return true
			}
		}
	}
	return false
}
