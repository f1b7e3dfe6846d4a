# METADATA
# title: T5 result metadata (guard)
# description: |
#   An application policy for the result-level _meta (the view's "meta"),
#   chosen by contract.metaPolicy.mode. "preserve": the observed meta equals
#   the source meta, presence-aware (under optional-null an absent meta reads
#   as null on both sides, since result._meta is optional). "withhold": each
#   key in metaPolicy.keys (the whole meta when keys is empty or absent) must
#   not reach the observed view. Atom: result._meta.
# custom:
#   reads: [meta]
# scope: package
package contractcheck.tasks.t5

import data.contractcheck.lib.views

_atom := "result._meta"

# The meta policy mode; "preserve" when the contract names none.
mode := object.get(input.contract, ["metaPolicy", "mode"], "preserve")

_keys := object.get(input.contract, ["metaPolicy", "keys"], [])

# METADATA
# title: diagnostics
# description: |
#   preserve: the minimal differences between the source and observed meta.
#   withhold: every withheld key (or the whole meta) present in the observed
#   meta, as "added". Empty when T5 passes.
# scope: document
diagnostics contains d if {
	mode == "preserve"
	views.checked(_atom)
	some d in views.atom_diff(_atom, input.source, input.observed, "meta", "", {})
}

diagnostics contains d if {
	mode == "withhold"
	views.checked(_atom)
	count(_keys) > 0
	some k in _keys
	views.has(input.observed.meta, k)
	d := {"atom": _atom, "path": concat("", ["/", views.token(k)]), "kind": "added", "observed": input.observed.meta[k]}
}

diagnostics contains d if {
	mode == "withhold"
	views.checked(_atom)
	count(_keys) == 0
	views.has(input.observed, "meta")
	not views.absent_as_null(_atom, {}, input.observed, "meta")
	d := {"atom": _atom, "path": "", "kind": "added", "observed": input.observed.meta}
}

# _present tells whether the observed view carries a meta key (even null).
default _present := false

_present if views.has(input.observed, "meta")

# METADATA
# title: readout
# description: The mode applied and whether (and with which keys) the observed meta is present.
readout := object.union(
	{"mode": mode, "present": _present},
	{"keys": sort(object.keys(m)) | m := input.observed.meta; is_object(m)},
)
