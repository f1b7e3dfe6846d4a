# METADATA
# title: The contract set's decision on one carrier
# description: |
#   The bundle's one entry point, POST /v1/data/contractcheck/decision, with the input
#   {"fixture", "lane", "laneVersion", "configuration", "stage", "carrier"} (and optionally "task",
#   one task id): the carrier observed at that position is projected through the lane stage's
#   compartment bindings and every task of the bundle's profile that applies to the fixture (and
#   is evaluated at the stage) is evaluated on it against the fixture's source view, as
#   contractcheck check does for a captured record. A fixture no catalogue entry names is judged
#   when the input carries its W0 result as "source" (and optionally its "suite", default
#   "uncatalogued"): its entry is derived from the source as check derives it (derive.rego,
#   docs/uncatalogued.md). The decision names the position and gives, per task, the outcome (pass
#   when the diagnostics are empty, else unmet), the diagnostics (their expected and observed
#   values described, or quoted as JSON text in a bundle built with --quote-data: logged_value) and
#   the readout (as JSON text); an input the
#   contract model does not know gives {"errors": [...]} instead. What the census needs to take
#   the decision back from a decision log (contractcheck check --decision-logs) is echoed in the
#   result: "repetition" (input.repetition, default 1) and, when the input carries them,
#   "sourceSha256" (the digest of the fixture's source, as an observation record names it) and
#   "record" ({"file", "line"}: where the poster read the carrier), so that a log whose inputs are
#   masked still holds everything the census reads.
package contractcheck

import data.contractcheck.bundle.derive
import data.contractcheck.bundle.hot
import data.contractcheck.bundle.json as jsontext
import data.contractcheck.bundle.project
import data.contractcheck.bundle.tasks

# What a decision reads of the contract set comes from the generated module hot.rego, as Rego
# values parsed once (internal/bundle, hotModule), not from the store, which stock OPA converts
# on every read; its parts are read through references, never bound whole.
_profile := hot.model.profiles[hot.profile]

# decision is the contract set's verdict on the input's carrier.
decision := {
	"profile": hot.profile,
	"fixture": input.fixture,
	"lane": input.lane,
	"laneVersion": input.laneVersion,
	"configuration": input.configuration,
	"stage": input.stage,
	"repetition": 1,
	"results": [result(t) | some t in hot.tasks[input.fixture][input.stage]],
} if {
	_plain
} else := {"errors": sort(errors)} if {
	count(errors) > 0
} else := object.union(_echoed, {
	"profile": hot.profile,
	"fixture": input.fixture,
	"lane": input.lane,
	"laneVersion": input.laneVersion,
	"configuration": input.configuration,
	"stage": input.stage,
	"repetition": _repetition,
	"results": [result(t) | some t in _tasks],
})

# _plain holds for the input most decisions get: the six members and no other, the fixture
# catalogued, the lane, version, configuration and stage the model's, the stage observed. Such an
# input has no errors (each rule of errors needs one of these to fail, or another member) and its
# tasks are the ones the bundle writer listed for the fixture and stage (hot.tasks, as _tasks
# works them out), so neither is worked out again; nor is its repetition, 1 when not given.
_plain if {
	is_object(input)
	count(input) == 6
	_ = input.carrier
	hot.model.fixtures[input.fixture]
	lane := hot.model.lanes[input.lane]
	input.laneVersion in lane.versions
	lane.configurations[input.configuration]
	lane.stages[input.stage].exposure == "observed"
}

# _echoed is what of the input the result repeats for a reader of the decision log, when given.
_echoed[k] := input[k] if {
	some k in ["sourceSha256", "record"]
	_has(input, k)
}

default _repetition := 1

_repetition := input.repetition if _has(input, "repetition")

errors contains "input.repetition must be an integer from 1 to 9007199254740991" if {
	_has(input, "repetition")
	not _positive_integer(input.repetition)
}

errors contains "input.sourceSha256 must be a string" if {
	_has(input, "sourceSha256")
	not is_string(input.sourceSha256)
}

errors contains "input.record must be an object {\"file\": string, \"line\": integer from 1 to 9007199254740991}" if {
	_has(input, "record")
	not _record_ref(input.record)
}

# errors says what in the input the contract model does not know.
errors contains sprintf("input.%s must be a string", [k]) if {
	some k in ["fixture", "lane", "laneVersion", "configuration", "stage"]
	not is_string(object.get(input, k, null))
}

errors contains "input.carrier is missing: post the carrier observed at the position" if not _has(input, "carrier")

errors contains sprintf(
	"unknown fixture %q (not in the catalog): post its W0 result as input.source to judge it without one",
	[input.fixture],
) if {
	is_string(input.fixture)
	not hot.model.fixtures[input.fixture]
	not _has(input, "source")
}

errors contains "input.source must be an object: the W0 result (a CallToolResult or its JSON-RPC response)" if {
	not _catalogued
	_has(input, "source")
	not is_object(input.source)
}

