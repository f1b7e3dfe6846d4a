# METADATA
# title: Tests of contractcheck.decoders.slot_or_json_text
# description: Slot preference, strict whole-item JSON text, and each readout kind.
# scope: package
package contractcheck.decoders.slot_or_json_text_test

import data.contractcheck.decoders.slot_or_json_text

_src := {"structured": {"decision": "deny", "amount": 12345678901234567891}}

_text(ts) := {"content": [{"kind": "text", "text": t} | some t in ts]}

readout(target, obs) := r if {
	r := slot_or_json_text.readout with input as {"target": target, "source": _src, "observed": obs}
}

test_prefers_any_slot if {
	# The conflict: structured deny, text allow; the slot wins.
	obs := object.union(_text(["{\"decision\":\"allow\"}"]), {"structured": {"decision": "deny"}})
	readout("/decision", obs) == {"kind": "match", "observed": "deny"}

	# A present null or empty slot is preferred too: the text is not read.
	readout("/decision", object.union(_text(["{\"decision\":\"deny\"}"]), {"structured": null})) == {"kind": "missing"}
	readout("/decision", object.union(_text(["{\"decision\":\"deny\"}"]), {"structured": {}})) == {"kind": "missing"}
}

test_text_match if {
	readout("/decision", _text(["{\"decision\": \"deny\"}"])) == {"kind": "match", "observed": "deny"}
	readout("/decision", _text([" {\"decision\":\"deny\"}\n", "{\"decision\":\"deny\",\"x\":1}"])) == {"kind": "match", "observed": "deny"}
	readout("/amount", _text(["{\"amount\":12345678901234567891}"])) == {"kind": "match", "observed": 12345678901234567891}
}

test_text_wrong if {
	readout("/decision", _text(["{\"decision\":\"allow\"}"])) == {"kind": "wrong", "observed": "allow"}
	readout("/amount", _text(["{\"amount\":12345678901234567890}"])) == {"kind": "wrong", "observed": 12345678901234567890}
	readout("/amount", _text(["{\"amount\":\"12345678901234567891\"}"])) == {"kind": "wrong", "observed": "12345678901234567891"}
}

test_text_missing if {
	readout("/decision", _text(["{\"other\":1}"])) == {"kind": "missing"}
	readout("/decision", _text([])) == {"kind": "missing"}
	readout("/decision", {}) == {"kind": "missing"}
}

test_text_introduced_and_absence if {
	readout("/absent", _text(["{\"absent\":true}"])) == {"kind": "introduced", "observed": true}
	readout("/absent", _text(["{\"decision\":\"deny\"}"])) == {"kind": "match"}
}

test_ambiguous if {
	r := readout("/decision", _text(["{\"decision\":\"deny\"}", "{\"decision\":\"allow\"}"]))
	r == {"kind": "ambiguous", "candidates": ["deny", "allow"]}

	# Typed: the number 1 and the string "1" are unequal candidates.
	readout("/decision", _text(["{\"decision\":1}", "{\"decision\":\"1\"}"])).kind == "ambiguous"
}

test_unparseable if {
	every t in [
		"The decision is {\"decision\":\"deny\"}", # prose-wrapped
		"{\"decision\":\"deny\"}{\"decision\":\"deny\"}", # concatenated
		"{\"decision\":\"deny\",\"decision\":\"allow\"}", # duplicate key
		"", "deny",
	] {
		readout("/decision", _text([t])) == {"kind": "unparseable"}
	}

	# Every text item must parse, even when another one holds the value.
	readout("/decision", _text(["{\"decision\":\"deny\"}", "see above"])) == {"kind": "unparseable"}
}

test_non_text_items_ignored if {
	obs := {"content": [{"kind": "image", "payload": "AA=="}, {"kind": "text", "text": "{\"decision\":\"deny\"}"}]}
	readout("/decision", obs) == {"kind": "match", "observed": "deny"}
}
