# METADATA
# title: Decoder policy first-text-item (a test's custom decoder)
# description: |
#   Reads the target in the first text item alone, parsed whole as strict
#   JSON, and ignores the structured slot and every other item: what a
#   consumer that json.loads(content[0].text) recovers.
# scope: package
package contractcheck.decoders.first_text_item

import data.contractcheck.lib.decoders
import data.contractcheck.lib.views

readout := decoders.readout(decoders.expected, recovery)

recovery := decoders.found(contractcheck.json_text(views.text_items(input.observed)[0]), input.target) if {
	_ = contractcheck.json_text(views.text_items(input.observed)[0])
}

recovery := {"unparseable": [0]} if {
	t := views.text_items(input.observed)[0]
	not contractcheck.json_text(t)
}

recovery := {} if count(views.text_items(input.observed)) == 0
