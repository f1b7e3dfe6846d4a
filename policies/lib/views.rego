# METADATA
# title: Canonical view helpers
# description: |
#   Shared helpers for the task policies. A view (docs/design.md) keeps
#   absence distinct from null: in Rego an absent key is undefined while a
#   present null binds null, so every helper here tests presence explicitly
#   and never uses object.get with a null default.
#
#   Values are compared as JSON values with numbers compared exactly as
#   decimals (see same/2). Diagnostics carry RFC 6901 JSON pointers.
# scope: package
package contractcheck.lib.views

# Task atoms are checked only when the contract lists them. A contract
# without an "atoms" key checks every atom of its task.
checked(atom) if atom in input.contract.atoms

checked(_) if not has(input.contract, "atoms")

# relaxed(atom) holds when the optional-null policy treats an absent value of
# this atom as null (symmetrically on the source and the observed side).
relaxed(atom) if {
	input.contract.nullPolicy == "optional-null"
	atom in input.contract.optional
}

# has(obj, key) holds when key is present in obj, whatever its value (null
# and false included).
has(obj, key) if {
	is_object(obj)
	_ = obj[key]
}

# content(view) is the view's content list; an absent (or non-array)
# content counts as an empty list.
#
# Beware: OPA hoists a ref out of a negated builtin call, so
# `not is_array(view.content)` is undefined, not true, when view.content is
# absent. Negations here wrap such tests in a helper rule, or (as here) are
# replaced by an else branch.
content(view) := view.content if {
	is_array(view.content)
} else := []

# text_items(view) are the text of the view's content items of kind text, in order.
text_items(view) := [b.text |
	some b in content(view)
	b.kind == "text"
	is_string(b.text)
]

# ---------------------------------------------------------------------------
# Exact value equality.
#
# OPA's == compares JSON values the way the checker needs: object key order
# ignored, array order kept, types distinct, and numbers compared exactly as
# decimals (int64, a 15-digit decimal fast path, else big.Rat), so
# 12345678901234567891 != 12345678901234567000 while 1e2 == 100 and
# 1.0 == 1. Its one inexact case is a float64 shortcut taken only when BOTH
# numbers are spelled with a '.' and trailing zeros (e.g.
# 0.10000000000000000000010 == 0.10 is true). The Go engine respells such
# numbers in the input and in contractcheck.json_text results without the
# trailing zeros, so == is exact on everything a policy reads.
#
# Note that OPA memoizes function calls by their arguments compared with ==:
# a function called with 1.0 and later with 1 in one evaluation may return
# the first call's result, so values echoed in diagnostics may show another
# spelling of the same decimal.
# ---------------------------------------------------------------------------

# same(a, b) holds when a and b are the same JSON value: object key order
# ignored, array order kept, types distinct, numbers compared exactly.
same(a, b) if a == b

# ---------------------------------------------------------------------------
# JSON pointers and value diffs.
# ---------------------------------------------------------------------------

# token(t) is one RFC 6901 reference token: array indices in decimal, object
# keys with "~" escaped as "~0" and "/" as "~1".
token(t) := format_int(t, 10) if {
	is_number(t)
} else := t if {
	is_string(t)
	not contains(t, "~")
	not contains(t, "/")
} else := replace(replace(t, "~", "~0"), "/", "~1") if is_string(t)

# pointer(base, path) appends the walk path (an array of keys and indices)
# to the JSON pointer base.
pointer(base, path) := concat("/", array.concat([base], [token(t) | some t in path]))

# diff(expected, observed, base) is the set of minimal differences between
# two present values, each {"path", "kind", "expected"?, "observed"?} with
# path a JSON pointer under base (tokens as in token/1). Equal values give
# the empty set. Differing values are walked: a member or index present only
# on the expected side is "missing", only on the observed side "added"; two
# scalars that differ, or two values of different types (object and array
# included), are "altered" (and their members are not reported). Numbers are
# compared exactly as decimals, and each reported value keeps the spelling
# of its own side.
#
# The walk is the custom builtin contractcheck.diff, implemented in Go
# (internal/policy/diff.go, docs/design.md); this function keeps the name
# and contract the task policies use.
diff(a, b, base) := contractcheck.diff(a, b, base)

# ---------------------------------------------------------------------------
# Atoms.
# ---------------------------------------------------------------------------

# _nullish(obj, key) holds when key is absent from obj or holds null.
_nullish(obj, key) if not has(obj, key)

_nullish(obj, key) if obj[key] == null

# absent_as_null(atom, s, o, key) holds when the null policy relaxes the atom
# and both sides read as null (absent and null being the same there).
absent_as_null(atom, s, o, key) if {
	relaxed(atom)
	_nullish(s, key)
	_nullish(o, key)
}

# atom_diff(atom, s, o, key, ptr, extra) compares the member key of the
# source object s and the observed object o, presence-aware: present only
# in s is "missing" at ptr, present only in o is "added" at ptr, present in
# both and different gives the minimal differences under ptr. Under
# optional-null, an atom listed in contract.optional that is absent or null
# on both sides is equal. Each diagnostic gets "atom" and the members of
# extra (e.g. {"block": 2}).
atom_diff(atom, s, o, key, ptr, extra) := set() if {
	absent_as_null(atom, s, o, key)
} else := _atom_diff(atom, s, o, key, ptr, extra)

# _atom_diff is atom_diff when the null policy does not relax the member:
# one diagnostic when it is present on one side only, the minimal value
# differences when present on both, none when absent from both.
_atom_diff(atom, s, o, key, ptr, extra) := {object.union(
	extra,
	{"atom": atom, "path": ptr, "kind": "missing", "expected": s[key]},
)} if {
	has(s, key)
	not has(o, key)
} else := {object.union(extra, {"atom": atom, "path": ptr, "kind": "added", "observed": o[key]})} if {
	not has(s, key)
	has(o, key)
} else := {object.union(extra, object.union(x, {"atom": atom})) |
	some x in diff(s[key], o[key], ptr)
} if {
	has(s, key)
	has(o, key)
} else := set()

# ---------------------------------------------------------------------------
# Blocks.
# ---------------------------------------------------------------------------

# The members that make up the primary value of a block of each kind.
_primary_keys := {
	"text": ["text"],
	"image": ["payload"],
	"audio": ["payload"],
	"resource": ["uri", "text", "payload"],
	"resource_link": ["uri"],
}

# primary(block) is the block's primary value: an object holding the
# primary members present in the block (all members for an unknown kind).
primary(block) := object.filter(block, _primary_keys[block.kind])

primary(block) := block if not _known_kind(block)

_known_kind(block) if _primary_keys[block.kind]

# ---------------------------------------------------------------------------
# Task-level readings shared by several tasks.
# ---------------------------------------------------------------------------

# structured_state(view) is "missing" (no structured key), "null", "empty"
# ({} or []) or "populated".
structured_state(view) := "missing" if {
	not has(view, "structured")
} else := "null" if {
	view.structured == null
} else := "empty" if {
	view.structured in {{}, []}
} else := "populated"

# decision(view) is the T3 decision: "abort" when an error was raised or
# isError is true, "continue" when isError is false, else "unknown" (isError
# absent or null: stricter than the schema default on purpose).
decision(view) := "abort" if {
	_aborts(view)
} else := "continue" if {
	view.isError == false
} else := "unknown"

# _aborts(view) holds when the view raised an error or isError is true.
_aborts(view) if has(view, "raised")

_aborts(view) if view.isError == true
