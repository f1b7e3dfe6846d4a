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

# relation(view) is the text relation between the slot and the JSON text items.
relation(view) := "neither" if {
	not views.has(view, "structured")
	count(json_items(view)) == 0
}

relation(view) := "text_only" if {
	not views.has(view, "structured")
	count(json_items(view)) > 0
}

relation(view) := "structure_only" if {
	views.has(view, "structured")
	count(json_items(view)) == 0
}

relation(view) := "equivalent" if {
	views.has(view, "structured")
	items := json_items(view)
	count(items) > 0
	every x in items {
		views.same(x, view.structured)
	}
}

relation(view) := "conflicting" if {
	views.has(view, "structured")
	some x in json_items(view)
	not views.same(x, view.structured)
}

_state_s := views.structured_state(input.source)

_state_o := views.structured_state(input.observed)

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
diagnostics contains d if {
	views.checked("structured.state")
	_state_s != _state_o
	d := {
		"atom": "structured.state", "path": "", "kind": _state_kind(_state_s, _state_o),
		"expected": _state_s, "observed": _state_o,
	}
}

diagnostics contains d if {
	views.checked("structured.type")
	ts := type(input.source)
	to := type(input.observed)
	ts != to
	d := {"atom": "structured.type", "path": "", "kind": "altered", "expected": ts, "observed": to}
}

diagnostics contains d if {
	views.checked("structured.value")
	type(input.source) == type(input.observed)
	some x in views.diff(input.source.structured, input.observed.structured, "")
	d := object.union(x, {"atom": "structured.value"})
}

diagnostics contains d if {
	views.checked("structured.relation")
	rs := relation(input.source)
	ro := relation(input.observed)
	rs != ro
	d := {"atom": "structured.relation", "path": "", "kind": "altered", "expected": rs, "observed": ro}
}

# METADATA
# title: readout
# description: The observed state, type (omitted when missing) and relation.
readout := object.union(
	{"state": _state_o, "relation": relation(input.observed)},
	{"type": t | t := type(input.observed)},
)
