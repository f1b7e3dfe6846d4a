# METADATA
# title: T2 structured (primary)
# description: |
#   The observed structured slot has the source's structured state
#   (missing, null, empty, populated), type and exact value, and the same
#   text relation between the slot and the text items that parse whole as
#   strict JSON (neither, text_only, structure_only, equivalent,
#   conflicting). A value that survives only as JSON text does not satisfy
#   T2. Atoms: structured.state, structured.type, structured.value,
#   structured.relation.
# custom:
#   reads: [content, structured]
# scope: package
package contractcheck.tasks.t2

import data.contractcheck.lib.views

# json_items(view) are the values of the view's text items that are whole
# strict JSON documents, in order.
json_items(view) := [x |
	some t in views.text_items(view)
	x := contractcheck.json_text(t)
]

# type(view) is the JSON type of the structured slot; undefined when missing.
type(view) := type_name(view.structured) if views.has(view, "structured")

# relation(view, items) is the text relation between the slot and the JSON
# text items of the view (json_items(view)).
relation(view, items) := "neither" if {
	not views.has(view, "structured")
	count(items) == 0
} else := "text_only" if {
	not views.has(view, "structured")
} else := "structure_only" if {
	count(items) == 0
} else := "conflicting" if {
	some x in items
	x != view.structured
} else := "equivalent"

# The readings of each view, computed once per evaluation.
_state_s := views.structured_state(input.source)

_state_o := views.structured_state(input.observed)

_type_s := type(input.source)

_type_o := type(input.observed)

_relation_s := relation(input.source, json_items(input.source))

_relation_o := relation(input.observed, json_items(input.observed))

# _differ holds unless the two views are equal, in which case every reading
# is the same on both sides and T2 has nothing to report.
_differ if input.source != input.observed

# _state_kind(source_state, observed_state) is the diagnostic kind of a state
# difference: "missing" when the observed slot is absent, "added" when the
# source slot is absent, else "altered".
_state_kind(_, "missing") := "missing"

_state_kind("missing", o) := "added" if o != "missing"

_state_kind(s, o) := "altered" if {
	s != "missing"
	o != "missing"
}

# METADATA
# title: diagnostics
# description: |
#   The differences that make T2 unmet: the slot's state, then (both slots
#   present) its type, then (same type) its value at the minimal differing
#   JSON pointers, and the text relation. Empty when T2 passes.
# scope: document
diagnostics contains d if {
	_differ
	views.checked("structured.state")
	_state_s != _state_o
	d := {
		"atom": "structured.state", "path": "", "kind": _state_kind(_state_s, _state_o),
		"expected": _state_s, "observed": _state_o,
	}
}

diagnostics contains d if {
	_differ
	views.checked("structured.type")
	_type_s != _type_o
	d := {"atom": "structured.type", "path": "", "kind": "altered", "expected": _type_s, "observed": _type_o}
}

diagnostics contains d if {
	_differ
	views.checked("structured.value")
	_type_s == _type_o
	some x in views.diff(input.source.structured, input.observed.structured, "")
	d := object.union(x, {"atom": "structured.value"})
}

diagnostics contains d if {
	_differ
	views.checked("structured.relation")
	_relation_s != _relation_o
	d := {"atom": "structured.relation", "path": "", "kind": "altered", "expected": _relation_s, "observed": _relation_o}
}

# METADATA
# title: readout
# description: The observed state, type (omitted when missing) and relation.
readout := object.union(
	{"state": _state_o, "relation": _relation_o},
	{"type": t | t := _type_o},
)
