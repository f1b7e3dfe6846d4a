package project

import (
	"sort"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// What a view holds: an entry derived from a source no catalogue entry names takes its family and
// its decoder targets from its source view.

// Holds lists what a W0 result holds, as its revision's source binding reads it (its source
// view), in the order a derived entry's family is chosen (instrument.DeriveFixtures,
// docs/uncatalogued.md): structured (a structured slot, null
// included), error (an error flag, or a raised error: a JSON-RPC error response), rich (a block
// other than text, or a text block with annotations or _meta), meta (a result _meta), content (a
// content list). For the pinned revisions these are the CallToolResult's structuredContent,
// isError, content and _meta members; a revision whose result has no top-level content holds
// what its binding reads.
func Holds(view View) []string {
	var out []string
	if _, ok := view["structured"]; ok {
		out = append(out, "structured")
	}
	_, flag := view["isError"]
	if _, raised := view["raised"]; flag || raised {
		out = append(out, "error")
	}
	items, hasContent := view["content"].([]any)
	for _, it := range items {
		b, _ := it.(map[string]any)
		_, ann := b["annotations"]
		_, meta := b["_meta"]
		if b["kind"] != "text" || ann || meta {
			out = append(out, "rich")
			break
		}
	}
	if _, ok := view["meta"]; ok {
		out = append(out, "meta")
	}
	if hasContent {
		out = append(out, "content")
	}
	return out
}

// Targets are the decoder targets a source view offers, those of an entry derived from the source
// (instrument.DeriveFixtures): the whole structured value (""), and each member of an object as a
// JSON pointer, sorted; none when the view has no structured value (or a null one).
func Targets(view View) []string {
	v, ok := view["structured"]
	if !ok || v == nil {
		return []string{}
	}
	out := []string{""}
	if obj, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, "/"+strictjson.EscapeToken(k))
		}
		sort.Strings(keys)
		out = append(out, keys...)
	}
	return out
}
