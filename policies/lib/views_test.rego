# METADATA
# title: Tests of contractcheck.lib.views
# description: Exact equality, canonical decimals, JSON pointers, value diffs, presence and null policies.
# scope: package
package contractcheck.lib.views_test

import data.contractcheck.lib.views

# OPA's == is exact for big integers: these two round to the same float64.
test_opa_eq_big_integers_exact if {
	12345678901234567891 != 12345678901234567000
	not views.same(12345678901234567891, 12345678901234567000)
	9007199254740993 != 9007199254740992
}

# OPA's == compares decimals by value: 1e2 == 100 and 1.0 == 1, and so does same.
test_opa_eq_decimal_spellings if {
	1e2 == 100
	1.0 == 1
	views.same(1e2, 100)
	views.same(1.0, 1)
	views.same(-0, 0)
	views.same({"a": [1.50, 2E+1]}, {"a": [1.5, 20]})
}

# The one place OPA's == is not exact: two numbers both spelled with a '.'
# and trailing zeros, one beyond OPA's 15-digit decimal fast path, are
# compared as float64. The Go engine respells such input numbers without the
# trailing zeros (internal/policy/numbers.go), which OPA compares exactly.
test_opa_eq_float64_shortcut_documented if {
	json.unmarshal("0.10000000000000000000010") == json.unmarshal("0.10") # the shortcut
	json.unmarshal("0.1000000000000000000001") != json.unmarshal("0.10") # respelled: exact
	json.unmarshal("1000000000000000000001e-22") != json.unmarshal("0.10")
	json.unmarshal("0.1000000000000000000001") == json.unmarshal("1000000000000000000001e-22")
}

test_same_types_distinct if {
	not views.same(1, "1")
	not views.same(null, false)
	not views.same({}, [])
	not views.same([1, 2], [2, 1])
	views.same({"a": 1, "b": 2}, {"b": 2, "a": 1})
}

test_pointer_escaping if {
	views.pointer("", ["a/b", "c~d", 3]) == "/a~1b/c~0d/3"
	views.pointer("/2/annotations", []) == "/2/annotations"
	views.token("com.example/private") == "com.example~1private"
}

test_diff_equal_is_empty if {
	views.diff({"a": [1, {"b": null}]}, {"a": [1.0, {"b": null}]}, "") == set()
}

test_diff_minimal_paths if {
	got := views.diff(
		{"status": "ok", "gone": 1, "list": [1, 2, 3], "deep": {"x": {"y": true}}, "t": {"u": 1}},
		{"status": "fine", "new": null, "list": [1, 2], "deep": {"x": {"y": false}}, "t": [1]},
		"/base",
	)
	got == {
		{"path": "/base/status", "kind": "altered", "expected": "ok", "observed": "fine"},
		{"path": "/base/gone", "kind": "missing", "expected": 1},
		{"path": "/base/new", "kind": "added", "observed": null},
		{"path": "/base/list/2", "kind": "missing", "expected": 3},
		{"path": "/base/deep/x/y", "kind": "altered", "expected": true, "observed": false},
		{"path": "/base/t", "kind": "altered", "expected": {"u": 1}, "observed": [1]},
	}
}

test_diff_scalar_root if {
	views.diff("a", "b", "/0/uri") == {{"path": "/0/uri", "kind": "altered", "expected": "a", "observed": "b"}}
	views.diff(null, {}, "") == {{"path": "", "kind": "altered", "expected": null, "observed": {}}}
}

test_has_keeps_null_and_false_present if {
	views.has({"a": null}, "a")
	views.has({"a": false}, "a")
	not views.has({"a": null}, "b")
	not views.has(null, "a")
}

_optional := {"contract": {"nullPolicy": "optional-null", "optional": ["block.title"]}}

_strict := {"contract": {"nullPolicy": "strict", "optional": ["block.title"]}}

test_atom_diff_strict_absent_vs_null if {
	d := views.atom_diff("block.title", {}, {"title": null}, "title", "/0/title", {"block": 0}) with input as _strict
	d == {{"atom": "block.title", "block": 0, "path": "/0/title", "kind": "added", "observed": null}}
	e := views.atom_diff("block.title", {"title": null}, {}, "title", "/0/title", {}) with input as _strict
	e == {{"atom": "block.title", "path": "/0/title", "kind": "missing", "expected": null}}
}

