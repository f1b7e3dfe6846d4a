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

	# The values of the user's data are described, not quoted: a digest of their JSON text.
	x.expected == {"type": "number", "sha256": crypto.sha256("9007199254740993")}
	x.observed == {"type": "number", "sha256": crypto.sha256("9007199254740992")}
	json.unmarshal(r.readout.json) == {"relation": "structure_only", "state": "populated", "type": "object"}

	# A bundle built with --quote-data quotes them as their JSON text, which keeps every digit
	# through OPA's upload (a number there goes through float64).
	q := bundle.decision with input as object.union(_sdk, {"carrier": carrier})
		with hot.quote_data as true
	some qr in q.results
	qr.task == "T2"
	some y in qr.diagnostics
	y.path == "/sequence"
	y.expected == {"json": "9007199254740993"}
	y.observed == {"json": "9007199254740992"}
}

# A decision quotes nothing of the user's data unless the bundle was built to: a missing text block
# (its text a secret) and a resource link's URI are described by type, length and digest, and the
# decision's JSON holds neither; with --quote-data both are there, as their JSON text.
test_decision_quotes_no_user_data if {
	secret := "SECRET-TEXT-7f3a <script>"
	src := {"content": [
		{"type": "text", "text": secret},
		{"type": "resource_link", "uri": "https://example.com/private/SECRET-URI", "name": "n"},
	]}
	input_ := object.union(_direct, {"fixture": "MINE-2", "source": src, "carrier": {"content": []}})
	d := bundle.decision with input as input_
	text := json.marshal(d)
	not contains(text, "SECRET")
	some r in d.results
	r.task == "T1"
	r.outcome == "unmet"
	some x in r.diagnostics
	x.kind == "missing"
	x.block == 0
	x.expected == {"type": "object", "length": 2, "sha256": crypto.sha256(json.marshal({"kind": "text", "text": secret}))}

	q := bundle.decision with input as input_ with hot.quote_data as true
	contains(json.marshal(q), "SECRET-TEXT-7f3a")
	contains(json.marshal(q), "SECRET-URI")
}

# logged_value describes each JSON type: a string's length in characters, an array's items, an
# object's members; a set is an array.
test_logged_value_describes if {
	every v, want in {
		"héllo": {"type": "string", "length": 5},
		7: {"type": "number"},
		false: {"type": "boolean"},
		null: {"type": "null"},
		"[1,2]": {"type": "array", "length": 2},
		"{\"a\":1}": {"type": "object", "length": 1},
	} {
		x := _value_of(v)
		got := bundle.logged_value(x)
		got == object.union(want, {"sha256": crypto.sha256(json.marshal(x))})
	}
	bundle.logged_value({1, 2}) == {"type": "array", "length": 2, "sha256": crypto.sha256("[1,2]")}
}

# _value_of reads the arrays and objects of test_logged_value_describes from their JSON text (an
# object's key cannot be an array).
_value_of(v) := json.unmarshal(v) if {
	is_string(v)
	startswith(v, "[")
} else := json.unmarshal(v) if {
	is_string(v)
	startswith(v, "{")
} else := v

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
	json.unmarshal(tp.readout.json) == {"validated": true, "rejected": 1}
	[x.observed.type | some x in tp.diagnostics] == ["string"]
	q := bundle.decision with input as object.union(_oajs, {"stage": "H4", "carrier": h4}) with hot.quote_data as true
	[json.unmarshal(x.observed.json) | some r in q.results; r.task == "TP"; some x in r.diagnostics] == ["/image_url: got string, want null; also /image_url: not a valid \"uri\": no scheme (not an absolute URI)"]

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
		"input.record must be an object {\"file\": string, \"line\": integer from 1 to 9007199254740991}",
		"input.repetition must be an integer from 1 to 9007199254740991",
		"input.sourceSha256 must be a string",
	]

	# What the result echoes must survive a float64 (OPA's upload): 2^53 does not.
	g := bundle.decision with input as object.union(_sdk, {"carrier": {}, "repetition": 9007199254740992, "record": {"file": "x", "line": 9007199254740993}})
	g.errors == [
		"input.record must be an object {\"file\": string, \"line\": integer from 1 to 9007199254740991}",
		"input.repetition must be an integer from 1 to 9007199254740991",
	]
	h := bundle.decision with input as object.union(_sdk, {"carrier": {}, "repetition": 9007199254740991})
	h.repetition == 9007199254740991
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
