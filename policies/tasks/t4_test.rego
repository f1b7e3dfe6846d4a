# METADATA
# title: Tests of contractcheck.tasks.t4
# description: |
#   A pass and an unmet (missing, added, altered) case for each T4 atom, under
#   both null policies, and the optional-null relaxation of optional atoms.
# scope: package
package contractcheck.tasks.t4_test

import data.contractcheck.tasks.t4

_policies := ["strict", "optional-null"]

_atoms := [
	"block.count", "block.kind", "block.text", "block.payload", "block.mimeType", "block.uri",
	"block.name", "block.title", "block.description", "block.size", "block.icons",
	"block.annotations", "block._meta", "block.resourceMeta",
]

_optional := [
	"block.title", "block.description", "block.size", "block.icons", "block.annotations",
	"block._meta", "block.resourceMeta", "result._meta",
]

_in(src, obs, np) := {
	"task": "T4",
	"contract": {"atoms": _atoms, "optional": _optional, "nullPolicy": np, "metaPolicy": {"mode": "preserve"}},
	"source": src,
	"observed": obs,
}

diags(src, obs, np) := d if {
	d := t4.diagnostics with input as _in(src, obs, np)
}

# A sample value and a different value for every member.
_values := {
	"text": ["hello", "hello "],
	"payload": ["iVBORw0KGgo=", "iVBORw0KGgA="],
	"mimeType": ["image/png", "image/jpeg"],
	"uri": ["file:///notes.txt", "file:///Notes.txt"],
	"name": ["notes", "notes.txt"],
	"title": ["Notes", "notes"],
	"description": ["Meeting notes", ""],
	"size": [1024, 1025],
	"icons": [[{"src": "https://example.com/i.png", "mimeType": "image/png"}], [{"src": "https://example.com/j.png", "mimeType": "image/png"}]],
	"annotations": [{"audience": ["user"], "priority": 0.5}, {"audience": ["user"], "priority": 0.7}],
	"_meta": [{"com.example/trace": "abc"}, {"com.example/trace": "abd"}],
	"resourceMeta": [{"etag": "1"}, {"etag": "2"}],
}

# Source and observed content: a fixed first block, then the block under test at index 1.
_first := {"kind": "text", "text": "first"}

_view(b) := {"content": [_first, b]}

_block(member, value) := object.union({"kind": "resource_link", "uri": "https://example.com/x"}, {member: value})

_bare := {"kind": "resource_link"}

test_pass_each_atom if {
	every np in _policies {
		every m, vs in _values {
			diags(_view(_block(m, vs[0])), _view(_block(m, vs[0])), np) == set()
		}
	}
}

test_unmet_each_atom_altered if {
	every np in _policies {
		every m, vs in _values {
			some d in diags(_view(_block(m, vs[0])), _view(_block(m, vs[1])), np)
			d.atom == concat(".", ["block", m])
			d.block == 1
			d.kind == "altered"
			startswith(d.path, concat("/", ["", "1", m]))
		}
	}
}

test_unmet_each_atom_missing if {
	every np in _policies {
		every m, vs in _values {
			diags(_view(object.union(_bare, {m: vs[0]})), _view(_bare), np) == {{
				"atom": concat(".", ["block", m]), "path": concat("/", ["", "1", m]), "kind": "missing",
				"block": 1, "expected": vs[0],
			}}
		}
	}
}

test_unmet_each_atom_added if {
	every np in _policies {
		every m, vs in _values {
			diags(_view(_bare), _view(object.union(_bare, {m: vs[1]})), np) == {{
				"atom": concat(".", ["block", m]), "path": concat("/", ["", "1", m]), "kind": "added",
				"block": 1, "observed": vs[1],
			}}
		}
	}
}

test_unmet_kind if {
	every np in _policies {
		diags(_view({"kind": "image", "payload": "AA=="}), _view({"kind": "audio", "payload": "AA=="}), np) == {{
			"atom": "block.kind", "path": "/1/kind", "kind": "altered", "block": 1, "expected": "image", "observed": "audio",
		}}
	}
}

test_unmet_count if {
	b := _block("name", "x")
	every np in _policies {
		diags(_view(b), {"content": [_first]}, np) == {{
			"atom": "block.count", "path": "/1", "kind": "missing", "block": 1, "expected": b,
		}}
		diags({"content": [_first]}, _view(b), np) == {{
			"atom": "block.count", "path": "/1", "kind": "added", "block": 1, "observed": b,
		}}
	}
}

