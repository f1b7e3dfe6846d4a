# METADATA
# title: Tests of contractcheck.lib.decoders
# description: Pointer resolution, slot reading and the classification of each readout kind.
# scope: package
package contractcheck.lib.decoders_test

import data.contractcheck.lib.decoders

_doc := {"a": {"b/c": [10, null, {"~k": false}]}, "n": null}

test_at if {
	decoders.at(_doc, "") == _doc
	decoders.at(_doc, "/a/b~1c/0") == 10
	decoders.at(_doc, "/a/b~1c/1") == null
	decoders.at(_doc, "/a/b~1c/2/~0k") == false
	decoders.at(_doc, "/n") == null
}

test_at_absent if {
	not decoders.at(_doc, "/x")
	not decoders.at(_doc, "/a/b~1c/3")
	not decoders.at(_doc, "/a/b~1c/01")
	not decoders.at(_doc, "/n/x")
	not decoders.at("text", "/a")
}

test_found if {
	decoders.found(_doc, "/n") == {"found": null}
	decoders.found(_doc, "/a/b~1c/2/~0k") == {"found": false}
	decoders.found(_doc, "/x") == {}
}

test_slot if {
	decoders.slot({"structured": {"d": "deny"}}, "/d") == {"found": "deny"}
	decoders.slot({"structured": null}, "/d") == {}
	decoders.slot({"content": [{"kind": "text", "text": "{\"d\": \"deny\"}"}]}, "/d") == {}
}

test_expected if {
	decoders.expected == {"found": 1} with input as {"target": "/a", "source": {"structured": {"a": 1}}}
	decoders.expected == {} with input as {"target": "/b", "source": {"structured": {"a": 1}}}
	decoders.expected == {} with input as {"target": "/a", "source": {}}
}

test_readout_each_kind if {
	decoders.readout({"found": 1}, {"found": 1}) == {"kind": "match", "observed": 1}
	decoders.readout({}, {}) == {"kind": "match"}
	decoders.readout({"found": 1}, {}) == {"kind": "missing"}
	decoders.readout({"found": 1}, {"found": "1"}) == {"kind": "wrong", "observed": "1"}
	decoders.readout({"found": null}, {"found": false}) == {"kind": "wrong", "observed": false}
	decoders.readout({"found": 1}, {"ambiguous": [1, 2]}) == {"kind": "ambiguous", "candidates": [1, 2]}
	decoders.readout({"found": 1}, {"unparseable": [0]}) == {"kind": "unparseable"}
	decoders.readout({}, {"found": null}) == {"kind": "introduced", "observed": null}
}

test_readout_exact_numbers if {
	decoders.readout({"found": 9007199254740993}, {"found": 9007199254740992}) == {"kind": "wrong", "observed": 9007199254740992}
	decoders.readout({"found": 1.0}, {"found": 1}).kind == "match"
}
