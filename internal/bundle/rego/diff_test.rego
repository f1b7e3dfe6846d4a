package contractcheck.bundle.diff_test

import data.contractcheck.bundle.diff

test_equal_is_empty if {
	diff.between({"a": [1, {"b": null}]}, {"a": [1.0, {"b": null}]}, "") == set()
	diff.between(1e2, 100, "/x") == set()
}

test_minimal_paths if {
	got := diff.between(
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

test_scalar_and_mixed_roots if {
	diff.between("a", "b", "/0/uri") == {{"path": "/0/uri", "kind": "altered", "expected": "a", "observed": "b"}}
	diff.between(null, {}, "") == {{"path": "", "kind": "altered", "expected": null, "observed": {}}}
	diff.between({}, [], "") == {{"path": "", "kind": "altered", "expected": {}, "observed": []}}
}

test_added_array_tail_and_escaped_keys if {
	diff.between([1], [1, {"a/b": 2}], "") == {{"path": "/1", "kind": "added", "observed": {"a/b": 2}}}
	diff.between({"a/b": {"c~d": 1}}, {"a/b": {"c~d": 2}}, "") == {{"path": "/a~1b/c~0d", "kind": "altered", "expected": 1, "observed": 2}}
}

test_exact_numbers_keep_their_spelling if {
	diff.between({"n": 12345678901234567891}, {"n": 12345678901234567000}, "") == {{"path": "/n", "kind": "altered", "expected": 12345678901234567891, "observed": 12345678901234567000}}
	d := diff.between([1.50], [2.0], "")
	json.marshal(d) == "[{\"expected\":1.50,\"kind\":\"altered\",\"observed\":2.0,\"path\":\"/0\"}]"
}

test_false_and_null_members_are_present if {
	diff.between({"a": false}, {}, "") == {{"path": "/a", "kind": "missing", "expected": false}}
	diff.between({}, {"a": null}, "") == {{"path": "/a", "kind": "added", "observed": null}}
}
