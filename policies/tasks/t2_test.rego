# METADATA
# title: Tests of contractcheck.tasks.t2
# description: |
#   A pass and an unmet case for each structured state, type, value
#   difference and text relation, under both null policies.
# scope: package
package contractcheck.tasks.t2_test

import data.contractcheck.tasks.t2

_policies := ["strict", "optional-null"]

_in(src, obs, np) := {
	"task": "T2",
	"fixture": {"id": "C05", "family": "structured"},
	"contract": {
		"atoms": ["structured.state", "structured.type", "structured.value", "structured.relation"],
		"optional": ["result._meta"],
		"nullPolicy": np,
		"metaPolicy": {"mode": "preserve"},
	},
	"source": src,
	"observed": obs,
}

diags(src, obs, np) := d if {
	d := t2.diagnostics with input as _in(src, obs, np)
}

readout(v) := r if {
	r := t2.readout with input as _in({}, v, "strict")
}

_text(s) := {"kind": "text", "text": s}

# One view per state x relation.
_missing_neither := {"content": [_text("Weather is fine.")]}

_missing_text_only := {"content": [_text(`{"status": "ok"}`)]}

_null := {"structured": null, "content": [_text("no data")]}

_empty_object := {"structured": {}, "content": []}

_empty_array := {"structured": []}

_populated_structure_only := {"structured": {"status": "ok", "n": 12345678901234567891}}

_populated_equivalent := {"structured": {"status": "ok"}, "content": [_text(` {"status":"ok"} `)]}

_populated_conflicting := {
	"structured": {"decision": "deny"},
	"content": [_text(`{"decision": "allow"}`)],
}

_views := [
	_missing_neither, _missing_text_only, _null, _empty_object, _empty_array,
	_populated_structure_only, _populated_equivalent, _populated_conflicting,
]

test_pass_each_state_and_relation if {
	every np in _policies {
		every v in _views {
			diags(v, v, np) == set()
		}
	}
}

test_readout_each_state_and_relation if {
	readout(_missing_neither) == {"state": "missing", "relation": "neither"}
	readout(_missing_text_only) == {"state": "missing", "relation": "text_only"}
	readout(_null) == {"state": "null", "type": "null", "relation": "structure_only"}
	readout(_empty_object) == {"state": "empty", "type": "object", "relation": "structure_only"}
	readout(_empty_array) == {"state": "empty", "type": "array", "relation": "structure_only"}
	readout(_populated_structure_only) == {"state": "populated", "type": "object", "relation": "structure_only"}
	readout(_populated_equivalent) == {"state": "populated", "type": "object", "relation": "equivalent"}
	readout(_populated_conflicting) == {"state": "populated", "type": "object", "relation": "conflicting"}
}

# Prose-wrapped, concatenated and duplicate-key JSON are not JSON text items.
test_relation_strict_json_only if {
	not_json := [
		`The result is {"status": "ok"}`, `{"a":1}{"a":1}`, `{"a":1,"a":2}`, `{"a":1,}`, ``,
	]
	every s in not_json {
		readout({"content": [_text(s)]}).relation == "neither"
	}
	readout({"content": [_text("42")]}).relation == "text_only"
}

test_relation_every_item_must_equal if {
	v := {"structured": {"a": 1}, "content": [_text(`{"a": 1}`), _text("prose"), _text(`{"a": 1.0}`)]}
	readout(v).relation == "equivalent"
	w := {"structured": {"a": 1}, "content": [_text(`{"a": 1}`), _text(`{"a": 2}`)]}
	readout(w).relation == "conflicting"
}

# A value that survives only as JSON text does not satisfy T2.
test_unmet_populated_to_text_only if {
	every np in _policies {
		diags(_populated_equivalent, {"content": [_text(`{"status":"ok"}`)]}, np) == {
			{"atom": "structured.state", "path": "", "kind": "missing", "expected": "populated", "observed": "missing"},
			{"atom": "structured.relation", "path": "", "kind": "altered", "expected": "equivalent", "observed": "text_only"},
		}
	}
}

test_unmet_missing_to_populated if {
	every np in _policies {
		diags(_missing_neither, {"structured": {"x": 1}, "content": [_text("Weather is fine.")]}, np) == {
			{"atom": "structured.state", "path": "", "kind": "added", "expected": "missing", "observed": "populated"},
			{"atom": "structured.relation", "path": "", "kind": "altered", "expected": "neither", "observed": "structure_only"},
		}
	}
}

# Absent and null slots stay distinct under both null policies: the slot is not an optional atom.
test_unmet_null_to_missing if {
	every np in _policies {
		diags(_null, {"content": [_text("no data")]}, np) == {
			{"atom": "structured.state", "path": "", "kind": "missing", "expected": "null", "observed": "missing"},
			{"atom": "structured.relation", "path": "", "kind": "altered", "expected": "structure_only", "observed": "neither"},
		}
	}
}