errors contains "input.suite must be a string" if {
	_has(input, "suite")
	not is_string(input.suite)
}

errors contains sprintf("unknown lane %q", [input.lane]) if {
	is_string(input.lane)
	not hot.model.lanes[input.lane]
}

errors contains sprintf("lane %s has no version %q (it declares %v)", [input.lane, input.laneVersion, _versions]) if {
	not input.laneVersion in _versions
}

errors contains sprintf("lane %s has no configuration %q", [input.lane, input.configuration]) if {
	_lane_known
	not hot.model.lanes[input.lane].configurations[input.configuration]
}

errors contains sprintf("lane %s does not declare stage %q", [input.lane, input.stage]) if {
	_lane_known
	not hot.model.lanes[input.lane].stages[input.stage]
}

errors contains sprintf(
	"lane %s declares stage %s %s: it has no carrier to check",
	[input.lane, input.stage, _exposure],
) if {
	_exposure != "observed"
}

errors contains sprintf(
	"task %q is not evaluated on fixture %s under profile %s",
	[input.task, input.fixture, hot.profile],
) if {
	_has(input, "task")
	_ = _fixture
	not input.task in _profile_tasks
}

errors contains sprintf(
	"task %q is not evaluated at stage %s (only at %s)",
	[input.task, input.stage, concat(", ", hot.model.tasks[input.task].stages)],
) if {
	input.task in _profile_tasks
	not at_stage(input.task)
}

_lane_known if hot.model.lanes[input.lane]

_versions := hot.model.lanes[input.lane].versions

_exposure := hot.model.lanes[input.lane].stages[input.stage].exposure

_catalogued if hot.model.fixtures[input.fixture]

_fixture := hot.model.fixtures[input.fixture]

# A fixture no catalogue entry names: its entry derived from the posted source.
_fixture := derive.entry(input.fixture, object.get(input, "suite", "uncatalogued"), input.source) if {
	not _catalogued
	is_object(input.source)
}

# _source_view is the posted source of a fixture no catalogue entry names, through the model's
# canonical binding.
_source_view := project.view(hot.source, input.source) if {
	not _catalogued
	is_object(input.source)
}

# _profile_tasks are the tasks the profile evaluates on the fixture, in the fixture's order.
_profile_tasks := ts if {
	ts := _fixture.tasks
	count(_profile_list) == 0
} else := [t | some t in _fixture.tasks; t in _profile_list] if {
	count(_profile_list) > 0
}

default _profile_list := []

_profile_list := l if {
	l := object.get(_profile, "tasks", [])
	l != null
}

_tasks := [t | some t in _profile_tasks; _selected(t); at_stage(t)]

# at_stage holds when task t is evaluated at the input's stage: a task with stages is evaluated
# only at those (check has no binding for it at the others).
at_stage(t) if count(object.get(hot.model.tasks[t], "stages", [])) == 0

at_stage(t) if input.stage in object.get(hot.model.tasks[t], "stages", [])

_selected(_) if not _has(input, "task")

_selected(t) if t == input.task

# result evaluates one task: its policy package, through the dispatch the bundle writer generated
# (contractcheck.bundle.tasks), on the policy input check builds (docs/design.md).
result(t) := {
	"task": t,
	"outcome": _outcomes[count(v.diagnostics) == 0],
	"diagnostics": [logged_diagnostic(d) | some d in v.diagnostics],
	"readout": {"json": json.marshal(v.readout)},
} if {
	v := tasks.verdict(t, policy_input(t))
} else := {
	"task": t,
	"outcome": "instrument_failed",
	"error": sprintf("the policy of task %s gave no diagnostics or readout", [t]),
}

# _outcomes is the outcome of a task by whether its diagnostics are empty.
_outcomes := {true: "pass", false: "unmet"}

# logged_diagnostic is a policy's diagnostic as the decision gives it: its atom, path, kind and
# block as the policy gave them, and every other member (expected, observed: values that come from
# the user's data) as a logged value (logged_value). The diagnostics keep the policy's order.
logged_diagnostic(d) := object.union(
	object.filter(d, _plain_members),
	{k: logged_value(x) | some k, x in d; not _plain_members[k]},
)

_plain_members := {"atom", "path", "kind", "block"}

# logged_value is a value of the user's data as the decision gives it, so that every route by
# which OPA logs a decision keeps it exact (OPA's upload re-encodes events through float64) and
# nothing of the user's data is in the decision unless the bundle was built to quote it:
# {"json": its JSON text} in a bundle built with --quote-data (hot.quote_data), else its
# description {"type", "length" (characters of a string, items of an array, members of an object),
# "sha256" (of its JSON text, as json.marshal writes it)}.
logged_value(x) := {"json": json.marshal(x)} if {
	hot.quote_data
} else := {"type": t, "sha256": crypto.sha256(json.marshal(x))} if {
	t := _scalar_types[type_name(x)]
} else := {"type": _json_types[type_name(x)], "length": count(x), "sha256": crypto.sha256(json.marshal(x))}

