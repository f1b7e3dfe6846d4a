# METADATA
# title: T3 error (primary)
# description: |
#   The observed view leads to the same error decision as the source:
#   "abort" when an error was raised (a JSON-RPC error response or the
#   framework's error exception) or isError is true, "continue" when isError
#   is false, "unknown" when isError is absent or null (stricter than the
#   schema default, on purpose). Atom: error.decision.
# custom:
#   reads: [isError, raised]
# scope: package
package contractcheck.tasks.t3

import data.contractcheck.lib.views

_expected := views.decision(input.source)

_observed := views.decision(input.observed)

# METADATA
# title: diagnostics
# description: An altered error.decision when the decisions differ; empty when T3 passes.
diagnostics contains d if {
	views.checked("error.decision")
	_expected != _observed
	d := {"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": _expected, "observed": _observed}
}

# METADATA
# title: readout
# description: The observed decision.
readout := {"decision": _observed}
