# METADATA
# title: Visibility policy
# description: |
#   What of a source's channels reaches a model-facing stage (docs/visibility.md).
#   Two rules, each evaluated by the Go driver on its own input:
#
#   channels, for one record (a fixture at one stage of one lane version
#   configuration). Input: {"fixture": {"id", "family"}, "stage",
#   "source": the W0 view through the canonical binding, "observed":
#   {"content", "structured", "error"}: the carrier through the stage's
#   compartments of those names, "binding": {"structured"?: the structured
#   compartment's slot binding {path, decode, inner?}}}. Output:
#   {"content": c, "structured": s, "isError"?: e}. The exact readings
#   recover whole values (compared with ==; text items, or whole lines of
#   them, parsed as strict JSON), never by searching inside a string; the
#   lossy readings ("rendered", "rewritten") are named apart and say only
#   that the values are in a text, not that they can be read back:
#     content    "blocks" every source block is an observed block of the
#                same kind and primary value; "joined" the source's blocks
#                are all text and a content text item is their texts joined
#                by newlines (alone, or followed by a newline and more);
#                "line" those joined texts stand as whole lines of a
#                content text item or of a raised error's message anywhere
#                else (between tag lines, after a marker on a line of its
#                own, as the whole message); "prefixed" they stand as whole
#                lines after one of the markers on the same line (markers);
#                "array-dump" a text item is the JSON of an array holding
#                every source text block ({"type": "text", "text": …});
#                "dump" every source text is recovered, some only inside a
#                JSON text holding the block (its "text" member) or the
#                result (its "content" list); "error-object" a text item is
#                the JSON of an object whose "error" member is the joined
#                texts; "partial" some source blocks are recovered; lossy:
#                "rendered" every source text is found inside a text item (a
#                sentence around it, a printed object); "rewritten" (a source
#                with isError true only) none is, and the content holds a
#                text of the framework's own; "none" nothing of it; "empty"
#                the source has no content.
#     structured "slot" the structured compartment's slot holds exactly the
#                source's structuredContent; "dump" the slot holds it but is
#                read inside a JSON text (a binding with inner), or a text
#                item is the JSON of an object whose "structuredContent" is
#                it; "json-text" a text item is exactly its JSON;
#                "json-line" one line of a text item (split at newlines) is
#                exactly its JSON; "altered" a slot holds another value;
#                lossy: "rendered" one text item holds every leaf of it (a
#                string as it is, any other scalar as its JSON: a JavaScript
#                object literal, a YAML-like print); "none" nothing holds
#                it; "absent" the source has none.
#     isError    only when the source's isError is true: "flag" the error
#                compartment aborts (isError true or a raised error), "dump"
#                a text item is the JSON of an object whose "isError" is
#                true, "lost" neither.
#
#   category, for one binding group (lane, version, configuration, stage).
#   Input: {"fixtures": {id: {"channels": channels}}}, the fixtures whose
#   records were captured and read the same in every repetition. Output:
#   {"category": k, "shapes": {id: shape}, "onError"?: shape,
#   "rendered"?: k}. A shape is what of the two reaches the model exactly:
#   "content", "structured", "both", else "rendered" (a channel reads
#   rendered), "rewritten" (the content reads rewritten) or "nothing". The
#   category rests on the results that are not errors (the fixtures whose
#   channels have no isError), rendered and rewritten counting as nothing:
#   k is the one category every such shape is consistent with:
#     content-only      the content, never the structured value;
#     structured-first  the structured value replaces the content;
#     both              the content and the structured value;
#     fallback          the content, and the structured value only when
#                       the content is empty;
#     neither           neither (no result reaches the model).
#   When none is consistent: "mixed", with "nearest" (the category most
#   shapes agree with, ties in the order above) and "disagree" (the fixtures
#   that do not fit it). When several are: "undetermined", with
#   "candidates" (the fixtures in scope cannot tell them apart). onError is
#   the shape the error results (isError true) share, "mixed" when they
#   differ; absent when the group has none. rendered is the category when a
#   rendered channel counts as reaching the model, present only when it is
#   another than k (e.g. neither exactly, both rendered).
# scope: package
package contractcheck.visibility

import data.contractcheck.lib.views

