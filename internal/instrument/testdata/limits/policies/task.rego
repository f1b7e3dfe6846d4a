# METADATA
# title: A task that calls a builtin past the sandbox's limits
# description: |
#   The task evaluates the case of limits.cases its id names (input.task):
#   contractcheck check stops the policy at the limit and exits 3.
# scope: package
package limits.task

import data.limits.cases

readout := {}

diagnostics contains {"atom": "block.count", "path": "", "kind": "missing"} if {
	cases.value[input.task] == false
}
