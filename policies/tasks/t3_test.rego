# METADATA
# title: Tests of contractcheck.tasks.t3
# description: A pass and an unmet case for each T3 decision, under both null policies.
# scope: package
package contractcheck.tasks.t3_test

import data.contractcheck.tasks.t3

_policies := ["strict", "optional-null"]

_in(src, obs, np) := {
	"task": "T3",
	"contract": {"atoms": ["error.decision"], "optional": ["result._meta"], "nullPolicy": np},
	"source": src,
	"observed": obs,
}

diags(src, obs, np) := d if {
	d := t3.diagnostics with input as _in(src, obs, np)
}

readout(obs) := r if {
	r := t3.readout with input as _in({}, obs, "strict")
}

_abort := {"isError": true, "content": [{"kind": "text", "text": "quota exceeded"}]}

_raised := {"raised": {"message": "-32602: unknown tool"}}

_continue := {"isError": false}

_unknown_absent := {"content": []}

_unknown_null := {"isError": null}

test_pass_each_decision if {
	every np in ["strict", "optional-null"] {
		every v in [_abort, _raised, _continue, _unknown_absent, _unknown_null] {
			diags(v, v, np) == set()
		}
		diags(_abort, _raised, np) == set() # both abort
		diags(_unknown_absent, _unknown_null, np) == set() # both unknown
	}
}

test_unmet_abort if {
	every np in _policies {
		diags(_abort, _unknown_absent, np) == {{
			"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": "abort", "observed": "unknown",
		}}
		diags(_raised, _continue, np) == {{
			"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": "abort", "observed": "continue",
		}}
	}
}

test_unmet_continue if {
	every np in _policies {
		# isError: false dropped: the default would say "not an error", T3 does not.
		diags(_continue, _unknown_absent, np) == {{
			"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": "continue", "observed": "unknown",
		}}
		diags(_continue, _unknown_null, np) == {{
			"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": "continue", "observed": "unknown",
		}}
	}
}

test_unmet_unknown if {
	every np in _policies {
		diags(_unknown_null, _continue, np) == {{
			"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": "unknown", "observed": "continue",
		}}
		diags(_unknown_absent, _abort, np) == {{
			"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": "unknown", "observed": "abort",
		}}
	}
}

test_readout if {
	readout(_abort) == {"decision": "abort"}
	readout(_raised) == {"decision": "abort"}
	readout(_continue) == {"decision": "continue"}
	readout(_unknown_absent) == {"decision": "unknown"}
	readout(_unknown_null) == {"decision": "unknown"}
	readout({"isError": "true"}) == {"decision": "unknown"}
}