# ---------------------------------------------------------------------------
# channels
# ---------------------------------------------------------------------------

# METADATA
# title: channels
# description: Which channels of the source reach this record's carrier, and how.
channels := object.union({"content": content, "structured": structured}, _marker)

_marker := {"isError": error_marker} if _src_error

_marker := {} if not _src_error

_src_blocks := views.content(input.source)

_obs := object.get(input, "observed", {})

_obs_content := views.content(object.get(_obs, "content", {}))

_obs_structured := object.get(_obs, "structured", {})

_obs_error := object.get(_obs, "error", {})

# The text items of the content compartment, and the error compartment's
# raised error's message (what a provider API's error member, e.g.
# Gemini's functionResponse.response.error, sends the model); then those and
# the structured compartment's text items.
_content_texts := array.concat(views.text_items(object.get(_obs, "content", {})), _raised)

_raised := [_obs_error.raised.message | is_string(_obs_error.raised.message)]

_texts := array.concat(_content_texts, views.text_items(_obs_structured))

# The JSON values of the whole text items of both compartments that hold
# strict JSON (a text item that does not is no value).
_parsed := [v |
	some t in _texts
	v := contractcheck.json_text(t)
]

# The source's texts, when every source block is a text, and them joined by
# newlines: what a framework that sends its text items as one string sends.
_src_texts := [b.text | some b in _src_blocks; b.kind == "text"]

_all_text if {
	count(_src_blocks) > 0
	count(_src_texts) == count(_src_blocks)
}

_whole := concat("\n", _src_texts) if _all_text

# METADATA
# title: markers
# description: |
#   The error markers a framework writes on the same line before a tool's
#   text (strands: "[ERROR] "): "prefixed" reads the text after one of them.
markers := ["[ERROR] ", "[Error] ", "ERROR: ", "Error: "]

# _as_block(i) holds when source block i is an observed block.
_as_block(i) if {
	s := _src_blocks[i]
	some o in _obs_content
	o.kind == s.kind
	views.same(views.primary(o), views.primary(s))
}

# _in_dump(i) holds when source text block i is inside a parsed JSON text:
# the text block itself ({"type": "text", "text": …}), a result holding it
# in its "content" list, or a bare array of blocks holding it.
_in_dump(i) if {
	s := _src_blocks[i]
	s.kind == "text"
	some v in _parsed
	_dumped_text(v, s.text)
}

_dumped_text(v, text) if _text_block(v, text)

_dumped_text(v, text) if {
	some b in v.content
	_text_block(b, text)
}

_dumped_text(v, text) if {
	is_array(v)
	some b in v
	_text_block(b, text)
}

_text_block(b, text) if {
	b.type == "text"
	views.same(b.text, text)
}

_blocks contains i if {
	some i, _ in _src_blocks
	_as_block(i)
}

_recovered contains i if some i in _blocks

_recovered contains i if {
	some i, _ in _src_blocks
	_in_dump(i)
}

# METADATA
# title: content
# description: How the source's content blocks reach the carrier.
# scope: document
default content := "none"

content := "empty" if {
	count(_src_blocks) == 0
} else := "blocks" if {
	count(_blocks) == count(_src_blocks)
} else := "joined" if {
	_joined
} else := "line" if {
	_line
} else := "prefixed" if {
	_prefixed
} else := "array-dump" if {
	_array_dump
} else := "dump" if {
	count(_recovered) == count(_src_blocks)
} else := "error-object" if {
	_error_object
} else := "partial" if {
	count(_recovered) > 0
} else := "rendered" if {
	_rendered_content
} else := "rewritten" if {
	_src_error
	some t in _content_texts
	trim_space(t) != ""
}

# _joined holds when the source's blocks are all text and a text item of the
# content compartment is their texts joined by newlines, alone or followed
# by a newline and more (a framework that sends its text items as one
# string, agent-framework's OpenAI client).
_joined if {
	some t in views.text_items(object.get(_obs, "content", {}))
	_joined_text(t, _whole)
}

_joined_text(t, joined) if t == joined

_joined_text(t, joined) if startswith(t, concat("", [joined, "\n"]))

# _stands(t, x) holds when x is one whole line, or whole lines, of t: t is
# x, or x is bounded in t by the start or a newline before it and by the
# end or a newline after it. An anchored test, not a search for a part of a
# line; an empty x stands nowhere.
_stands(t, x) if {
	x != ""
	_bounded(t, x)
}

