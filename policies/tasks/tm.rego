# METADATA
# title: TM media delivery (primary)
# description: |
#   Each image and audio block of the source reaches the model as media: the
#   observed block at the same index is delivered as a provider media part
#   ("media"), a media part holding a data URL ("data-url") or a file
#   reference ("file-reference"), never serialised into text ("text"). The
#   view's "delivery" list (docs/design.md) says per block how it is
#   delivered, as the lane's binding declares it; a block the binding says
#   nothing about, or that is not there, has no delivery (kind "missing").
#   Atom: block.delivery. Evaluated at M3 and H4, where the carrier is what
#   the model receives.
# custom:
#   reads: [content, delivery]
# scope: package
package contractcheck.tasks.tm

import data.contractcheck.lib.views

_atom := "block.delivery"

# The deliveries a model reads media from.
media_deliveries := {"media", "data-url", "file-reference"}

_media_kinds := {"image", "audio"}

default _deliveries := []

_deliveries := input.observed.delivery if is_array(input.observed.delivery)

# _delivery(i) is the delivery of observed block i, null when none is known.
_delivery(i) := d if {
	d := _deliveries[i]
	d != null
} else := null

# METADATA
# title: diagnostics
# scope: document
# description: |
#   Per source image or audio block i, a "missing" diagnostic when observed
#   block i has no delivery, an "altered" one when it is delivered otherwise
#   than as media (the expected value is "media").
diagnostics contains d if {
	views.checked(_atom)
	some i, b in views.content(input.source)
	b.kind in _media_kinds
	got := _delivery(i)
	got == null
	d := {"atom": _atom, "path": sprintf("/%d", [i]), "kind": "missing", "block": i, "expected": "media"}
}

diagnostics contains d if {
	views.checked(_atom)
	some i, b in views.content(input.source)
	b.kind in _media_kinds
	got := _delivery(i)
	got != null
	not got in media_deliveries
	d := {"atom": _atom, "path": sprintf("/%d", [i]), "kind": "altered", "block": i, "expected": "media", "observed": got}
}

# METADATA
# title: readout
# description: The observed deliveries of the source's media blocks, in block order.
readout := {"delivery": [_delivery(i) |
	some i, b in views.content(input.source)
	b.kind in _media_kinds
]}
