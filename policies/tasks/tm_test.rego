# METADATA
# title: Tests of contractcheck.tasks.tm
# description: TM passes on media deliveries and names text delivery and unknown delivery.
# scope: package
package contractcheck.tasks.tm_test

import data.contractcheck.tasks.tm

_image := {"kind": "image", "payload": "iVBORw0KGgo=", "mimeType": "image/png"}

_in(obs) := {
	"task": "TM", "stage": "H4",
	"contract": {"atoms": ["block.delivery"], "optional": [], "nullPolicy": "strict"},
	"source": {"content": [{"kind": "text", "text": "a chart"}, _image]},
	"observed": obs,
}

test_data_url_part_passes if {
	count(tm.diagnostics) == 0 with input as _in({"content": [{"kind": "text", "text": "a chart"}, _image], "delivery": [null, "data-url"]})
}

test_media_part_passes if {
	count(tm.diagnostics) == 0 with input as _in({"content": [{"kind": "text"}, _image], "delivery": ["text", "media"]})
}

test_image_as_text_is_altered if {
	ds := tm.diagnostics with input as _in({"content": [{"kind": "text"}, _image], "delivery": ["text", "text"]})
	ds == {{"atom": "block.delivery", "path": "/1", "kind": "altered", "block": 1, "expected": "media", "observed": "text"}}
}

test_unknown_delivery_is_missing if {
	ds := tm.diagnostics with input as _in({"content": [{"kind": "text"}, _image]})
	ds == {{"atom": "block.delivery", "path": "/1", "kind": "missing", "block": 1, "expected": "media"}}
}

test_dropped_block_is_missing if {
	ds := tm.diagnostics with input as _in({"content": [{"kind": "text"}], "delivery": ["text"]})
	ds == {{"atom": "block.delivery", "path": "/1", "kind": "missing", "block": 1, "expected": "media"}}
}

test_readout_lists_media_deliveries if {
	r := tm.readout with input as _in({"content": [{"kind": "text"}, _image], "delivery": ["text", "data-url"]})
	r == {"delivery": ["data-url"]}
}
