# METADATA
# title: The projector
# description: |
#   The projector (internal/project) as Rego over the contract model's data: view(binding, carrier)
#   executes a compartment binding of the model (lanes.<lane>.stages.<stage>.compartments.<name>)
#   on a carrier and returns the canonical view the task policies read (docs/design.md, "The
#   canonical view"). It reads only the binding's allowlisted pointers, keeps an absent value apart
#   from a present null, applies the decoders (base64, dataurl-payload, dataurl-mime, json, and the
#   content list's json and text), the types selections, a slot inside a JSON text (inner) and the
#   embedded-block decoding, and never searches recursively. Beside the content it says how each
#   carried item reaches the model (delivery) and which items the provider's request schema
#   refuses (rejected), where the binding declares them.
package contractcheck.bundle.project

import data.contractcheck.bundle.accept
import data.contractcheck.bundle.json as jsontext
import data.contractcheck.bundle.pointer

# view is the canonical view of carrier through the compartment binding c. The root is looked up
# once, and the binding's unwrap read once, before anything else.
view(c, carrier) := _view(c, env) if {
	env := pointer.lookup(carrier, c.root)
} else := {}

# _view is the view of the binding c's root env: a JSON-RPC envelope, when the binding unwraps
# one, gives its error as raised, nothing when it has no result, else its result's parts.
_view(c, env) := _parts(c, env) if {
	object.get(c, "unwrap", "") != "jsonrpc"
} else := _parts(c, env) if {
	not _has(env, "jsonrpc")
} else := {"raised": raised(env.error)} if {
	_has(env, "error")
} else := {} if {
	not _has(env, "result")
} else := _parts(c, env.result)

# _parts are the view's parts: the content's, and one for each other part the binding declares
# (a part it does not declare costs no call).
_parts(c, root) := object.union(_content(c, root), {k: v |
	some k in ["structured", "isError", "raised", "meta"]
	f := c[k]
	f != null
	v := _part(k, f, root)
})

_content(c, root) := object.union({"content": content(c.content, v)}, delivered(c.content, v)) if {
	c.content != null
	v := pointer.lookup(root, c.content.path)
	_type_ok(c.content, v)
} else := {}

_part("structured", f, root) := read(f, root)

_part("meta", f, root) := read(f, root)

_part("isError", f, root) := _flag(f, v) if v := pointer.lookup(root, f.path)

_part("raised", f, root) := raised(v) if {
	v := read(f, root)
	v != null
}

# raised is the canonical form of a raised error: {"message": …} when it has one.
raised(v) := {"message": v} if {
	is_string(v)
} else := {"message": v.message} if {
	is_object(v)
	is_string(v.message)
} else := {"value": v}

# _flag maps an error flag carried as a string onto true (abort) or false (continue).
_flag(f, v) if {
	is_string(v)
	v in _list(f, "abort")
} else := false if {
	is_string(v)
	not v in _list(f, "abort")
	v in _list(f, "continue")
} else := v

_list(obj, key) := object.get(obj, key, []) if object.get(obj, key, []) != null

_list(obj, key) := [] if object.get(obj, key, []) == null

# content reads the content list v with the content binding cb.
content(cb, v) := [{"kind": "text", "text": v}] if {
	cb.decode == "text"
	is_string(v)
} else := _items(cb, x) if {
	cb.decode == "json"
	is_string(v)
	x := jsontext.text(v)
} else := _items(cb, v)

# A value other than a list where the list belongs stays visible as one unmapped block.
_items(cb, v) := [_block(cb, item) | some item in v] if {
	is_array(v)
} else := null if {
	v == null
} else := [{"kind": "unmapped", "carried": v}]

_block(cb, item) := {"kind": "unmapped", "type": _discriminator(cb, item)} if {
	not _mapping(cb, item)
} else := b if {
	m := _mapping(cb, item)
	b := embedded(m, item)
} else := block(_mapping(cb, item), item)

_discriminator(cb, item) := d if {
	d := pointer.lookup(item, cb.discriminator)
} else := null

_mapping(cb, item) := m if {
	d := pointer.lookup(item, cb.discriminator)
	is_string(d)
	m := cb.kinds[d]
}

# delivered is what the view says beside "content" about how the content list v reaches the model
# (internal/project, contentProjector.delivered): "delivery", per carried item, the delivery its
# mapping declares ("text" for an item holding an embedded block, null where nothing is declared),
# when any item's mapping declares one; and "rejected", the items the provider's request schema
# refuses, when any item's mapping names one (accepts). A content flattened into one string
# reaches the model as text. {} when the binding declares neither.
delivered(cb, v) := {"delivery": ["text"]} if {
	cb.decode == "text"
	is_string(v)
} else := object.union(_deliveries(cb, items), _rejections(cb, items)) if {
	_declares(cb)
	items := _carried(cb, v)
} else := {}

# _declares holds when a top-level mapping of the content binding declares a delivery or names a
# provider schema.
_declares(cb) if {
	some m in cb.kinds
	some key in ["delivery", "accepts"]
	object.get(m, key, "") != ""
}

_declared(m, key) if object.get(m, key, "") != ""

