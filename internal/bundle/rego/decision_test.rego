package contractcheck_test

import data.contractcheck as bundle
import data.contractcheck.bundle.hot
import data.contractcheck.bundle.json as jsontext
import data.contractcheck.bundle.tasks

# These tests run against a bundle's own data and policies (internal/bundle TestRego loads them):
# the built-in contract model under the strict profile.

_sdk := {"fixture": "C02", "lane": "go-sdk", "laneVersion": "v1.8.0", "configuration": "default", "stage": "D1"}

test_decision_on_a_lossy_carrier if {
	carrier := {
		"content": [{"type": "text", "text": "t"}],
		"structuredContent": {"sequence": 9007199254740992},
	}
	d := bundle.decision with input as object.union(_sdk, {"carrier": carrier})
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
	d := bundle.decision with input as object.union(_sdk, {"carrier": {}, "task": "T1"})
	[r.task | some r in d.results] == ["T1"]
}

test_decision_errors if {
	d := bundle.decision with input as object.union(_sdk, {"fixture": "C99", "carrier": {}})
	d.errors == ["unknown fixture \"C99\" (not in the catalog): post its W0 result as input.source to judge it without one"]
	not d.results
	e := bundle.decision with input as {"lane": "go-sdk"}
	"input.carrier is missing: post the carrier observed at the position" in e.errors
	"input.fixture must be a string" in e.errors
}

