package contractcheck.bundle.project_test

import data.contractcheck.bundle.project

_blocks := {
	"text": {"kind": "text", "fields": {"text": {"path": "/text", "decode": "none"}, "annotations": {"path": "/annotations", "decode": "none"}, "title": {"path": "/title", "decode": "none"}}},
	"image": {"kind": "image", "fields": {"payload": {"path": "/data", "decode": "base64"}, "mimeType": {"path": "/mimeType", "decode": "none"}}},
}

_mcp := {
	"root": "",
	"unwrap": "jsonrpc",
	"content": {"path": "/content", "decode": "none", "discriminator": "/type", "kinds": _blocks},
	"structured": {"path": "/structuredContent", "decode": "none"},
	"isError": {"path": "/isError", "abort": null, "continue": null},
	"meta": {"path": "/_meta", "decode": "none"},
}

test_absent_is_not_null if {
	project.view(_mcp, {"content": [{"type": "text", "text": "a", "title": null}], "structuredContent": null}) == {
		"content": [{"kind": "text", "text": "a", "title": null}],
		"structured": null,
	}
	project.view(_mcp, {}) == {}
}

test_unmapped_items if {
	project.view(_mcp, {"content": [{"type": "video"}, {"text": "no type"}]}).content == [{"kind": "unmapped", "type": "video"}, {"kind": "unmapped", "type": null}]
	project.view(_mcp, {"content": "not a list"}).content == [{"kind": "unmapped", "carried": "not a list"}]
	project.view(_mcp, {"content": null}).content == null
}

test_jsonrpc_unwrap if {
	project.view(_mcp, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}}) == {"raised": {"message": "boom"}}
	project.view(_mcp, {"jsonrpc": "2.0", "id": 1, "result": {"isError": false}}) == {"isError": false}
	project.view(_mcp, {"jsonrpc": "2.0", "id": 1}) == {}
}

_image(b64) := project.view(_mcp, {"content": [{"type": "image", "data": b64}]}).content[0].payload

test_base64_decoder if {
	_image("QUJD") == "QUJD"
	_image("QUI") == "QUI="
	_image("QUI=") == "QUI="
	_image("") == ""
	_image("QR==") == "QR=="
	_image("QU\nJD") == "QUJD"
	_image("Q") == "Q"
	_image("QUI==") == "QUI=="
	_image("not base64!") == "not base64!"
	_image(7) == 7
}

test_data_urls if {
	project.dataurl("data:image/png;base64,QUJD") == ["image/png", "QUJD"]
	project.dataurl("data:image/png;name=a.png;base64,QUJD") == ["image/png", "QUJD"]
	not project.dataurl("data:text/plain,hello")
	not project.dataurl("image/png;base64,QUJD")
	project.read({"path": "/u", "decode": "dataurl-payload"}, {"u": "data:image/png;base64,QUI"}) == "QUI="
	project.read({"path": "/u", "decode": "dataurl-mime"}, {"u": "data:image/png;base64,QUI"}) == "image/png"
	project.read({"path": "/u", "decode": "dataurl-mime"}, {"u": "plain"}) == "plain"
}

test_json_decoder_and_types if {
	project.read({"path": "/s", "decode": "json"}, {"s": "{\"a\": 1}"}) == {"a": 1}
	project.read({"path": "/s", "decode": "json"}, {"s": "{\"a\": 1, \"a\": 2}"}) == "{\"a\": 1, \"a\": 2}"
	project.read({"path": "/s", "decode": "none", "types": ["object"]}, {"s": {"a": 1}}) == {"a": 1}
	not project.read({"path": "/s", "decode": "none", "types": ["object"]}, {"s": "{}"})
}

test_content_decoders if {
	project.content({"decode": "text", "discriminator": "/type", "kinds": _blocks}, "hello") == [{"kind": "text", "text": "hello"}]
	project.content({"decode": "json", "discriminator": "/type", "kinds": _blocks}, "[{\"type\": \"text\", \"text\": \"x\"}]") == [{"kind": "text", "text": "x"}]
	project.content({"decode": "json", "discriminator": "/type", "kinds": _blocks}, "[oops") == [{"kind": "unmapped", "carried": "[oops"}]
}

test_error_flag_and_raised if {
	status := {"root": "", "unwrap": "none", "isError": {"path": "/status", "abort": ["error"], "continue": ["success"]}, "raised": {"path": "/err", "decode": "none"}}
	project.view(status, {"status": "error"}) == {"isError": true}
	project.view(status, {"status": "success"}) == {"isError": false}
	project.view(status, {"status": "other"}) == {"isError": "other"}
	project.view(status, {"err": "timeout"}) == {"raised": {"message": "timeout"}}
	project.view(status, {"err": null}) == {}
	project.view(status, {"err": {"code": 1}}) == {"raised": {"value": {"code": 1}}}
}

_embedding := {
	"kinds": {"input_text": {
		"kind": "text",
		"fields": {"text": {"path": "/text", "decode": "none"}},
		"embedded": {"path": "/text", "discriminator": "/type", "kinds": {"resource_link": {"kind": "resource_link", "fields": {"uri": {"path": "/uri", "decode": "none"}, "title": {"path": "/title", "decode": "none"}}}}},
	}},
	"discriminator": "/type", "decode": "none",
}

