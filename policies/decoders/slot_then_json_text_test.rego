# METADATA
# title: Tests of contractcheck.decoders.slot_then_json_text
# description: |
#   Slot first, JSON text only without a slot, and the one classification in
#   which it differs from slot-or-json-text: text that is not JSON where the
#   source has no value at the target.
# scope: package
package contractcheck.decoders.slot_then_json_text_test

import data.contractcheck.decoders.slot_or_json_text
import data.contractcheck.decoders.slot_then_json_text

_src := {"structured": {"decision": "deny", "amount": 12345678901234567891}}

# _prose_src is a text-only source (C01): no structured slot at all.
_prose_src := {"content": [{"kind": "text", "text": "Shipment left the hub at 06:42 UTC."}]}

_text(ts) := {"content": [{"kind": "text", "text": t} | some t in ts]}

readout(src, target, obs) := r if {
	r := slot_then_json_text.readout with input as {"target": target, "source": src, "observed": obs}
}

fallback(src, target, obs) := r if {
	r := slot_or_json_text.readout with input as {"target": target, "source": src, "observed": obs}
}

test_slot_first if {
	# The conflict: structured deny, text allow; the slot wins.
	obs := object.union(_text(["{\"decision\":\"allow\"}"]), {"structured": {"decision": "deny"}})
	readout(_src, "/decision", obs) == {"kind": "match", "observed": "deny"}

	# A present null or empty slot is read too: the text is not.
	readout(_src, "/decision", object.union(_text(["{\"decision\":\"deny\"}"]), {"structured": null})) == {"kind": "missing"}
	readout(_src, "/decision", object.union(_text(["{\"decision\":\"deny\"}"]), {"structured": {}})) == {"kind": "missing"}
	readout(_src, "/decision", {"structured": {"decision": "allow"}}) == {"kind": "wrong", "observed": "allow"}
}

test_json_text_without_slot if {
	readout(_src, "/decision", _text(["{\"decision\": \"deny\"}"])) == {"kind": "match", "observed": "deny"}
	readout(_src, "/amount", _text(["{\"amount\":12345678901234567890}"])) == {"kind": "wrong", "observed": 12345678901234567890}
	readout(_src, "/decision", _text(["{\"other\":1}"])) == {"kind": "missing"}
	readout(_src, "/decision", {}) == {"kind": "missing"}
	readout(_src, "/decision", _text(["{\"decision\":\"deny\"}", "{\"decision\":\"allow\"}"])) == {"kind": "ambiguous", "candidates": ["deny", "allow"]}
}

test_prose_where_source_has_a_value_is_unparseable if {
	# C02 at a lane that drops the slot: prose in place of a value.
	every obs in [
		_text(["The decision is {\"decision\":\"deny\"}"]),
		_text(["{\"decision\":\"deny\"}", "see above"]),
		_text(["{\"decision\":\"deny\",\"decision\":\"allow\"}"]),
	] {
		readout(_src, "/decision", obs) == {"kind": "unparseable"}
		fallback(_src, "/decision", obs) == {"kind": "unparseable"}
	}
}

test_prose_where_source_has_none_is_the_correct_absence if {
	# C01 on the control lane: the prose comes back as it was sent, and no
	# value is read where the source has none.
	readout(_prose_src, "", _prose_src) == {"kind": "match"}
	fallback(_prose_src, "", _prose_src) == {"kind": "unparseable"}

	# The same for a member the source's slot does not hold.
	readout(_src, "/absent", _text(["prose"])) == {"kind": "match"}
}

test_values_where_source_has_none_are_introduced if {
	readout(_prose_src, "", _text(["{\"eta\":\"14 November\"}"])) == {"kind": "introduced", "observed": {"eta": "14 November"}}
	readout(_prose_src, "", {"structured": null}) == {"kind": "introduced", "observed": null}
	readout(_src, "/absent", _text(["{\"absent\":true}"])) == {"kind": "introduced", "observed": true}
	readout(_prose_src, "", _text(["{\"a\":1}", "{\"a\":2}"])).kind == "ambiguous"
}
