# METADATA
# title: T1 content (guard)
# description: |
#   The observed content items equal the source content blocks in count and
#   order, each with the same kind and primary value: text for text blocks,
#   the payload for image and audio, the URI plus text or payload for an
#   embedded resource, the URI for a resource link. An absent (or null)
#   content list counts as an empty list.
#   Atoms: block.count, block.kind, block.primary.
# custom:
#   reads: [content]
# scope: package
package contractcheck.tasks.t1

import data.contractcheck.lib.views

_source := views.content(input.source)

_observed := views.content(input.observed)

# _differ holds unless both content lists are equal, in which case no block
# is missing, added or altered and T1 has nothing to report.
_differ if _source != _observed

# primary(block) is the block's primary value (lib views).
primary(block) := views.primary(block)

# METADATA
# title: diagnostics
# description: The differences that make T1 unmet; empty when it passes.
# scope: document
diagnostics contains d if {
	_differ
	views.checked("block.count")
	obs := _observed
	some i, b in _source
	i >= count(obs)
	d := {"atom": "block.count", "path": sprintf("/%d", [i]), "kind": "missing", "block": i, "expected": b}
}

diagnostics contains d if {
	_differ
	views.checked("block.count")
	src := _source
	some i, b in _observed
	i >= count(src)
	d := {"atom": "block.count", "path": sprintf("/%d", [i]), "kind": "added", "block": i, "observed": b}
}

# A differing kind is reported as block.kind (the primary values of blocks of
# different kinds are not compared). Equal blocks have equal kinds and equal
# primary values, so only differing blocks are read.
diagnostics contains d if {
	_differ
	views.checked("block.kind")
	obs := _observed
	some i, s in _source
	o := obs[i]
	s != o
	ks := object.get(s, "kind", null)
	ko := object.get(o, "kind", null)
	ks != ko
	d := {
		"atom": "block.kind", "path": sprintf("/%d/kind", [i]), "kind": "altered",
		"block": i, "expected": ks, "observed": ko,
	}
}

diagnostics contains d if {
	_differ
	views.checked("block.primary")
	obs := _observed
	some i, s in _source
	o := obs[i]
	s != o
	object.get(s, "kind", null) == object.get(o, "kind", null)
	ps := primary(s)
	po := primary(o)
	ps != po
	d := {
		"atom": "block.primary", "path": sprintf("/%d", [i]), "kind": "altered",
		"block": i, "expected": ps, "observed": po,
	}
}

# METADATA
# title: readout
# description: The observed block count and kinds, in order.
readout := {"count": count(_observed), "kinds": [object.get(b, "kind", null) | some b in _observed]}