# Object atoms are localized to the differing member.
test_unmet_member_paths if {
	src := _view(_block("annotations", {"audience": ["user", "assistant"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"}))
	obs := _view(_block("annotations", {"audience": ["user"], "priority": 0.7}))
	every np in _policies {
		diags(src, obs, np) == {
			{"atom": "block.annotations", "path": "/1/annotations/audience/1", "kind": "missing", "block": 1, "expected": "assistant"},
			{"atom": "block.annotations", "path": "/1/annotations/priority", "kind": "altered", "block": 1, "expected": 0.5, "observed": 0.7},
			{
				"atom": "block.annotations", "path": "/1/annotations/lastModified", "kind": "missing", "block": 1,
				"expected": "2025-01-01T00:00:00Z",
			},
		}
	}
}

test_meta_key_escaped if {
	src := _view(_block("_meta", {"a/b~c": 1}))
	obs := _view(_block("_meta", {}))
	diags(src, obs, "strict") == {{"atom": "block._meta", "path": "/1/_meta/a~1b~0c", "kind": "missing", "block": 1, "expected": 1}}
}

_optional_members contains m if {
	some m, _ in _values
	concat(".", ["block", m]) in _optional
}

_required_members contains m if {
	some m, _ in _values
	not concat(".", ["block", m]) in _optional
}

# Under strict, absent and null differ for every atom.
test_strict_absent_vs_null if {
	every m in object.keys(_values) {
		diags(_view(_bare), _view(object.union(_bare, {m: null})), "strict") == {{
			"atom": concat(".", ["block", m]), "path": concat("/", ["", "1", m]), "kind": "added", "block": 1, "observed": null,
		}}
		diags(_view(object.union(_bare, {m: null})), _view(_bare), "strict") == {{
			"atom": concat(".", ["block", m]), "path": concat("/", ["", "1", m]), "kind": "missing", "block": 1, "expected": null,
		}}
	}
}

# Under optional-null, absent reads as null for the optional atoms, on both sides ...
test_optional_null_relaxes_optional_atoms if {
	every m in _optional_members {
		diags(_view(_bare), _view(object.union(_bare, {m: null})), "optional-null") == set()
		diags(_view(object.union(_bare, {m: null})), _view(_bare), "optional-null") == set()
	}
}

# ... but never for the required ones, nor for populated values.
test_optional_null_keeps_required_and_populated if {
	every m in _required_members {
		diags(_view(_bare), _view(object.union(_bare, {m: null})), "optional-null") == {{
			"atom": concat(".", ["block", m]), "path": concat("/", ["", "1", m]), "kind": "added", "block": 1, "observed": null,
		}}
	}
	every m in _optional_members {
		vs := _values[m]
		diags(_view(object.union(_bare, {m: vs[0]})), _view(_bare), "optional-null") == {{
			"atom": concat(".", ["block", m]), "path": concat("/", ["", "1", m]), "kind": "missing", "block": 1, "expected": vs[0],
		}}
	}
}

test_only_listed_atoms if {
	inp := object.union(
		_in(_view(_block("uri", "file:///a")), _view(_block("uri", "file:///b")), "strict"),
		{"contract": {"atoms": ["block.kind", "block.text"]}},
	)
	t4.diagnostics == set() with input as inp
}

test_readout if {
	r := t4.readout with input as _in({}, _view(_bare), "strict")
	r == {"count": 2, "kinds": ["text", "resource_link"]}
}

# Equal content lists take the fast path under both null policies, nulls
# included (strict would report absent vs null, but nothing differs here).
test_identical_content_passes if {
	c := {"content": [_first, object.union(_block("title", null), {"_meta": null, "annotations": {"priority": 1.0}})]}
	every np in _policies {
		diags(c, c, np) == set()
	}
}

# Blocks that are not both objects take the general presence tests: every
# member of the object side is reported.
test_non_object_block if {
	diags({"content": [_first, "x"]}, _view(_bare), "strict") == {{
		"atom": "block.kind", "block": 1, "path": "/1/kind", "kind": "added", "observed": "resource_link",
	}}
	diags(_view(_bare), {"content": [_first, ["x"]]}, "strict") == {{
		"atom": "block.kind", "block": 1, "path": "/1/kind", "kind": "missing", "expected": "resource_link",
	}}
}
