# METADATA
# title: Decoder policy slot-then-json-text
# description: |
#   The study's JSON-text fallback. It reads the structured slot first and
#   falls back to JSON text only where the slot is absent: a present slot
#   (even null or empty) is read as native-slot reads it; without one, the
#   text items are read exactly as slot-or-json-text reads them (each entire
#   item strict JSON, every item must parse, unequal typed candidates are
#   ambiguous).
#
#   It differs from slot-or-json-text in one classification only: text that
#   is not JSON recovers nothing, and that counts against a value the source
#   has (unparseable) but not where the source has none at the target, where
#   recovering nothing is the correct absence (match). So a text-only result
#   whose prose carries no structured value (C01) matches on the control
#   lane, while prose in place of a structured value (C02 at a lane that
#   drops the slot) is unparseable under both fallbacks.
#
#   Input and output as native-slot.
# scope: package
package contractcheck.decoders.slot_then_json_text

import data.contractcheck.decoders.slot_or_json_text
import data.contractcheck.lib.decoders
import data.contractcheck.lib.views

# METADATA
# title: readout
# description: What slot-then-json-text recovers at input.target, classified against the source.
# scope: document
readout := {"kind": "match"} if _unparseable_absence

readout := decoders.readout(decoders.expected, slot_or_json_text.recovery) if not _unparseable_absence

# _unparseable_absence: the source has no value at the target (no structured
# slot, or nothing at the pointer) and the text that was read is not JSON.
_unparseable_absence if {
	not views.has(decoders.expected, "found")
	views.has(slot_or_json_text.recovery, "unparseable")
}
