# METADATA
# title: Entries for sources no catalogue entry names
# description: |
#   check derives the entry of a source no catalogue entry names from the source itself
#   (internal/instrument/derive.go, docs/uncatalogued.md); the bundle derives it the same way from
#   a posted input.source, so that a stock OPA judges a user's own results: what the result holds
#   (structured, error, rich, meta, content, in that order), the family (error-response for a
#   JSON-RPC error response, else the first of what it holds, else content), and the tasks whose
#   appliesTo selects it, in the model's task order.
package contractcheck.bundle.derive

import data.contractcheck.contracts

# entry is the derived entry of fixture id of suite suite whose W0 document is src.
entry(id, suite, src) := {
	"suite": suite,
	"family": family(src),
	"tasks": tasks(id, {"suite": suite, "family": family(src), "holds": holds(src)}, kinds(src)),
	"holds": holds(src),
	"derived": true,
}

# result is the CallToolResult of a W0 document: the document, the result of a JSON-RPC result
# response, or nothing (an empty object) for a JSON-RPC error response.
result(src) := src if {
	not _has(src, "jsonrpc")
} else := src.result if {
	not _has(src, "error")
} else := {}

# rpc_error holds for a JSON-RPC error response.
rpc_error(src) if {
	_has(src, "jsonrpc")
	_has(src, "error")
}

# holds lists what the document holds, in the order a family is chosen.
holds(src) := [h | some h in ["structured", "error", "rich", "meta", "content"]; _holds(src, h)]

_holds(src, "structured") if _has(result(src), "structuredContent")

_holds(src, "error") if rpc_error(src)

_holds(src, "error") if _has(result(src), "isError")

_holds(src, "rich") if {
	some b in _blocks(src)
	_rich(b)
}

_holds(src, "meta") if _has(result(src), "_meta")

_holds(src, "content") if is_array(result(src).content)

_blocks(src) := result(src).content if is_array(result(src).content)

_rich(b) if object.get(b, "type", null) != "text"

_rich(b) if _has(b, "annotations")

_rich(b) if _has(b, "_meta")

# family is the document's family.
family(src) := "error-response" if {
	rpc_error(src)
} else := holds(src)[0] if {
	count(holds(src)) > 0
} else := "content"

# kinds are the kinds of the document's content blocks, sorted: what appliesTo.blockKinds reads.
kinds(src) := sort({b.type | some b in _blocks(src); is_string(b.type)})

# tasks are the tasks whose appliesTo selects the entry f of fixture id, in the model's task order
# (a derived entry names none itself).
tasks(id, f, ks) := [t |
	some t in sort(object.keys(contracts.model.tasks))
	sel := object.get(contracts.model.tasks[t], "appliesTo", null)
	sel != null
	selects(sel, id, f, ks)
]

# selects holds when the selector sel selects the derived entry f of fixture id with block kinds
# ks: every member set matches (contract.FixtureSelector.Selects). Names and globs match as Go's
# path.Match does for the names a model holds (no '/'): glob.match with '/' as the only delimiter.
selects(sel, id, f, ks) if {
	_member(sel, "fixtures", [id])
	_member(sel, "suites", [f.suite])
	_member(sel, "families", [f.family])
	_member(sel, "holds", f.holds)
	_member(sel, "blockKinds", ks)
}

_member(sel, k, _) if object.get(sel, k, null) == null

_member(sel, k, vals) if {
	some p in object.get(sel, k, [])
	some v in vals
	glob.match(p, ["/"], v)
}

_has(obj, key) if {
	is_object(obj)
	_ = obj[key]
}
