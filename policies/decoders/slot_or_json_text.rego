# METADATA
# title: Decoder policy slot-or-json-text
# description: |
#   Prefers any present structured slot (even null or empty) and reads the
#   target there. Without a slot it parses each entire text item as strict
#   JSON (contractcheck.json_text: exact numbers, no duplicate keys, nothing
#   around the document but whitespace, so prose-wrapped and concatenated
#   JSON are rejected). Every text item must parse, else the readout is
#   unparseable. The values the parsed items hold at the target are the
#   candidates: none is missing (or a correct absence), equal ones are the
#   value, unequal typed ones are ambiguous.
#
#   Input and output as native-slot; an ambiguous readout lists its
#   candidates in text-item order.
# scope: package
package contractcheck.decoders.slot_or_json_text

import data.contractcheck.lib.decoders
import data.contractcheck.lib.views

# METADATA
# title: readout
# description: What slot-or-json-text recovers at input.target, classified against the source.
readout := decoders.readout(decoders.expected, recovery)

# recovery is what the policy finds at the target (lib decoders).
recovery := decoders.slot(input.observed, input.target) if views.has(input.observed, "structured")

recovery := text_recovery(input.observed, input.target) if not views.has(input.observed, "structured")

# text_recovery(view, ptr) reads ptr in the view's text items parsed whole as
# strict JSON.
text_recovery(view, _) := {"unparseable": bad} if {
	bad := unparsed(view)
	count(bad) > 0
}

text_recovery(view, ptr) := _pick(candidates(view, ptr)) if count(unparsed(view)) == 0

# unparsed(view) are the indices of the text items that are not whole strict JSON.
unparsed(view) := [i |
	some i, t in views.text_items(view)
	not _parses(t)
]

_parses(t) if _ = contractcheck.json_text(t)

# candidates(view, ptr) are the values the parsed text items hold at ptr, in order.
candidates(view, ptr) := [x |
	some t in views.text_items(view)
	x := decoders.at(contractcheck.json_text(t), ptr)
]

_pick(cs) := {} if count(cs) == 0

_pick(cs) := {"found": cs[0]} if {
	count(cs) > 0
	every c in cs {
		views.same(c, cs[0])
	}
}

_pick(cs) := {"ambiguous": cs} if {
	some c in cs
	not views.same(c, cs[0])
}