_scalar_types := {"number": "number", "boolean": "boolean", "null": "null"}

_json_types := {"string": "string", "array": "array", "set": "array", "object": "object"}

# policy_input is the input of task t's policy for the posted carrier, its source and observed
# views narrowed to the members the policy reads (tasks.narrow). For a _plain input, what of it
# does not depend on the carrier (task, stage, fixture, contract, the narrowed source view) is the
# bundle writer's (hot.inputs and hot.narrowed, as the rule below works them out).
policy_input(t) := object.union(hot.inputs[input.fixture][input.stage][t], {
	"source": hot.narrowed[input.fixture][t],
	"lane": input.lane,
	"laneVersion": input.laneVersion,
	"configuration": input.configuration,
	"observed": tasks.narrow(t, observed(hot.model.tasks[t].compartment)),
}) if {
	_plain
} else := {
	"task": t,
	"stage": input.stage,
	"fixture": {"id": input.fixture, "family": _fixture.family, "suite": _fixture.suite},
	"contract": {
		"atoms": hot.model.tasks[t].atoms,
		"optional": _optional,
		"nullPolicy": _profile.nullPolicy,
		"metaPolicy": _meta_policy,
	},
	"source": tasks.narrow(t, _source),
	"lane": input.lane,
	"laneVersion": input.laneVersion,
	"configuration": input.configuration,
	"observed": tasks.narrow(t, observed(hot.model.tasks[t].compartment)),
}

# _source is the fixture's source view and _carrier the posted carrier, each with its numbers
# respelled as check respells the policy input (internal/policy/numbers.go). They are respelled
# before any function sees them: OPA's memo of function calls compares arguments as it compares
# numbers, so a function given an unrespelled value could answer for another value that differs
# only in such a number. A catalogued fixture's source view is written respelled by the bundle
# writer (internal/bundle, hotModule); a posted one is respelled here.
#
# Only a number spelt with a '.' and ending in '0' is ever respelled (json.number): a value whose
# numbers' JSON text (json.marshal writes each number as spelt) has no such digits holds none, and
# is its own respelling without a walk over it by path. The numbers are listed by a walk without
# paths, which OPA makes without building them: cheaper than writing the whole value as JSON.
_source := hot.sources[input.fixture] if {
	_catalogued
} else := _source_view if {
	not regex.match(jsontext.respellable, json.marshal([n | walk(_source_view, [_, n]); is_number(n)]))
} else := json.patch(_source_view, [op |
	walk(_source_view, [p, n])
	is_number(n)
	s := json.marshal(n)
	r := jsontext.number(s)
	r != s
	op := {"op": "replace", "path": p, "value": json.unmarshal(r)}
])

_carrier := input.carrier if {
	not regex.match(jsontext.respellable, json.marshal([n | walk(input.carrier, [_, n]); is_number(n)]))
} else := json.patch(input.carrier, [op |
	walk(input.carrier, [p, n])
	is_number(n)
	s := json.marshal(n)
	r := jsontext.number(s)
	r != s
	op := {"op": "replace", "path": p, "value": json.unmarshal(r)}
])

# observed is the carrier through the stage's binding of a compartment; a compartment the stage
# leaves unbound reads as the empty view. Its result is remembered for the compartment: it is
# computed once per decision, whichever tasks share it. The binding is read from the bindings the
# bundle writer wrote without their doc and basis (internal/bundle, bindings), which OPA would
# otherwise read from the store in whole, on every decision, to remember the projector's results
# by their arguments.
observed(compartment) := project.view(hot.bindings[i], _carrier) if {
	i := hot.bound[input.lane][input.stage][compartment]
} else := {}

# _optional are the model's optional atoms, sorted, as the bundle writer lists them
# (internal/bundle, optionalAtoms): the same for every decision.
_optional := hot.optional

default _meta_policy := {"mode": "preserve"}

_meta_policy := {"mode": "withhold", "keys": _fixture.privateMeta} if {
	w := object.get(_profile, "withholdPrivateMeta", null)
	w != null
	count(object.get(_fixture, "privateMeta", [])) > 0
	input.stage in w.stages
}

_has(obj, key) if {
	is_object(obj)
	_ = obj[key]
}

# _record_ref holds a posted record reference to {"file": string, "line": integer from 1 to 2^53 - 1}.
_record_ref(r) if {
	is_string(r.file)
	_positive_integer(r.line)
	count(object.keys(r)) == 2
}

# _positive_integer holds for an integer from 1 to 2^53 - 1: what the result echoes must survive
# OPA's upload, which reads numbers as float64.
_positive_integer(n) if {
	is_number(n)
	n >= 1
	n <= 9007199254740991
	floor(n) == n
}
