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
# custom:
#   reads: [content]
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

# _differ holds unless both content lists are equal, in which case no block
# is missing, added or altered (whatever the null policy: it only relaxes
# differences) and T4 has nothing to report.
_differ if _source != _observed

# The compared members, as a set.
_member_names := {m | some m in members}

# The atoms the null policy relaxes (see views.relaxed).
_relaxed contains atom if {
	input.contract.nullPolicy == "optional-null"
	some atom in input.contract.optional
}

# METADATA
# title: diagnostics
# description: |
#   Missing and added blocks (block.count), and per block present on both
#   sides the missing, added or altered atoms, with the block index and the
#   JSON pointer of the difference (e.g. /2/uri, /2/annotations/priority).
# scope: document
diagnostics contains d if {
	_differ
	views.checked("block.count")
	obs := _observed
	some i, b in _source
	i >= count(obs)
	d := {"atom": "block.count", "path": sprintf("/%d", [i]), "kind": "missing", "block": i, "expected": b}
}

diagnostics contains d if {
	_differ
	views.checked("block.count")
	src := _source
	some i, b in _observed
	i >= count(src)
	d := {"atom": "block.count", "path": sprintf("/%d", [i]), "kind": "added", "block": i, "observed": b}
}

# Only the members of differing blocks that differ (present on one side
# only, or present on both with different values) are compared. Members of
# two objects are read with a default no JSON value can equal (a set), and
# only the checked members present in either block are visited; blocks that
# are not both objects take the general presence tests of views.atom_diff.
# Rule values used in the loops are bound to local variables first: a local
# variable is much cheaper to read than a rule.
diagnostics contains d if {
	_differ
	obs := _observed
	names := _member_names
	absent := _absent
	some i, s in _source
	o := obs[i]
	s != o
	is_object(s)
	is_object(o)
	some m in ((object.keys(s) | object.keys(o)) & names)
	sv := object.get(s, m, absent)
	ov := object.get(o, m, absent)
	sv != ov
	atom := concat(".", ["block", m])
	views.checked(atom)
	some d in _member_diff(atom, sv, ov, sprintf("/%d/%s", [i, views.token(m)]), i)
}

diagnostics contains d if {
	_differ
	obs := _observed
	some i, s in _source
	o := obs[i]
	s != o
	not _both_objects(s, o)
	some m in members
	not _member_same(s, o, m)
	atom := concat(".", ["block", m])
	views.checked(atom)
	some d in views.atom_diff(atom, s, o, m, sprintf("/%d/%s", [i, views.token(m)]), {"block": i})
}

# _absent is the value read for an absent member: a set, which no JSON value
# equals.
_absent := {"absent"}

# A member reads as null under a relaxed atom when absent or null.
_nullish := {null, _absent}

# _member_diff(atom, sv, ov, ptr, i) is views.atom_diff for two differing
# member values read from object blocks at index i (_absent when absent).
_member_diff(atom, sv, ov, ptr, i) := set() if {
	_relaxed[atom]
	_nullish[sv]
	_nullish[ov]
} else := {{"atom": atom, "block": i, "path": ptr, "kind": "missing", "expected": sv}} if {
	ov == _absent
} else := {{"atom": atom, "block": i, "path": ptr, "kind": "added", "observed": ov}} if {
	sv == _absent
} else := {object.union(x, {"atom": atom, "block": i}) | some x in views.diff(sv, ov, ptr)}

# _both_objects(s, o) holds when both blocks are objects.
_both_objects(s, o) if {
	is_object(s)
	is_object(o)
}

# _member_same(s, o, m) holds when member m is absent from both blocks or
# present in both with the same value.
_member_same(s, o, m) if {
	not views.has(s, m)
	not views.has(o, m)
}

_member_same(s, o, m) if s[m] == o[m]

# METADATA
# title: readout
# description: The observed block count and kinds, in order.
readout := {"count": count(_observed), "kinds": [object.get(b, "kind", null) | some b in _observed]}
