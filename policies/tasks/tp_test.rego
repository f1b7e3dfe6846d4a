# METADATA
# title: Tests of contractcheck.tasks.tp
# description: TP reports each rejected part and says when nothing was validated.
# scope: package
package contractcheck.tasks.tp_test

import data.contractcheck.tasks.tp

_in(obs) := {
	"task": "TP", "stage": "H4",
	"contract": {"atoms": ["request.accepted"], "optional": [], "nullPolicy": "strict"},
	"source": {"content": [{"kind": "image", "payload": "AAAA", "mimeType": "image/png"}]},
	"observed": obs,
}

test_accepted_parts_pass if {
	count(tp.diagnostics) == 0 with input as _in({"content": [], "rejected": []})
	tp.readout == {"validated": true, "rejected": 0} with input as _in({"content": [], "rejected": []})
}

test_rejected_part_is_altered if {
	ds := tp.diagnostics with input as _in({"rejected": [{"block": 0, "error": "/image_url: not a uri"}]})
	ds == {{"atom": "request.accepted", "path": "/0", "kind": "altered", "block": 0, "observed": "/image_url: not a uri"}}
}

test_unvalidated_binding_says_so if {
	count(tp.diagnostics) == 0 with input as _in({"content": []})
	tp.readout == {"validated": false, "rejected": 0} with input as _in({"content": []})
}
