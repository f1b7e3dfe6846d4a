# METADATA
# title: Tests of contractcheck.visibility
# description: Each channel reading and each category, from the shapes of the carriers the lanes produce.
# scope: package
package contractcheck.visibility_test

import data.contractcheck.visibility

_text := {"kind": "text", "text": "Two invoices are overdue."}

_structured := {"invoices": [{"id": "INV-1", "amountEur": 1299.5}], "currency": "EUR"}

_src := {"content": [_text], "structured": _structured}

_err_src := object.union(_src, {"isError": true})

channels(src, obs, binding) := c if {
	c := visibility.channels with input as {"fixture": {"id": "V03"}, "stage": "H4", "source": src, "observed": obs, "binding": binding}
}

_same(v) := {"content": v, "structured": v, "error": v}

_texts(ts) := {"content": [{"kind": "text", "text": t} | some t in ts]}

test_content_only if {
	channels(_src, _same({"content": [_text]}), {}) == {"content": "blocks", "structured": "none"}
}

test_structured_as_json_text_only if {
	# openai-agents use-structured-content: json.dumps(structuredContent) replaces the content.
	obs := _same(_texts([json.marshal(_structured)]))
	channels(_src, obs, {}) == {"content": "none", "structured": "json-text"}
}

test_both_appended_text if {
	# agent-framework: the structured value appended as a second text item.
	obs := _same(_texts([_text.text, json.marshal(_structured)]))
	channels(_src, obs, {}) == {"content": "blocks", "structured": "json-text"}
}

test_joined_text_items if {
	# agent-framework's request body: the text items joined by a newline into one string.
	obs := _same(_texts([concat("\n", [_text.text, json.marshal(_structured)])]))
	channels(_src, obs, {}) == {"content": "joined", "structured": "json-line"}

	# A join that merely begins with the text is not the text.
	channels(_src, _same(_texts([concat("", [_text.text, " and more"])])), {}) == {"content": "none", "structured": "none"}
}

test_whole_result_native if {
	# adk-js: the whole result is the function response, its slots native.
	channels(_src, _same(_src), {"structured": {"path": "/structuredContent", "decode": "none"}}) == {"content": "blocks", "structured": "slot"}
}

test_dump_of_block_and_slot_inside_it if {
	# langchain-mcp-adapters-js: the JSON text of {…textBlock, structuredContent}.
	dump := json.marshal({"type": "text", "text": _text.text, "structuredContent": _structured})
	obs := {"content": _texts([dump]), "structured": object.union(_texts([dump]), {"structured": _structured}), "error": {}}
	binding := {"structured": {"path": "/output", "decode": "json", "inner": "/structuredContent"}}
	channels(_src, obs, binding) == {"content": "dump", "structured": "dump"}
}

test_dump_of_result_in_text if {
	dump := json.marshal({"content": [{"type": "text", "text": _text.text}], "structuredContent": _structured, "isError": true})
	channels(_err_src, _same(_texts([dump])), {}) == {"content": "dump", "structured": "dump", "isError": "dump"}
}

test_exact_values_only if {
	# A text that merely contains the value, or spells a number otherwise, recovers nothing.
	prose := sprintf("result: %s", [json.marshal(_structured)])
	channels(_src, _same(_texts([prose])), {}) == {"content": "none", "structured": "none"}
	other := json.marshal({"invoices": [{"id": "INV-1", "amountEur": 1299.25}], "currency": "EUR"})
	channels(_src, _same(_texts([other])), {}) == {"content": "none", "structured": "none"}
}

test_altered_slot if {
	channels(_src, _same({"content": [_text], "structured": {"currency": "USD"}}), {}) == {"content": "blocks", "structured": "altered"}
}

test_partial_and_empty_content if {
	src := {"content": [_text, {"kind": "text", "text": "second"}], "structured": _structured}
	channels(src, _same({"content": [_text]}), {}).content == "partial"
	channels({"content": [], "structured": _structured}, _same({"content": []}), {}) == {"content": "empty", "structured": "none"}
	channels({"content": [_text]}, _same({"content": [_text]}), {}) == {"content": "blocks", "structured": "absent"}
}

test_error_marker if {
	channels(_err_src, _same({"content": [_text], "isError": true}), {}).isError == "flag"
	channels(_err_src, _same({"content": [_text], "raised": "boom"}), {}).isError == "flag"
	channels(_err_src, _same({"content": [_text]}), {}).isError == "lost"
	not channels(_src, _same({"content": [_text]}), {}).isError
}

category(fixtures) := c if {
	c := visibility.category with input as {"fixtures": fixtures}
}

_f(content, structured) := {"channels": {"content": content, "structured": structured}}

test_each_category if {
	category({"V01": _f("blocks", "none"), "V02": _f("empty", "none")}).category == "content-only"
	category({"V01": _f("none", "json-text"), "V02": _f("empty", "json-text")}).category == "structured-first"
	category({"V01": _f("blocks", "slot"), "V02": _f("empty", "slot")}).category == "both"
	category({"V01": _f("blocks", "none"), "V02": _f("empty", "slot")}).category == "fallback"
	category({"V01": _f("none", "none"), "V02": _f("empty", "none")}).category == "neither"
}

test_mixed_names_the_fixtures_that_disagree if {
	c := category({
		"V01": _f("dump", "dump"),
		"V02": _f("empty", "none"),
		"V03": _f("dump", "dump"),
	})
	c == {
		"category": "mixed", "nearest": "both", "disagree": ["V02"],
		"shapes": {"V01": "both", "V02": "nothing", "V03": "both"},
	}
}

test_errors_apart if {
	err := {"channels": {"content": "none", "structured": "none", "isError": "lost"}}
	c := category({"V01": _f("none", "json-text"), "V02": _f("empty", "json-text"), "V04": err})
	c.category == "structured-first"
	c.onError == "nothing"
	c.shapes.V04 == "nothing"

	ok := {"channels": {"content": "blocks", "structured": "none", "isError": "flag"}}
	category({"V01": _f("none", "json-text"), "V04": err, "V05": ok}).onError == "mixed"
	not category({"V01": _f("none", "json-text")}).onError
}

test_undetermined_without_an_empty_content if {
	c := category({"V01": _f("blocks", "none")})
	c.category == "undetermined"
	c.candidates == ["content-only", "fallback"]
}
