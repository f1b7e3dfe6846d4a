# METADATA
# title: Minimal differences of two JSON values
# description: |
#   The pure-Rego equivalent of the checker's custom builtin contractcheck.diff
#   (internal/policy/diff.go, docs/design.md "Policy interface"): the set of minimal differences
#   between two JSON values, each {"path", "kind", "expected"?, "observed"?} with path an RFC 6901
#   pointer under base. Objects are compared member by member and arrays index by index; a member
#   only in expected is missing, only in observed added; two values that differ and are not both
#   objects or both arrays are one altered difference, their members not reported. Numbers compare
#   as exact decimals (Rego's ==), and each value keeps its own side's spelling.
package contractcheck.bundle.diff

import data.contractcheck.bundle.pointer

# between is the set of minimal differences between expected a and observed b under base.
between(a, b, base) := set() if {
	a == b
} else := {_altered(base, a, b)} if {
	not _same_container(a, b)
	a != b
} else := set() if {
	not _same_container(a, b)
} else := (_inner_altered(a, b, base) | _missing(a, b, base)) | _added(a, b, base)

# Differences below the root: a path of a is compared when b has it too.
_inner_altered(a, b, base) := {_altered(pointer.from_path(base, p), x, y) |
	walk(a, [p, x])
	count(p) > 0
	_has(b, p)
	y := _get(b, p)
	not _same_container(x, y)
	x != y
}

_missing(a, b, base) := {{"path": pointer.from_path(base, p), "kind": "missing", "expected": x} |
	walk(a, [p, x])
	count(p) > 0
	not _has(b, p)
	_parent_alike(a, b, p)
}

_added(a, b, base) := {{"path": pointer.from_path(base, p), "kind": "added", "observed": y} |
	walk(b, [p, y])
	count(p) > 0
	not _has(a, p)
	_parent_alike(b, a, p)
}

_altered(path, x, y) := {"path": path, "kind": "altered", "expected": x, "observed": y}

# _parent_alike holds when the parent of p is there in both values and is the same kind of
# container in both: then p's absence on one side is a missing or added member, not part of an
# altered value above it.
_parent_alike(from, to, p) if {
	parent := array.slice(p, 0, count(p) - 1)
	_has(to, parent)
	_same_container(_get(from, parent), _get(to, parent))
}

_same_container(x, y) if {
	is_object(x)
	is_object(y)
}

_same_container(x, y) if {
	is_array(x)
	is_array(y)
}

# _has holds when the typed path p (strings for keys, numbers for indices) is there in doc: the
# lookup gives the same value with two different defaults only when it finds one.
_has(doc, p) if {
	path := array.concat(["v"], p)
	object.get({"v": doc}, path, false) == object.get({"v": doc}, path, true)
}

_get(doc, p) := object.get({"v": doc}, array.concat(["v"], p), null)
