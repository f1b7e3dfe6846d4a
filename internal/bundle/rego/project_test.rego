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