# A fixture no catalogue entry names, judged on its posted source: its entry derived from it.
test_decision_uncatalogued_source if {
	src := {"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}}
	d := bundle.decision with input as object.union(_direct, {"fixture": "MINE-1", "suite": "mine", "source": src, "carrier": src})
	not d.errors
	[[r.task, r.outcome] | some r in d.results] == [["T1", "pass"], ["T2", "pass"]]

	lost := {"content": [{"type": "text", "text": "{\"n\":1}"}]}
	e := bundle.decision with input as object.union(_direct, {"fixture": "MINE-1", "source": src, "carrier": lost})
	[[r.task, r.outcome] | some r in e.results] == [["T1", "pass"], ["T2", "unmet"]]

	f := bundle.decision with input as object.union(_direct, {"fixture": "MINE-1", "source": "text", "carrier": src})
	"input.source must be an object: the W0 result (a CallToolResult or its JSON-RPC response)" in f.errors
}

_direct := {"lane": "direct", "laneVersion": "v1", "configuration": "default", "stage": "D1"}

# R06 through openai-agents-js 0.5.4: TM is evaluated at M3 and H4, TP at H4 only.
_oajs := {"fixture": "R06", "lane": "openai-agents-js", "laneVersion": "0.5.4", "configuration": "default"}

_raw_base64 := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

test_decision_task_stages if {
	h4 := {"type": "function_call_output", "call_id": "c", "status": "completed", "output": [{"type": "input_image", "image_url": _raw_base64}]}
	d := bundle.decision with input as object.union(_oajs, {"stage": "H4", "carrier": h4})
	[r.task | some r in d.results] == ["T1", "T4", "TM", "TP"]
	some tp in d.results
	tp.task == "TP"
	tp.outcome == "unmet"
	tp.readout == {"validated": true, "rejected": 1}
	[x.observed | some x in tp.diagnostics] == ["/image_url: got string, want null; also /image_url: not a valid \"uri\": no scheme (not an absolute URI)"]

	a2 := {"type": "tool_call_output_item", "rawItem": {}, "output": {"type": "image", "data": _raw_base64, "mimeType": "image/png"}}
	e := bundle.decision with input as object.union(_oajs, {"stage": "A2", "carrier": a2})
	[r.task | some r in e.results] == ["T1", "T4"]
}

test_decision_task_not_at_stage if {
	d := bundle.decision with input as object.union(_oajs, {"stage": "A2", "carrier": {}, "task": "TP"})
	d.errors == ["task \"TP\" is not evaluated at stage A2 (only at H4)"]
}

# What a decision-log reader needs is echoed: the repetition (default 1), and the source digest and
# the record's place when posted.
test_decision_echoes_what_the_census_needs if {
	d := bundle.decision with input as object.union(_sdk, {"carrier": {}})
	d.repetition == 1
	not d.sourceSha256
	not d.record
	e := bundle.decision with input as object.union(_sdk, {"carrier": {}, "repetition": 3, "sourceSha256": "ab", "record": {"file": "x.jsonl", "line": 7}})
	e.repetition == 3
	e.sourceSha256 == "ab"
	e.record == {"file": "x.jsonl", "line": 7}
	f := bundle.decision with input as object.union(_sdk, {"carrier": {}, "repetition": 1.5, "sourceSha256": 1, "record": {"file": "x"}})
	f.errors == [
		"input.record must be an object {\"file\": string, \"line\": integer ≥ 1}",
		"input.repetition must be an integer ≥ 1",
		"input.sourceSha256 must be a string",
	]
}

# The bundle writer's task lists (hot.tasks) are the ones _tasks works out, on every catalogued
# fixture at every stage.
test_hot_tasks_are_worked_out_ones if {
	every f, by_stage in hot.tasks {
		every s, ts in by_stage {
			ts == bundle._tasks with input as {"fixture": f, "stage": s}
		}
	}
}

# An input _plain holds for has no errors: every observed position of the model, with a fixture.
test_plain_inputs_have_no_errors if {
	positions := [p |
		some l, lane in hot.model.lanes
		some v in lane.versions
		some c, _ in lane.configurations
		some s, stage in lane.stages
		stage.exposure == "observed"
		p := {"fixture": "C01", "lane": l, "laneVersion": v, "configuration": c, "stage": s, "carrier": {}}
	]
	count(positions) > 0
	every p in positions {
		bundle._plain with input as p
		count(bundle.errors) == 0 with input as p
	}
}

test_not_plain if {
	not bundle._plain with input as object.union(_sdk, {"carrier": {}, "task": "T1"})
	not bundle._plain with input as object.union(_sdk, {"carrier": {}, "fixture": "C99"})
	not bundle._plain with input as _sdk
	not bundle._plain with input as object.union(_sdk, {"carrier": {}, "stage": "A2"})
}

# The bundle writer's policy input members (hot.inputs) are the ones policy_input works out, for
# every catalogued fixture, stage and task.
test_hot_inputs_are_worked_out_ones if {
	every f, by_stage in hot.inputs {
		every s, by_task in by_stage {
			every t, x in by_task {
				x == object.filter(bundle.policy_input(t), ["task", "stage", "fixture", "contract"]) with input as {
					"fixture": f, "stage": s, "lane": "-", "laneVersion": "-", "configuration": "-",
				}
			}
		}
	}
}

# The carrier's numbers are respelled where OPA would compare them inexactly, wherever they are;
# digits inside a string are not a number.
test_carrier_respelled if {
	c := {"a": [1, {"b": 0.100000000000000000000010}], "s": "0.100000000000000000000010"}
	r := bundle._carrier with input as {"carrier": c}
	json.marshal(r) == `{"a":[1,{"b":0.10000000000000000000001}],"s":"0.100000000000000000000010"}`
	d := {"a": [1.50, {"b": 2}], "s": "0.100000000000000000000010"}
	json.marshal(bundle._carrier) == json.marshal(d) with input as {"carrier": d}
}

# The bundle writer's table of strict JSON texts (hot.texts) holds, for each string of the source
# views it names, what json.text reads from the string without the table, spelt alike.
test_hot_texts_are_read_ones if {
	count(hot.texts) > 0
	every s, v in hot.texts {
		json.marshal(v) == json.marshal(jsontext.text(s)) with hot.texts as {}
	}
}

# The bundle writer's narrowed source views (hot.narrowed) are the source views narrowed as the
# dispatch narrows them (tasks.narrow), for every catalogued fixture and task it names.
test_hot_narrowed_sources if {
	every f, by_task in hot.narrowed {
		every t, view in by_task {
			json.marshal(view) == json.marshal(tasks.narrow(t, hot.sources[f]))
		}
	}
}
