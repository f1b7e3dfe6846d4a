# METADATA
# title: Decoder policy helpers
# description: |
#   Shared helpers for the decoder policies (docs/design.md, "Decoder
#   policies"). A decoder policy reads one declared target field of a
#   structured fixture, a JSON pointer into structuredContent, and defines
#   readout := {"kind": k, "observed"?: v, "candidates"?: [..]} with k one of
#   match, missing, wrong, ambiguous, unparseable, introduced.
#
#   A recovery is what a decoder found at the target: {"found": v} (a value,
#   null included), {} (nothing), {"ambiguous": [v, ...]} (unequal typed
#   candidates) or {"unparseable": [i, ...]} (the indices of the text items
#   that are not whole strict JSON). readout(expected, recovery) turns it into
#   the readout, given the expected recovery from the source.
# scope: package
package contractcheck.lib.decoders

import data.contractcheck.lib.views

# at(doc, ptr) is the value at the RFC 6901 JSON pointer ptr in doc;
# undefined when there is none (a present null is a value). Nothing is
# searched: the pointer names one path.
at(doc, "") := doc

at(doc, ptr) := x if {
	ptr != ""
	walk(doc, [p, x])
	count(p) > 0
	views.pointer("", p) == ptr
}

# found(doc, ptr) is the recovery of ptr in doc: {"found": v} or {}.
found(doc, ptr) := {"found": x} if x := at(doc, ptr)

found(doc, ptr) := {} if not _defined(doc, ptr)

_defined(doc, ptr) if _ = at(doc, ptr)

# slot(view, ptr) reads ptr in the view's dedicated structured slot only: {}
# when the slot is absent or holds nothing at ptr.
slot(view, ptr) := found(view.structured, ptr) if views.has(view, "structured")

slot(view, _) := {} if not views.has(view, "structured")

# expected is the source's recovery of the target: the W0 structuredContent
# at input.target, read through the canonical binding.
expected := slot(input.source, input.target)

# readout(exp, rec) classifies a recovery rec against the expected one exp.
readout(_, rec) := {"kind": "unparseable"} if views.has(rec, "unparseable")

readout(_, rec) := {"kind": "ambiguous", "candidates": rec.ambiguous} if views.has(rec, "ambiguous")

readout(exp, rec) := {"kind": "match"} if {
	not views.has(exp, "found")
	rec == {}
}

readout(exp, rec) := {"kind": "introduced", "observed": rec.found} if {
	not views.has(exp, "found")
	views.has(rec, "found")
}

readout(exp, rec) := {"kind": "missing"} if {
	views.has(exp, "found")
	rec == {}
}

readout(exp, rec) := {"kind": "match", "observed": rec.found} if {
	views.same(exp.found, rec.found)
}

readout(exp, rec) := {"kind": "wrong", "observed": rec.found} if {
	views.has(exp, "found")
	views.has(rec, "found")
	not views.same(exp.found, rec.found)
}