test_unmet_empty_to_null if {
	every np in _policies {
		diags(_empty_object, {"structured": null, "content": []}, np) == {
			{"atom": "structured.state", "path": "", "kind": "altered", "expected": "empty", "observed": "null"},
			{"atom": "structured.type", "path": "", "kind": "altered", "expected": "object", "observed": "null"},
		}
	}
}

test_unmet_empty_object_to_empty_array if {
	every np in _policies {
		diags(_empty_object, _empty_array, np) == {
			{"atom": "structured.type", "path": "", "kind": "altered", "expected": "object", "observed": "array"},
		}
	}
}

test_unmet_empty_to_populated if {
	every np in _policies {
		diags(_empty_object, {"structured": {"a": 1}}, np) == {
			{"atom": "structured.state", "path": "", "kind": "altered", "expected": "empty", "observed": "populated"},
			{"atom": "structured.value", "path": "/a", "kind": "added", "observed": 1},
		}
	}
}

test_unmet_value_altered_missing_added if {
	src := {"structured": {"status": "ok", "reason": null, "items": [1, 2, 3], "nested": {"k": true}}}
	obs := {"structured": {"status": "fine", "items": [1, 2], "nested": {"k": "true"}, "extra": 0}}
	every np in _policies {
		diags(src, obs, np) == {
			{"atom": "structured.value", "path": "/status", "kind": "altered", "expected": "ok", "observed": "fine"},
			{"atom": "structured.value", "path": "/reason", "kind": "missing", "expected": null},
			{"atom": "structured.value", "path": "/items/2", "kind": "missing", "expected": 3},
			{"atom": "structured.value", "path": "/nested/k", "kind": "altered", "expected": true, "observed": "true"},
			{"atom": "structured.value", "path": "/extra", "kind": "added", "observed": 0},
		}
	}
}

# Numbers are compared exactly: big integers that share a float64 differ,
# while other spellings of one decimal are equal.
test_value_numbers_exact if {
	every np in _policies {
		diags({"structured": {"n": 12345678901234567891}}, {"structured": {"n": 12345678901234567000}}, np) == {{
			"atom": "structured.value", "path": "/n", "kind": "altered",
			"expected": 12345678901234567891, "observed": 12345678901234567000,
		}}
		diags({"structured": {"a": 1e2, "b": 1.0}}, {"structured": {"a": 100, "b": 1}}, np) == set()
	}
}

test_value_scalar_root if {
	every np in _policies {
		diags({"structured": "a"}, {"structured": "b"}, np) == {{
			"atom": "structured.value", "path": "", "kind": "altered", "expected": "a", "observed": "b",
		}}
	}
}

test_unmet_object_to_array_type if {
	every np in _policies {
		diags({"structured": {"a": 1}}, {"structured": [1]}, np) == {{
			"atom": "structured.type", "path": "", "kind": "altered", "expected": "object", "observed": "array",
		}}
	}
}

test_unmet_relation_each if {
	every np in _policies {
		# conflicting -> equivalent (the framework "fixed" the text)
		diags(_populated_conflicting, object.union(_populated_conflicting, {"content": [_text(`{"decision":"deny"}`)]}), np) == {{
			"atom": "structured.relation", "path": "", "kind": "altered", "expected": "conflicting", "observed": "equivalent",
		}}

		# equivalent -> structure_only (text dropped)
		diags(_populated_equivalent, object.remove(_populated_equivalent, ["content"]), np) == {{
			"atom": "structured.relation", "path": "", "kind": "altered", "expected": "equivalent", "observed": "structure_only",
		}}

		# structure_only -> equivalent (text added)
		obs := object.union(_populated_structure_only, {"content": [_text(`{"status":"ok","n":12345678901234567891}`)]})
		diags(_populated_structure_only, obs, np) == {{
			"atom": "structured.relation", "path": "", "kind": "altered", "expected": "structure_only", "observed": "equivalent",
		}}

		# text_only -> neither (text no longer JSON)
		diags(_missing_text_only, {"content": [_text("status: ok")]}, np) == {{
			"atom": "structured.relation", "path": "", "kind": "altered", "expected": "text_only", "observed": "neither",
		}}

		# neither -> text_only
		diags(_missing_neither, _missing_text_only, np) == {{
			"atom": "structured.relation", "path": "", "kind": "altered", "expected": "neither", "observed": "text_only",
		}}
	}
}

# Big numbers inside JSON text are exact too (contractcheck.json_text keeps digits).
test_relation_text_numbers_exact if {
	v := {"structured": {"n": 12345678901234567891}, "content": [_text(`{"n": 12345678901234567000}`)]}
	readout(v).relation == "conflicting"
}

test_only_listed_atoms if {
	inp := object.union(_in(_populated_equivalent, _missing_text_only, "strict"), {"contract": {"atoms": ["structured.value"]}})
	t2.diagnostics == set() with input as inp
}

# Equal views take the fast path: nothing to report, and the readout is still
# the observed view's.
test_identical_views_pass if {
	every v in _views {
		every np in _policies {
			diags(v, v, np) == set()
		}
	}
	t2.readout == {"state": "populated", "type": "object", "relation": "conflicting"} with input as _in(_populated_conflicting, _populated_conflicting, "strict")
}