test_embedded_blocks if {
	project.content(_embedding, [{"type": "input_text", "text": "{\"type\": \"resource_link\", \"uri\": \"file:///a\", \"title\": null}"}]) == [{"kind": "resource_link", "uri": "file:///a", "title": null}]
	project.content(_embedding, [{"type": "input_text", "text": "{\"type\": \"text\", \"text\": \"x\"}"}]) == [{"kind": "text", "text": "{\"type\": \"text\", \"text\": \"x\"}"}]
	project.content(_embedding, [{"type": "input_text", "text": "plain words"}]) == [{"kind": "text", "text": "plain words"}]
	project.content(_embedding, [{"type": "input_text", "text": "{\"type\": \"resource_link\", \"uri\": \"a\", \"uri\": \"b\"}"}])[0].kind == "text"
}

_image_url := "providers/openai-responses-input-image.schema.json"

# A request body's parts as a provider lane binds them: each mapping says how its part reaches the
# model, and the image part names the provider's request schema.
_parts := {
	"path": "/output",
	"decode": "none",
	"discriminator": "/type",
	"kinds": {
		"input_image": {"kind": "image", "delivery": "data-url", "accepts": _image_url, "fields": {"payload": {"path": "/image_url", "decode": "dataurl-payload"}}},
		"input_text": {
			"kind": "text", "fields": {"text": {"path": "/text", "decode": "none"}},
			"embedded": {"path": "/text", "discriminator": "/type", "kinds": {"audio": {"kind": "audio", "fields": {}}}},
		},
	},
}

_request(items) := project.view({"root": "", "content": _parts}, {"output": items})

test_delivery_per_item if {
	v := _request([
		{"type": "input_image", "image_url": "data:image/png;base64,QUJD"},
		{"type": "input_text", "text": "plain"},
		{"type": "input_text", "text": "{\"type\": \"audio\", \"data\": \"QUJD\"}"},
		{"type": "input_video"},
	])
	v.delivery == ["data-url", null, "text", null]
	v.content[2] == {"kind": "audio"}
	v.rejected == []
}

test_delivery_only_when_declared if {
	# no item's mapping declares a delivery: no list, though the binding declares one
	v := _request([{"type": "input_text", "text": "plain"}])
	not v.delivery
	v.content == [{"kind": "text", "text": "plain"}]

	# no mapping declares anything: neither list
	w := project.view({"root": "", "content": object.union(_parts, {"kinds": {"input_text": _parts.kinds.input_text}})}, {"output": []})
	w == {"content": []}

	# not a list: neither
	u := _request("not a list")
	not u.delivery
	not u.rejected
}

test_flattened_content_is_text if {
	v := project.view({"root": "", "content": {"path": "/out", "decode": "text", "discriminator": "", "kinds": {}}}, {"out": "one string"})
	v.delivery == ["text"]
	v.content == [{"kind": "text", "text": "one string"}]
}

test_delivery_of_a_json_list if {
	cb := object.union(_parts, {"decode": "json"})
	v := project.view({"root": "", "content": cb}, {"output": "[{\"type\": \"input_image\", \"image_url\": \"data:image/png;base64,QUJD\"}]"})
	v.delivery == ["data-url"]
	w := project.view({"root": "", "content": cb}, {"output": "[not json"})
	not w.delivery
}

test_rejected_parts if {
	v := _request([
		{"type": "input_text", "text": "t"},
		{"type": "input_image", "image_url": "iVBORw0KGgo="},
		{"type": "input_image", "image_url": "data:image/png;base64,QUJD", "detail": "auto"},
	])
	v.rejected == [{"block": 1, "error": "/image_url: got string, want null; also /image_url: not a valid \"uri\": no scheme (not an absolute URI)"}]
	v.delivery == [null, "data-url", "data-url"]
}

test_inner_slot if {
	f := {"path": "/content", "decode": "json", "inner": "/structuredContent"}
	project.read(f, {"content": "{\"structuredContent\": {\"n\": 1}}"}) == {"n": 1}
	project.read(f, {"content": "{\"structuredContent\": null}"}) == null
	not project.read(f, {"content": "{\"other\": 1}"})
	not project.read(f, {"content": "not json"})
	not project.read(f, {"content": {"structuredContent": 1}})
	not project.read(f, {})
	project.view({"root": "", "structured": f}, {"content": "{\"structuredContent\": [1]}"}) == {"structured": [1]}
}

# A plain field the bundle writer keyed is read as the member itself: the same value, absent where
# the member is absent or the document is not an object.
test_keyed_fields_read_as_looked_up if {
	keyed := {"path": "/text", "decode": "none", "key": "text"}
	every doc in [{"text": "a"}, {"text": null}, {"text": false}, {}, ["text"], "text", null] {
		[x | x := project.read(keyed, doc)] == [x | x := project.read({"path": "/text", "decode": "none"}, doc)]
	}
	project.read(keyed, {"text": false}) == false
	not project.read(keyed, ["text"])
}
