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

	# A join that merely begins with the text is not the text: the text is in it, rendered.
	channels(_src, _same(_texts([concat("", [_text.text, " and more"])])), {}) == {"content": "rendered", "structured": "none"}
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
	# A text that merely contains the value recovers nothing exactly (its leaves are in it:
	# rendered, apart), and one that spells a number otherwise holds not even that.
	prose := sprintf("result: %s", [json.marshal(_structured)])
	channels(_src, _same(_texts([prose])), {}) == {"content": "none", "structured": "rendered"}
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

_v01_text := "{\"verdict\":\"approve\",\"claimId\":\"CLM-55102\"}"

_v01 := {"content": [{"kind": "text", "text": _v01_text}], "structured": {"verdict": "reject", "claimId": "CLM-55102"}}

test_line_between_tag_lines if {
	# gemini-cli: the text word for word between two tag lines, structuredContent dropped.
	tagged := concat("\n", ["<untrusted_context>", _v01_text, "</untrusted_context>"])
	channels(_v01, _same(_texts([tagged])), {}) == {"content": "line", "structured": "none"}

	# A marker on a line of its own before the text, and the text as the last line.
	channels(_src, _same(_texts([concat("\n", ["Tool output:", _text.text])])), {}).content == "line"

	# Part of a line is not a line: the text is only rendered there.
	channels(_src, _same(_texts([concat("\n", ["<ctx>", concat("", ["> ", _text.text]), "</ctx>"])])), {}).content == "rendered"
}

test_line_of_joined_texts if {
	# Two text items, joined by newlines, as whole lines in the middle of a text.
	src := {"content": [_text, {"kind": "text", "text": "Pay by Friday."}]}
	obs := _same(_texts([concat("\n", ["<result>", _text.text, "Pay by Friday.", "</result>"])]))
	channels(src, obs, {}).content == "line"

	# The same texts on one line are not whole lines.
	channels(src, _same(_texts([concat(" ", ["<result>", _text.text, "Pay by Friday.", "</result>"])])), {}).content == "rendered"
}

_err_text := "Rate limit reached for workspace ws-delta."

_err_v04 := {"content": [{"kind": "text", "text": _err_text}], "structured": {"errorCode": "RATE_LIMITED", "retryAfterSeconds": 120}, "isError": true}

test_prefixed_marker_on_the_same_line if {
	# strands on an error: "[ERROR] " and the text.
	channels(_err_v04, _same(_texts([concat("", ["[ERROR] ", _err_text])])), {}) == {"content": "prefixed", "structured": "none", "isError": "lost"}

	# A marker that is not one of the policy's is no exact reading.
	channels(_err_v04, _same(_texts([concat("", ["[WARN] ", _err_text])])), {}).content == "rendered"
	every m in visibility.markers {
		channels(_err_v04, _same(_texts([concat("", [m, _err_text, "\nRetry later."])])), {}).content == "prefixed"
	}
}

test_array_dump if {
	# A framework that sends the content list as a bare JSON array.
	dump := json.marshal([{"type": "text", "text": _text.text}])
	channels(_src, _same(_texts([dump])), {}) == {"content": "array-dump", "structured": "none"}

	# An array of other blocks recovers nothing of it.
	other := json.marshal([{"type": "text", "text": "Three invoices are overdue."}])
	channels(_src, _same(_texts([other])), {}).content == "none"

	# Two source texts, one of them missing from the array: partial.
	src := {"content": [_text, {"kind": "text", "text": "Pay by Friday."}]}
	channels(src, _same(_texts([dump])), {}).content == "partial"
}

test_error_object if {
	channels(_err_v04, _same(_texts([json.marshal({"error": _err_text})])), {}) == {"content": "error-object", "structured": "none", "isError": "lost"}

	# adk-go: the error member is a sentence of the framework's own around the text.
	sentence := json.marshal({"error": concat("", ["Tool execution failed. Details: ", _err_text])})
	channels(_err_v04, _same(_texts([sentence])), {}).content == "rendered"

	# The same sentence raised (Gemini's functionResponse.response.error) reads the same.
	raised := {"error": {"raised": {"message": concat("", ["Tool execution failed. Details: ", _err_text])}}}
	channels(_err_v04, raised, {}) == {"content": "rendered", "structured": "none", "isError": "flag"}
	channels(_err_v04, {"error": {"raised": {"message": _err_text}}}, {}).content == "line"
}

