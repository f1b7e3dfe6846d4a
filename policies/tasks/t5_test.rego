# METADATA
# title: Tests of contractcheck.tasks.t5
# description: T5 preserve and withhold, pass and unmet, under both null policies.
# scope: package
package contractcheck.tasks.t5_test

import data.contractcheck.tasks.t5

_policies := ["strict", "optional-null"]

_in(src, obs, np, meta_policy) := {
	"task": "T5",
	"contract": {
		"atoms": ["result._meta"],
		"optional": ["block._meta", "result._meta"],
		"nullPolicy": np,
		"metaPolicy": meta_policy,
	},
	"source": src,
	"observed": obs,
}

_preserve := {"mode": "preserve"}

_withhold := {"mode": "withhold", "keys": ["com.example/private"]}

preserve(src, obs, np) := d if {
	d := t5.diagnostics with input as _in(src, obs, np, _preserve)
}

withhold(src, obs, np, policy) := d if {
	d := t5.diagnostics with input as _in(src, obs, np, policy)
}

_meta := {"meta": {"com.example/trace": "t-1", "com.example/private": {"token": "s3cr3t"}, "n": 12345678901234567891}}

test_preserve_pass if {
	every np in _policies {
		preserve(_meta, _meta, np) == set()
		preserve({}, {}, np) == set()
		preserve({"meta": null}, {"meta": null}, np) == set()
	}
}

test_preserve_unmet_member if {
	obs := {"meta": {"com.example/trace": "t-2", "n": 12345678901234567000, "extra": true}}
	every np in _policies {
		preserve(_meta, obs, np) == {
			{"atom": "result._meta", "path": "/com.example~1trace", "kind": "altered", "expected": "t-1", "observed": "t-2"},
			{"atom": "result._meta", "path": "/com.example~1private", "kind": "missing", "expected": {"token": "s3cr3t"}},
			{"atom": "result._meta", "path": "/n", "kind": "altered", "expected": 12345678901234567891, "observed": 12345678901234567000},
			{"atom": "result._meta", "path": "/extra", "kind": "added", "observed": true},
		}
	}
}

test_preserve_unmet_dropped if {
	every np in _policies {
		preserve(_meta, {}, np) == {{"atom": "result._meta", "path": "", "kind": "missing", "expected": _meta.meta}}
		preserve({}, _meta, np) == {{"atom": "result._meta", "path": "", "kind": "added", "observed": _meta.meta}}
	}
}

test_preserve_absent_vs_null if {
	preserve({}, {"meta": null}, "strict") == {{"atom": "result._meta", "path": "", "kind": "added", "observed": null}}
	preserve({"meta": null}, {}, "strict") == {{"atom": "result._meta", "path": "", "kind": "missing", "expected": null}}
	preserve({}, {"meta": null}, "optional-null") == set()
	preserve({"meta": null}, {}, "optional-null") == set()
}

test_withhold_pass if {
	obs := {"meta": {"com.example/trace": "t-1"}}
	every np in _policies {
		withhold(_meta, obs, np, _withhold) == set()
		withhold(_meta, {}, np, _withhold) == set()
		withhold(_meta, {}, np, {"mode": "withhold"}) == set()
	}
	withhold(_meta, {"meta": null}, "optional-null", {"mode": "withhold", "keys": []}) == set()
}

test_withhold_unmet_key if {
	every np in _policies {
		withhold(_meta, _meta, np, _withhold) == {{
			"atom": "result._meta", "path": "/com.example~1private", "kind": "added", "observed": {"token": "s3cr3t"},
		}}
		withhold(_meta, {"meta": {"com.example/private": null}}, np, _withhold) == {{
			"atom": "result._meta", "path": "/com.example~1private", "kind": "added", "observed": null,
		}}
	}
}

test_withhold_unmet_whole_meta if {
	every np in _policies {
		withhold(_meta, _meta, np, {"mode": "withhold"}) == {{"atom": "result._meta", "path": "", "kind": "added", "observed": _meta.meta}}
		withhold(_meta, {"meta": {}}, np, {"mode": "withhold", "keys": []}) == {{"atom": "result._meta", "path": "", "kind": "added", "observed": {}}}
	}
	withhold(_meta, {"meta": null}, "strict", {"mode": "withhold"}) == {{"atom": "result._meta", "path": "", "kind": "added", "observed": null}}
}

test_readout if {
	r := t5.readout with input as _in({}, _meta, "strict", _withhold)
	r == {"mode": "withhold", "present": true, "keys": ["com.example/private", "com.example/trace", "n"]}
	s := t5.readout with input as _in({}, {}, "strict", _preserve)
	s == {"mode": "preserve", "present": false}
}

# T5 withhold reads the observed meta alone: identical source and observed
# views still report a withheld key (no equal-views shortcut applies).
test_withhold_identical_views_still_report if {
	every np in _policies {
		withhold(_meta, _meta, np, _withhold) == {{
			"atom": "result._meta", "path": "/com.example~1private", "kind": "added",
			"observed": {"token": "s3cr3t"},
		}}
		withhold(_meta, _meta, np, {"mode": "withhold"}) == {{
			"atom": "result._meta", "path": "", "kind": "added", "observed": _meta.meta,
		}}
	}
}
