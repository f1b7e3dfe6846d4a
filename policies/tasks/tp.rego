# METADATA
# title: TP provider acceptance (guard)
# description: |
#   The request body's parts are ones the provider accepts: every part whose
#   lane binding names the provider's published request schema (accepts in
#   contracts/model.cue) validates against it. The view's "rejected" list
#   (docs/design.md) holds each part that does not, with the validator's
#   first error; each is an "altered" diagnostic. Atom: request.accepted.
#   Evaluated at H4 only. A binding that names no schema is not validated:
#   the readout says so ("validated": false), and the task cannot see a
#   rejection there.
# custom:
#   reads: [rejected]
# scope: package
package contractcheck.tasks.tp

import data.contractcheck.lib.views

_atom := "request.accepted"

default _rejected := []

_rejected := input.observed.rejected if is_array(input.observed.rejected)

# METADATA
# title: diagnostics
# description: One "altered" diagnostic per rejected part, at its block index.
diagnostics contains d if {
	views.checked(_atom)
	some r in _rejected
	d := {"atom": _atom, "path": sprintf("/%d", [r.block]), "kind": "altered", "block": r.block, "observed": r.error}
}

# METADATA
# title: readout
# description: Whether the binding validates parts at all, and how many it rejected.
readout := {"validated": _validated, "rejected": count(_rejected)}

# _validated holds when the binding names a provider schema: the view then has a rejected list.
default _validated := false

_validated if is_array(input.observed.rejected)
