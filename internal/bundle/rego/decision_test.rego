package contractcheck_test

import data.contractcheck

# These tests run against a bundle's own data and policies (internal/bundle TestRego loads them):
# the built-in contract model under the strict profile.

_sdk := {"fixture": "C02", "lane": "go-sdk", "laneVersion": "v1.8.0", "configuration": "default", "stage": "D1"}

test_decision_on_a_lossy_carrier if {
	carrier := {
		"content": [{"type": "text", "text": "t"}],
		"structuredContent": {"sequence": 9007199254740992},
	}
	d := contractcheck.decision with input as object.union(_sdk, {"carrier": carrier})
	d.profile == "strict"
	[r.task | some r in d.results] == ["T1", "T2"]
	some r in d.results
	r.task == "T2"
	r.outcome == "unmet"
	some x in r.diagnostics
	x.path == "/sequence"
	x.expected == 9007199254740993
	x.observed == 9007199254740992
}

test_decision_one_task if {
	d := contractcheck.decision with input as object.union(_sdk, {"carrier": {}, "task": "T1"})
	[r.task | some r in d.results] == ["T1"]
}

test_decision_errors if {
	d := contractcheck.decision with input as object.union(_sdk, {"fixture": "C99", "carrier": {}})
	d.errors == ["unknown fixture \"C99\" (not in the catalog)"]
	not d.results
	e := contractcheck.decision with input as {"lane": "go-sdk"}
	"input.carrier is missing: post the carrier observed at the position" in e.errors
	"input.fixture must be a string" in e.errors
}