# _carried is the content value as the list of carried items, decoded as the binding says;
# undefined when it is not a list.
_carried(cb, v) := items if {
	items := _decoded(cb, v)
	is_array(items)
}

_decoded(cb, v) := jsontext.text(v) if {
	cb.decode == "json"
	is_string(v)
} else := v

_deliveries(cb, items) := {"delivery": [_delivery(cb, item) | some item in items]} if {
	some item in items
	_declared(_mapping(cb, item), "delivery")
} else := {}

_delivery(cb, item) := m.delivery if {
	m := _mapping(cb, item)
	_declared(m, "delivery")
} else := "text" if {
	# a block serialised into a text item
	_ = embedded(_mapping(cb, item), item)
} else := null

_rejections(cb, items) := {"rejected": [r | some i, item in items; r := _rejection(cb, i, item)]} if {
	some item in items
	_declared(_mapping(cb, item), "accepts")
} else := {}

# _rejection is item i's entry in "rejected" when the provider's request schema its mapping names
# refuses it: the block's index and the validator's error (rego/accept.rego). The bundle's data
# holds the pinned schemas by their path under the schemas directory; the one named is read
# through a reference, not the whole set bound.
_rejection(cb, i, item) := {"block": i, "error": e} if {
	m := _mapping(cb, item)
	_declared(m, "accepts")
	e := accept.rejection(data.contractcheck.bundle.hot.providers[m.accepts], item)
}

# block reads an item with a block mapping: the kind, and each field the item has.
block(m, item) := object.union({"kind": m.kind}, {atom: v |
	some atom, f in object.get(m, "fields", {})
	v := read(f, item)
})

# embedded reads the item as the content block its string at m.embedded.path holds, when that
# string is strict JSON of an object whose discriminator the embedded kinds map; undefined
# otherwise (the item is then read as carried).
embedded(m, item) := block(em, obj) if {
	e := object.get(m, "embedded", null)
	e != null
	s := pointer.lookup(item, e.path)
	is_string(s)
	obj := jsontext.text(s)
	is_object(obj)
	d := pointer.lookup(obj, e.discriminator)
	is_string(d)
	em := e.kinds[d]
}

# read looks a field up and decodes it; a value the decoder cannot read is kept as carried. With
# inner, the field is a slot inside a JSON text: it is there only when the value is a string of
# strict JSON holding something at the inner pointer. A plain field the bundle writer gave a key
# (internal/bundle, keyed: no decoder, types or inner pointer, a path naming one object member) is
# that member of doc, read in place.
read(f, doc) := x if {
	k := f.key
	x := doc[k]
} else := x if {
	object.get(f, "key", null) == null
	v := pointer.lookup(doc, f.path)
	_type_ok(f, v)
	x := _read(f, v)
}

# _read decodes v; a field that is neither decoded nor a slot (the common case) is v itself,
# without a call to _decode.
_read(f, v) := v if {
	object.get(f, "decode", "none") == "none"
	object.get(f, "inner", null) == null
} else := _decode(object.get(f, "decode", "none"), v) if {
	object.get(f, "inner", null) == null
} else := pointer.lookup(jsontext.text(v), f.inner)

# _type_ok holds when the field selects no types, or v's type is one it selects.
_type_ok(f, v) if {
	object.get(f, "types", null) == null
} else if {
	type_name(v) in object.get(f, "types", [])
}

_decode(d, v) := v if {
	not is_string(v)
} else := x if {
	d == "base64"
	x := canonical_base64(v)
} else := x if {
	d == "dataurl-payload"
	[_, payload] := dataurl(v)
	x := canonical_base64(payload)
} else := mime if {
	d == "dataurl-mime"
	[mime, _] := dataurl(v)
} else := x if {
	d == "json"
	x := jsontext.text(v)
} else := v

# canonical_base64 decodes standard base64, padded or not, strictly (zero padding bits), and gives the
# canonical padded encoding of the same bytes; undefined when s is not base64. As Go's decoder,
# it skips carriage returns and newlines, and reads s unpadded when its length is not a multiple
# of four.
canonical_base64(s) := padded if {
	t := replace(replace(s, "\r", ""), "\n", "")
	padded := _padded(t, (count(s) % 4) == 0)
	regex.match(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`, padded)
	base64.encode(base64.decode(padded)) == padded
}

_padded(t, true) := t if count(t) % 4 == 0

_padded(t, false) := concat("", [t, substring("==", 0, (4 - (count(t) % 4)) % 4)]) if {
	not contains(t, "=")
	count(t) % 4 != 1
}

# dataurl splits "data:<mime>[;param…];base64,<data>" into [mime, data]; only base64 data URLs
# carry a payload a consumer can decode exactly.
dataurl(s) := [params[0], payload] if {
	startswith(s, "data:")
	rest := substring(s, 5, -1)
	i := indexof(rest, ",")
	i >= 0
	params := split(substring(rest, 0, i), ";")
	params[count(params) - 1] == "base64"
	payload := substring(rest, i + 1, -1)
}

_has(obj, key) if {
	is_object(obj)
	_ = obj[key]
}