test_atom_diff_optional_null_relaxes_absent_vs_null if {
	views.atom_diff("block.title", {}, {"title": null}, "title", "/0/title", {}) == set() with input as _optional
	views.atom_diff("block.title", {"title": null}, {}, "title", "/0/title", {}) == set() with input as _optional
}

test_atom_diff_optional_null_keeps_populated if {
	d := views.atom_diff("block.title", {"title": "T"}, {}, "title", "/0/title", {}) with input as _optional
	d == {{"atom": "block.title", "path": "/0/title", "kind": "missing", "expected": "T"}}
	e := views.atom_diff("block.title", {"title": "T"}, {"title": null}, "title", "/0/title", {}) with input as _optional
	e == {{"atom": "block.title", "path": "/0/title", "kind": "altered", "expected": "T", "observed": null}}
}

test_atom_diff_optional_null_only_for_listed_atoms if {
	d := views.atom_diff("block.uri", {}, {"uri": null}, "uri", "/0/uri", {}) with input as _optional
	d == {{"atom": "block.uri", "path": "/0/uri", "kind": "added", "observed": null}}
}

test_structured_state if {
	views.structured_state({}) == "missing"
	views.structured_state({"structured": null}) == "null"
	views.structured_state({"structured": {}}) == "empty"
	views.structured_state({"structured": []}) == "empty"
	views.structured_state({"structured": {"a": 1}}) == "populated"
	views.structured_state({"structured": [null]}) == "populated"
	views.structured_state({"structured": false}) == "populated"
}

test_decision if {
	views.decision({"isError": true}) == "abort"
	views.decision({"raised": {"message": "boom"}}) == "abort"
	views.decision({"raised": {"message": "boom"}, "isError": false}) == "abort"
	views.decision({"isError": false}) == "continue"
	views.decision({"isError": null}) == "unknown"
	views.decision({}) == "unknown"
}

test_checked if {
	views.checked("block.uri") with input as {"contract": {"atoms": ["block.uri"]}}
	not views.checked("block.uri") with input as {"contract": {"atoms": ["block.text"]}}
	views.checked("block.uri") with input as {"contract": {}}
}

# Equal numbers beyond float64 may hash apart in the walk's set differences;
# they are still compared exactly and not reported.
test_diff_equal_numbers_beyond_float64 if {
	views.diff({"x": 1e400, "y": 1}, {"x": 10e399, "y": 2}, "") == {{"path": "/y", "kind": "altered", "expected": 1, "observed": 2}}
	views.diff([1e400, 1], [10e399], "") == {{"path": "/1", "kind": "missing", "expected": 1}}
}

test_token_plain_and_escaped if {
	views.token("plain") == "plain"
	views.token("a~/b") == "a~0~1b"
	views.token(3) == "3"
}

test_diff_array_indices if {
	views.diff([1, [2]], [1, [2, 3], {"a": 1}], "/p") == {
		{"path": "/p/1/1", "kind": "added", "observed": 3},
		{"path": "/p/2", "kind": "added", "observed": {"a": 1}},
	}
	views.diff({"a": [1, 2]}, {"a": {"0": 1}}, "") == {{"path": "/a", "kind": "altered", "expected": [1, 2], "observed": {"0": 1}}}
}

# diff is the Go builtin contractcheck.diff, also callable directly: keys
# are escaped as RFC 6901 tokens and equal decimals are not reported. (Each
# reported value keeps its own side's number spelling; == cannot tell
# spellings apart, so internal/policy/diff_test.go checks that.)
test_diff_escaped_keys_and_spellings if {
	got := views.diff(
		{"a/b": {"c~d": 1.0}, "n": 1e2, "gone": 2.50},
		{"a/b": {"c~d": 2}, "n": 100, "é": [1.50]},
		"/m",
	)
	got == {
		{"path": "/m/a~1b/c~0d", "kind": "altered", "expected": 1.0, "observed": 2},
		{"path": "/m/gone", "kind": "missing", "expected": 2.50},
		{"path": "/m/é", "kind": "added", "observed": [1.50]},
	}
	contractcheck.diff({"a/b": {"c~d": 1.0}}, {"a/b": {"c~d": 2}}, "") == {{"path": "/a~1b/c~0d", "kind": "altered", "expected": 1, "observed": 2}}
}
