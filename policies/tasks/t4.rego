# METADATA
# title: T4 rich content (primary)
# description: |
#   Per block, in order, the observed content carries the complete
#   encoding-independent atoms of the source block: kind, text, payload,
#   mimeType, uri, name, title, description, size, icons, annotations,
#   _meta and resourceMeta (atoms block.kind ... block.resourceMeta), plus
#   block.count for missing and added blocks. Comparison is presence-aware;
#   under optional-null, atoms listed in contract.optional read absent as
#   null on both sides. Only atoms in contract.atoms are checked.
# scope: package
package contractcheck.tasks.t4

import data.contractcheck.lib.views

# The block members compared, in report order; atom "block.<member>".
members := [
	"kind", "text", "payload", "mimeType", "uri", "name", "title", "description",
	"size", "icons", "annotations", "_meta", "resourceMeta",
]

_source := views.content(input.source)

_observed := views.content(input.observed)

# METADATA
# title: diagnostics
# description: |
#   Missing and added blocks (block.count), and per block present on both
#   sides the missing, added or altered atoms, with the block index and the
#   JSON pointer of the difference (e.g. /2/uri, /2/annotations/priority).
diagnostics contains d if {
	views.checked("block.count")
	some i, b in _source
	i >= count(_observed)
	d := {"atom": "block.count", "path": sprintf("/%d", [i]), "kind": "missing", "block": i, "expected": b}
}

diagnostics contains d if {
	views.checked("block.count")
	some i, b in _observed
	i >= count(_source)
	d := {"atom": "block.count", "path": sprintf("/%d", [i]), "kind": "added", "block": i, "observed": b}
}

diagnostics contains d if {
	some i, s in _source
	o := _observed[i]
	not views.same(s, o)
	some m in members
	not _member_same(s, o, m)
	atom := concat(".", ["block", m])
	views.checked(atom)
	some d in views.atom_diff(atom, s, o, m, sprintf("/%d/%s", [i, views.token(m)]), {"block": i})
}

# _member_same(s, o, m) holds when member m is absent from both blocks or
# present in both with the same value (a fast path: no diff to compute).
_member_same(s, o, m) if {
	not views.has(s, m)
	not views.has(o, m)
}

_member_same(s, o, m) if s[m] == o[m]

# METADATA
# title: readout
# description: The observed block count and kinds, in order.
readout := {"count": count(_observed), "kinds": [object.get(b, "kind", null) | some b in _observed]}