test_rewritten_only_on_error if {
	# agent-framework: "Error: Function failed." in place of the tool's text.
	own := _same(_texts(["Error: Function failed."]))
	channels(_err_v04, own, {}).content == "rewritten"

	# A result that is not an error reads none: its text is, say, the structured value's JSON.
	channels(_src, own, {}).content == "none"

	# No text at all: none.
	channels(_err_v04, _same(_texts([" "])), {}).content == "none"
}

test_rendered_javascript_object_literal if {
	# A framework that prints the whole result as a JavaScript object literal, quotes stripped.
	printed := concat("\n", [
		"{",
		"  content: [ { type: text, text: Two invoices are overdue. } ],",
		"  structuredContent: { invoices: [ { id: INV-1, amountEur: 1299.5 } ], currency: EUR }",
		"}",
	])
	channels(_src, _same(_texts([printed])), {}) == {"content": "rendered", "structured": "rendered"}

	# One leaf missing (or spelled otherwise) is not rendered.
	other := replace(printed, "1299.5", "1300")
	channels(_src, _same(_texts([other])), {}) == {"content": "rendered", "structured": "none"}
}

test_exact_readings_before_lossy if {
	# The exact reading wins when a text is also found elsewhere.
	obs := _same(_texts([_text.text, json.marshal(_structured), concat("", ["see: ", _text.text])]))
	channels(_src, obs, {}) == {"content": "blocks", "structured": "json-text"}
}

test_rendered_category_apart if {
	rendered := {"channels": {"content": "rendered", "structured": "rendered"}}
	empty := {"channels": {"content": "empty", "structured": "rendered"}}
	c := category({"V01": rendered, "V02": empty, "V03": rendered})
	c.category == "neither"
	c.rendered == "both"
	c.shapes == {"V01": "rendered", "V02": "rendered", "V03": "rendered"}

	# Exact content, the structured value rendered only: content-only exactly, both rendered.
	c2 := category({"V01": _f("blocks", "rendered"), "V02": _f("empty", "rendered")})
	c2.category == "content-only"
	c2.rendered == "both"

	# No rendered channel: no rendered category.
	not category({"V01": _f("blocks", "none"), "V02": _f("empty", "none")}).rendered
}

_err_f(content) := {"channels": {"content": content, "structured": "none", "isError": "flag"}}

test_on_error_says_what_reached_the_model if {
	ok := {"V01": _f("blocks", "none"), "V02": _f("empty", "none")}
	category(object.union(ok, {"V04": _err_f("prefixed")})).onError == "content"
	category(object.union(ok, {"V04": _err_f("error-object")})).onError == "content"
	category(object.union(ok, {"V04": _err_f("rendered")})).onError == "rendered"
	category(object.union(ok, {"V04": _err_f("rewritten")})).onError == "rewritten"
	category(object.union(ok, {"V04": _err_f("none")})).onError == "nothing"

	# An error's shape never moves the category.
	category(object.union(ok, {"V04": _err_f("rewritten")})).category == "content-only"
}

test_rendered_is_bounded if {
	# A structured value of more leaves than max_rendered is not searched for.
	big := {"n": numbers.range(1, visibility.max_rendered + 1)}
	text := json.marshal(big)
	channels({"content": [_text], "structured": big}, _same(_texts([concat(" ", ["values:", text])])), {}).structured == "none"

	# At the bound it is.
	small := {"n": numbers.range(1, visibility.max_rendered)}
	channels({"content": [_text], "structured": small}, _same(_texts([concat(" ", ["values:", json.marshal(small)])])), {}).structured == "rendered"
}
