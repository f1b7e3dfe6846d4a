package schema

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// A user revision's schema is read under its own place in the schema layers, whatever its "$id".
//
// A draft's schema.json often carries a root "$id" ("urn:example:mcp:draft",
// "https://modelcontextprotocol.io/schemas/draft/schema.json"). To JSON Schema that $id is the base
// its references resolve against, so a relative "$ref" to another revision
// ("../2025-11-25/schema.json#/$defs/ContentBlock", as docs/writing-a-contract.md writes it) would
// resolve against the urn, not against the schema layers: it names nothing, or the draft itself (a
// JSONRPCResultResponse that is a "$ref" to 2025-11-25's then names itself, a reference cycle).
// The checker reads a revision's schema from mcp/<revision>/schema.json of its layer and nowhere
// else, so that place is its base: each user revision's schema is compiled with its root "$id"
// left out, its relative references resolving against mcp/<revision>/schema.json. The $id still
// names the schema: a "$ref" in any user revision's schema whose target is a user revision's root
// $id ("urn:example:mcp:draft#/$defs/ToolOutput") is read as a reference to that revision's
// schema.json, at the same fragment. Two user revisions declaring one root $id are an error at
// load naming both files. The built-in revisions carry no $id; an "$id" below a schema's root (a
// resource embedded in it) is the library's to resolve, as it is in any schema.

// revisionIDs are the root $ids of the user revisions' schemas: the absolute $id (no fragment) →
// the schema's path inside the schemas directory.
type revisionIDs map[string]string

// rootID is the root "$id" of a decoded schema resolved against its place in the schemas
// directory (path), without a fragment; "" when it has none, or one that is no string or URL (the
// library reports those when it compiles the schema).
func rootID(path string, doc any) string {
	m, _ := doc.(map[string]any)
	s, ok := m["$id"].(string)
	if !ok {
		return ""
	}
	base, err := url.Parse(baseURL + path)
	if err != nil {
		return ""
	}
	u, err := base.Parse(s)
	if err != nil {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// collectIDs reads the root $id of each user revision's schema (paths, with the files messages
// name them by), refusing one $id declared by two.
func (c *docCache) collectIDs(paths map[string]string) (revisionIDs, error) {
	ids := revisionIDs{}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		doc, err := c.raw(p)
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		id := rootID(p, doc)
		if id == "" || id == baseURL+p {
			continue
		}
		if other, ok := ids[id]; ok {
			return nil, &ValidationError{File: paths[p], Pointer: "/$id", Msg: fmt.Sprintf("%q is also the $id of %s: a revision's $id names one schema", id, paths[other])}
		}
		ids[id] = p
	}
	return ids, nil
}

// underOwnPlace is a user revision's schema doc (at path) as it is compiled: without its root
// "$id", every "$ref" naming a user revision's root $id made a reference to that revision's
// schema.json (see the top of this file). doc is not modified: what changes is copied.
func (ids revisionIDs) underOwnPlace(path string, doc any) any {
	m, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	base, err := url.Parse(baseURL + path)
	if err != nil {
		return doc
	}
	if s, ok := m["$id"].(string); ok {
		if b, err := base.Parse(s); err == nil {
			base = b
		}
		m = maps.Clone(m)
		delete(m, "$id")
	}
	out, _ := ids.rewriteRefs(m, base)
	return out
}

// rewriteRefs returns node with every "$ref" naming a user revision's root $id (resolved against
// base, the base the schema's author wrote it against) made the absolute URL of that revision's
// schema.json; changed says whether anything changed (nothing is copied otherwise).
func (ids revisionIDs) rewriteRefs(node any, base *url.URL) (out any, changed bool) {
	switch n := node.(type) {
	case map[string]any:
		if s, ok := n["$id"].(string); ok {
			if b, err := base.Parse(s); err == nil {
				base = b // an embedded resource: its references resolve against its own $id
			}
		}
		var copied map[string]any
		for k, x := range n { // any order: what changes is copied, the result is the same
			var nx any
			var ch bool
			switch s, isString := x.(string); {
			case isString && k == "$ref":
				nx, ch = ids.ref(s, base)
			case k == "const" || k == "enum" || k == "default" || k == "examples":
				// values, not schemas: a "$ref" member there is data
			default:
				nx, ch = ids.rewriteRefs(x, base)
			}
			if ch {
				if copied == nil {
					copied = maps.Clone(n)
				}
				copied[k] = nx
			}
		}
		if copied != nil {
			return copied, true
		}
		return n, false
	case []any:
		var copied []any
		for i, x := range n {
			if nx, ch := ids.rewriteRefs(x, base); ch {
				if copied == nil {
					copied = slices.Clone(n)
				}
				copied[i] = nx
			}
		}
		if copied != nil {
			return copied, true
		}
		return n, false
	}
	return node, false
}

// ref is one "$ref" value rewritten when it names a user revision's root $id.
func (ids revisionIDs) ref(s string, base *url.URL) (string, bool) {
	u, err := base.Parse(s)
	if err != nil {
		return s, false
	}
	frag := u.EscapedFragment()
	u.Fragment, u.RawFragment = "", ""
	p, ok := ids[u.String()]
	if !ok {
		return s, false
	}
	out := baseURL + p
	if frag != "" || strings.HasSuffix(s, "#") {
		out += "#" + frag
	}
	return out, true
}
