# METADATA
# title: Tests of contractcheck.decoders.native_slot
# description: Each readout native-slot can give, and what it refuses to read.
# scope: package
package contractcheck.decoders.native_slot_test

import data.contractcheck.decoders.native_slot

_src := {"structured": {"decision": "deny", "note": null}, "content": [{"kind": "text", "text": "{\"decision\":\"deny\",\"note\":null}"}]}

readout(target, obs) := r if {
	r := native_slot.readout with input as {"target": target, "source": _src, "observed": obs}
}

test_match if {
	readout("/decision", _src) == {"kind": "match", "observed": "deny"}
	readout("/note", _src) == {"kind": "match", "observed": null}
	readout("/absent", _src) == {"kind": "match"}
}

test_missing if {
	readout("/decision", {"content": _src.content}) == {"kind": "missing"}
	readout("/decision", {"structured": null}) == {"kind": "missing"}
	readout("/note", {"structured": {"decision": "deny"}}) == {"kind": "missing"}
}

test_wrong if {
	readout("/decision", {"structured": {"decision": "allow"}}) == {"kind": "wrong", "observed": "allow"}
	readout("/note", {"structured": {"note": "null"}}) == {"kind": "wrong", "observed": "null"}
}

test_introduced if {
	readout("/absent", {"structured": {"absent": 0}}) == {"kind": "introduced", "observed": 0}
}

test_never_reads_text if {
	obs := {"content": [{"kind": "text", "text": "{\"decision\":\"allow\"}"}, {"kind": "text", "text": "prose"}]}
	readout("/decision", obs) == {"kind": "missing"}
}
