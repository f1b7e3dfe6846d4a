# METADATA
# title: Decoder policy native-slot
# description: |
#   Reads only the declared native path: the target field inside the
#   observed view's dedicated structured slot. A value that survives only as
#   JSON text is not recovered. Readouts: match, missing, wrong, introduced
#   (never ambiguous or unparseable).
#
#   Input: {"decoder": "native-slot", "fixture": {"id", "family"},
#   "target": JSON pointer into structuredContent, "source": the W0 view
#   through the canonical binding, "observed": the carrier's view through
#   the stage's structured compartment}.
#   Output: readout := {"kind": k, "observed"?: the value read}.
# scope: package
package contractcheck.decoders.native_slot

import data.contractcheck.lib.decoders

# METADATA
# title: readout
# description: What native-slot recovers at input.target, classified against the source.
readout := decoders.readout(decoders.expected, decoders.slot(input.observed, input.target))