_bounded(t, x) if t == x

_bounded(t, x) if startswith(t, concat("", [x, "\n"]))

_bounded(t, x) if endswith(t, concat("", ["\n", x]))

_bounded(t, x) if contains(t, concat("", ["\n", x, "\n"]))

# _line holds when the joined source texts stand as whole lines of a content
# text item (gemini-cli: between the tag lines <untrusted_context> and
# </untrusted_context>).
_line if {
	some t in _content_texts
	_stands(t, _whole)
}

# _prefixed holds when they stand as whole lines after a marker on the same
# line (strands on an error: "[ERROR] " and the text).
_prefixed if {
	some t in _content_texts
	some m in markers
	_stands(t, concat("", [m, _whole]))
}

# _array_dump holds when a text item is the JSON of a bare array of blocks
# holding every source text block (a framework that sends the content list
# as its JSON).
_array_dump if {
	_all_text
	some v in _parsed
	is_array(v)
	every s in _src_texts {
		some b in v
		_text_block(b, s)
	}
}

# _error_object holds when a text item is the JSON of an object whose
# "error" member is the joined source texts ({"error": "<text>"}).
_error_object if {
	some v in _parsed
	views.same(v.error, _whole)
}

# METADATA
# title: max_rendered
# description: |
#   The most texts, or leaves, of a source the lossy readings search for:
#   each is searched in every text item, so a bigger source is not read
#   rendered (it reads none there), and a readout stays bounded on every
#   record.
max_rendered := 256

# _rendered_content holds when every source text is found inside a text
# item: lossy, a search inside strings, and so never an exact reading.
_rendered_content if {
	_all_text
	count(_src_texts) <= max_rendered
	every s in _src_texts {
		some t in _texts
		contains(t, s)
	}
}

_src_structured_present if views.has(input.source, "structured")

_slot_same if {
	views.has(_obs_structured, "structured")
	views.same(_obs_structured.structured, input.source.structured)
}

_slot_in_text if views.has(input.binding.structured, "inner")

_json_text if {
	some v in _parsed
	views.same(v, input.source.structured)
}

_json_line if {
	some t in _texts
	contains(t, "\n")
	some line in split(t, "\n")
	views.same(contractcheck.json_text(line), input.source.structured)
}

_in_result_dump if {
	some v in _parsed
	views.has(v, "structuredContent")
	views.same(v.structuredContent, input.source.structured)
}

# The structured value's leaves as a print shows them: a string as it is,
# any other scalar as its JSON (an empty string shows nothing, and is left
# out).
_leaves contains l if {
	walk(input.source.structured, [_, v])
	_scalar(v)
	l := _leaf(v)
	l != ""
}

_scalar(v) if {
	not is_object(v)
	not is_array(v)
}

_leaf(v) := v if is_string(v)

_leaf(v) := json.marshal(v) if not is_string(v)

# _rendered_structured holds when one text item holds every leaf of the
# structured value: lossy, as _rendered_content.
_rendered_structured if {
	count(_leaves) > 0
	count(_leaves) <= max_rendered
	some t in _texts
	every l in _leaves {
		contains(t, l)
	}
}

# METADATA
# title: structured
# description: How the source's structuredContent reaches the carrier.
# scope: document
default structured := "none"

structured := "absent" if {
	not _src_structured_present
} else := "dump" if {
	_slot_same
	_slot_in_text
} else := "slot" if {
	_slot_same
} else := "json-text" if {
	_json_text
} else := "json-line" if {
	_json_line
} else := "dump" if {
	_in_result_dump
} else := "altered" if {
	views.has(_obs_structured, "structured")
	_obs_structured.structured != null
} else := "rendered" if {
	_rendered_structured
}

_src_error if input.source.isError == true

_dumped_error if {
	some v in _parsed
	v.isError == true
}

# METADATA
# title: error_marker
# description: How the source's isError true reaches the carrier (undefined when the source is no error).
error_marker := "flag" if {
	_src_error
	views.decision(_obs_error) == "abort"
} else := "dump" if {
	_src_error
	_dumped_error
} else := "lost" if {
	_src_error
}
