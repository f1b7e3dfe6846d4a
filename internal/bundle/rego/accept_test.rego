package contractcheck.bundle.accept_test

import data.contractcheck.bundle.accept

# The pinned schemas are in the bundle's data (internal/bundle TestRego loads it).
_image := data.contractcheck.contracts.providers["providers/openai-responses-input-image.schema.json"]

_text := data.contractcheck.contracts.providers["providers/openai-responses-input-text.schema.json"]

test_accepted if {
	not accept.rejection(_image, {"type": "input_image", "image_url": "data:image/png;base64,QUJD"})
	not accept.rejection(_image, {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "high"})
	not accept.rejection(_image, {"type": "input_image", "image_url": null, "file_id": "file-1"})
	not accept.rejection(_text, {"type": "input_text", "text": "t"})
}

test_rejection_words_every_leaf if {
	accept.rejection(_image, {"type": "input_image", "image_url": "iVBORw0KGgo="}) == "/image_url: got string, want null; also /image_url: not a valid \"uri\": no scheme (not an absolute URI)"
	accept.rejection(_image, {"type": "input_image", "prompt_cache_breakpoint": {}}) == "/prompt_cache_breakpoint: got object, want null; also /prompt_cache_breakpoint: missing property 'mode'"
	accept.rejection(_image, {"type": "input_image", "detail": "bogus"}) == "/detail: got string, want null; also /detail: value must be one of 'low', 'high', 'auto', 'original'"
	accept.rejection(_image, {"type": "wrong"}) == "/type: value must be 'input_image'"
	accept.rejection(_text, {}) == "missing properties 'type', 'text'"
	accept.rejection(_image, "a string item") == "got string, want object"
}

test_rejection_lists_three_and_counts_the_rest if {
	item := {"type": "x", "image_url": "a b", "detail": "y", "file_id": 3}
	accept.rejection(_image, item) == concat("", [
		"/detail: got string, want null; also /detail: value must be one of 'low', 'high', 'auto', 'original'; ",
		"also /file_id: got number, want null (and 4 more)",
	])
}

test_strict_asserts_the_uri_pattern if {
	s := accept.strict({"properties": {"u": {"anyOf": [{"type": "string", "format": "uri"}, {"type": "null"}]}}})
	s.properties.u.anyOf[0].pattern == accept.uri_pattern
	not s.properties.u.anyOf[1].pattern
}

test_uri_errors if {
	not accept.uri_error("https://example.com/a?b=c#d")
	not accept.uri_error("data:image/png;base64,QUJD")
	not accept.uri_error("foo://[::1]:80/x")
	not accept.uri_error(7)
	accept.uri_error("QUJD") == "no scheme (not an absolute URI)"
	accept.uri_error(":x") == "the scheme must start with a letter"
	accept.uri_error("1a:x") == "the scheme must start with a letter"
	accept.uri_error("hé:x") == "character 'Ã' at offset 1 is not allowed in a scheme"
	accept.uri_error("h_t:x") == "character '_' at offset 1 is not allowed in a scheme"
	accept.uri_error("a:bé") == "character 'é' at offset 3 is not allowed in a URI (RFC 3986 §2; percent-encode it)"
	accept.uri_error("a:b c") == "character ' ' at offset 3 is not allowed in a URI (RFC 3986 §2; percent-encode it)"
	accept.uri_error("a:b\"") == "character '\"' at offset 3 is not allowed in a URI (RFC 3986 §2; percent-encode it)"
	accept.uri_error("a:%41%4") == "\"%\" at offset 5 is not followed by two hex digits"
	accept.uri_error("a:%%41") == "\"%\" at offset 2 is not followed by two hex digits"
	accept.uri_error("a://h/[x]") == "'[' at offset 6 outside the authority"
	accept.uri_error("a:b]") == "']' at offset 3 outside the authority"
	accept.uri_error("a:b#c#d") == "a second \"#\" at offset 5"
	accept.uri_error("é:é a") == "the scheme must start with a letter"
	accept.uri_error("a:é %zz") == "character 'é' at offset 2 is not allowed in a URI (RFC 3986 §2; percent-encode it)"
	accept.uri_error("a:%zzé") == "\"%\" at offset 2 is not followed by two hex digits"
	accept.uri_error("foo://1:2:3/") == "an IPv6 address must be enclosed in brackets"
	accept.uri_error("http://a:b/#f") == "parse \"http://a:b/\": url.Parse refuses it"
}

test_quoting if {
	accept.quote("a'b\"c") == "'a\\'b\"c'"
	accept.quote_rune("'") == "'\\''"
	accept.quote_rune("\"") == "'\"'"
	accept.quote_rune("\u0001") == "'\\x01'"
	accept.display(null) == "<nil>"
	accept.display(1.5) == "1.5"
	accept.display(true) == "true"
}

test_enum_messages if {
	accept.rejection({"enum": [1, null]}, 2) == "value must be one of 1, <nil>"
	accept.rejection({"enum": [[1]]}, 2) == "'enum' failed"
	accept.rejection({"type": ["string", "null"]}, 2) == "got number, want null or string"
	not accept.rejection({"type": "integer"}, 2)
	accept.rejection({"type": "integer"}, 2.5) == "got number, want integer"
	accept.rejection({"type": "string", "maxLength": 2, "minLength": 1}, "abc") == "maxLength: got 3, want 2"
}

test_a_keyword_it_does_not_word_falls_back_to_stock_errors if {
	m := accept.rejection({"minimum": 5}, 3)
	contains(m, "5")
}
