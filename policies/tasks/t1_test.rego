# METADATA
# title: Tests of contractcheck.tasks.t1
# description: A pass and an unmet case for each T1 distinction, under both null policies.
# scope: package
package contractcheck.tasks.t1_test

import data.contractcheck.tasks.t1

_policies := ["strict", "optional-null"]

_in(src, obs, np) := {
	"task": "T1",
	"contract": {
		"atoms": ["block.count", "block.kind", "block.primary"],
		"optional": ["block.title", "block._meta", "result._meta"],
		"nullPolicy": np,
		"metaPolicy": {"mode": "preserve"},
	},
	"source": src,
	"observed": obs,
}

# diags(src, obs, np) is T1's diagnostics set for the input.
diags(src, obs, np) := d if {
	d := t1.diagnostics with input as _in(src, obs, np)
}

_text := {"kind": "text", "text": "hello"}

_image := {"kind": "image", "payload": "iVBORw0KGgo=", "mimeType": "image/png"}

_audio := {"kind": "audio", "payload": "UklGRg==", "mimeType": "audio/wav"}

_resource := {"kind": "resource", "uri": "file:///notes.txt", "text": "notes", "mimeType": "text/plain"}

_blob := {"kind": "resource", "uri": "file:///a.bin", "payload": "AAEC"}

_link := {"kind": "resource_link", "uri": "https://example.com/r", "name": "r"}

_all := [_text, _image, _audio, _resource, _blob, _link]

test_pass_same_content if {
	every np in _policies {
		diags({"content": _all}, {"content": _all}, np) == set()
	}
}

test_pass_absent_content_is_empty if {
	every np in _policies {
		diags({}, {"content": []}, np) == set()
		diags({"content": []}, {}, np) == set()
	}
}

# Members outside the primary value (MIME type, name, annotations) are not T1's concern.
test_pass_non_primary_members_ignored if {
	obs := [
		_text,
		object.remove(_image, ["mimeType"]),
		_audio,
		object.union(_resource, {"title": "x"}),
		_blob,
		object.remove(_link, ["name"]),
	]
	every np in _policies {
		diags({"content": _all}, {"content": obs}, np) == set()
	}
}

test_unmet_missing_block if {
	every np in _policies {
		diags({"content": [_text, _link]}, {"content": [_text]}, np) == {{
			"atom": "block.count", "path": "/1", "kind": "missing", "block": 1, "expected": _link,
		}}
	}
}

test_unmet_added_block if {
	every np in _policies {
		diags({"content": [_text]}, {"content": [_text, _image]}, np) == {{
			"atom": "block.count", "path": "/1", "kind": "added", "block": 1, "observed": _image,
		}}
	}
}

test_unmet_absent_content_vs_block if {
	every np in _policies {
		diags({"content": [_text]}, {}, np) == {{
			"atom": "block.count", "path": "/0", "kind": "missing", "block": 0, "expected": _text,
		}}
	}
}

test_unmet_kind_altered if {
	every np in _policies {
		diags({"content": [_resource]}, {"content": [_link]}, np) == {{
			"atom": "block.kind", "path": "/0/kind", "kind": "altered", "block": 0,
			"expected": "resource", "observed": "resource_link",
		}}
	}
}

# Order matters: swapped blocks alter both positions.
test_unmet_order if {
	every np in _policies {
		count(diags({"content": [_text, _image]}, {"content": [_image, _text]}, np)) == 2
	}
}

test_unmet_primary_each_kind if {
	cases := [
		[_text, object.union(_text, {"text": "hello!"}), {"text": "hello"}, {"text": "hello!"}],
		[_image, object.union(_image, {"payload": "AAAA"}), {"payload": "iVBORw0KGgo="}, {"payload": "AAAA"}],
		[_audio, object.remove(_audio, ["payload"]), {"payload": "UklGRg=="}, {}],
		[
			_resource, object.union(_resource, {"uri": "file:///other.txt"}),
			{"uri": "file:///notes.txt", "text": "notes"}, {"uri": "file:///other.txt", "text": "notes"},
		],
		[_blob, object.union(_blob, {"payload": "AAED"}), {"uri": "file:///a.bin", "payload": "AAEC"}, {"uri": "file:///a.bin", "payload": "AAED"}],
		[_link, object.remove(_link, ["uri"]), {"uri": "https://example.com/r"}, {}],
	]
	every np in _policies {
		every c in cases {
			diags({"content": [c[0]]}, {"content": [c[1]]}, np) == {{
				"atom": "block.primary", "path": "/0", "kind": "altered", "block": 0,
				"expected": c[2], "observed": c[3],
			}}
		}
	}
}

test_only_listed_atoms if {
	inp := object.union(_in({"content": [_text]}, {"content": [_image, _text]}, "strict"), {"contract": {"atoms": ["block.primary"]}})
	t1.diagnostics == set() with input as inp
}

test_readout if {
	t1.readout == {"count": 2, "kinds": ["text", "image"]} with input as _in({}, {"content": [_text, _image]}, "strict")
	t1.readout == {"count": 0, "kinds": []} with input as _in({}, {}, "strict")
}

# Equal content lists take the fast path: nothing to report under either
# null policy, nulls and unknown kinds included.
test_identical_content_passes if {
	c := {"content": array.concat(_all, [{"kind": "text", "text": null, "_meta": null}, {"kind": "x", "n": 1}])}
	every np in _policies {
		diags(c, c, np) == set()
		diags(c, object.union(c, {"isError": true}), np) == set()
	}
}

# Equal blocks in otherwise differing lists are skipped; the differing
# block is still reported.
test_differing_block_among_equal_ones if {
	diags({"content": [_text, _image]}, {"content": [_text, _audio]}, "strict") == {{
		"atom": "block.kind", "path": "/1/kind", "kind": "altered", "block": 1,
		"expected": "image", "observed": "audio",
	}}
}
