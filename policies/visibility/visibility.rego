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
#   {"content": c, "structured": s, "isError"?: e}, each judged by exact value
#   recovery (whole values compared with ==, text items parsed whole as strict
#   JSON), never by searching inside a string:
#     content    "blocks" every source block is an observed block of the
#                same kind and primary value; "joined" the source's blocks
#                are all text and an observed text item is their texts
#                joined by newlines (alone, or followed by a newline and
#                more); "dump" every source text is recovered, some only
#                inside a JSON text holding the block (its "text" member) or
#                the result (its "content" list); "partial" some are;
#                "none" none is; "empty" the source has no content.
#     structured "slot" the structured compartment's slot holds exactly the
#                source's structuredContent; "dump" the slot holds it but is
#                read inside a JSON text (a binding with inner), or a text
#                item is the JSON of an object whose "structuredContent" is
#                it; "json-text" a text item is exactly its JSON;
#                "json-line" one line of a text item (split at newlines) is
#                exactly its JSON; "altered"
#                a slot holds another value; "none" nothing holds it;
#                "absent" the source has none.
#     isError    only when the source's isError is true: "flag" the error
#                compartment aborts (isError true or a raised error), "dump"
#                a text item is the JSON of an object whose "isError" is
#                true, "lost" neither.
#
#   category, for one binding group (lane, version, configuration, stage).
#   Input: {"fixtures": {id: {"channels": channels}}}, the fixtures whose
#   records were captured and read the same in every repetition. Output:
#   {"category": k, "shapes": {id: shape}, "onError"?: shape}, with shape
#   "content", "structured", "both" or "nothing" (what of the two reaches
#   the model). The category rests on the results that are not errors (the
#   fixtures whose channels have no isError): k is the one category every
#   such shape is consistent with:
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
#   differ; absent when the group has none.
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

# The JSON values of the whole text items of both compartments that hold
# strict JSON (a text item that does not is no value).
_parsed := [v |
	some t in array.concat(views.text_items(object.get(_obs, "content", {})), views.text_items(_obs_structured))
	v := contractcheck.json_text(t)
]

# _as_block(i) holds when source block i is an observed block.
_as_block(i) if {
	s := _src_blocks[i]
	some o in _obs_content
	o.kind == s.kind
	views.same(views.primary(o), views.primary(s))
}

# _in_dump(i) holds when source text block i is inside a parsed JSON text:
# the text block itself ({"type": "text", "text": …}) or a result holding it
# in its "content" list.
_in_dump(i) if {
	s := _src_blocks[i]
	s.kind == "text"
	some v in _parsed
	_dumped_text(v, s.text)
}

_dumped_text(v, text) if {
	v.type == "text"
	views.same(v.text, text)
}

_dumped_text(v, text) if {
	some b in v.content
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
} else := "dump" if {
	count(_recovered) == count(_src_blocks)
} else := "partial" if {
	count(_recovered) > 0
}

# _joined holds when the source's blocks are all text and an observed text
# item is their texts joined by newlines, alone or followed by a newline and
# more (a framework that sends its text items as one string).
_joined if {
	texts := [b.text | some b in _src_blocks; b.kind == "text"]
	count(texts) == count(_src_blocks)
	joined := concat("\n", texts)
	some t in views.text_items(object.get(_obs, "content", {}))
	_joined_text(t, joined)
}

_joined_text(t, joined) if t == joined

_joined_text(t, joined) if startswith(t, concat("", [joined, "\n"]))

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
	some t in array.concat(views.text_items(object.get(_obs, "content", {})), views.text_items(_obs_structured))
	contains(t, "\n")
	some line in split(t, "\n")
	views.same(contractcheck.json_text(line), input.source.structured)
}

_in_result_dump if {
	some v in _parsed
	views.has(v, "structuredContent")
	views.same(v.structuredContent, input.source.structured)
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

# ---------------------------------------------------------------------------
# category
# ---------------------------------------------------------------------------

# The categories, in the order ties are broken in, and the shape each
# expects of a fixture with content and of one whose content is empty.
order := ["content-only", "structured-first", "both", "fallback", "neither"]

expects := {
	"content-only": {"content": "content", "empty": "nothing"},
	"structured-first": {"content": "structured", "empty": "structured"},
	"both": {"content": "both", "empty": "structured"},
	"fallback": {"content": "content", "empty": "structured"},
	"neither": {"content": "nothing", "empty": "nothing"},
}

_content_seen(ch) if ch.content in {"blocks", "joined", "dump", "partial"}

_structured_seen(ch) if ch.structured in {"slot", "dump", "json-text", "json-line"}

# shape(ch) is what of the two channels reaches the model.
shape(ch) := "both" if {
	_content_seen(ch)
	_structured_seen(ch)
} else := "content" if {
	_content_seen(ch)
} else := "structured" if {
	_structured_seen(ch)
} else := "nothing"

# METADATA
# title: shapes
# description: The shape of each fixture of the group.
shapes[id] := shape(f.channels) if some id, f in input.fixtures

_is_error(f) if views.has(f.channels, "isError")

# The fixtures the category rests on: those that are not errors.
_results[id] := f if {
	some id, f in input.fixtures
	not _is_error(f)
}

_kind(f) := "empty" if f.channels.content == "empty"

_kind(f) := "content" if f.channels.content != "empty"

_fits(cat, id) if shapes[id] == expects[cat][_kind(_results[id])]

_agree(cat) := count({id | some id, _ in _results; _fits(cat, id)})

consistent := [cat |
	some cat in order
	_agree(cat) == count(_results)
]

_best := max({_agree(cat) | some cat in order})

nearest := [cat | some cat in order; _agree(cat) == _best][0]

_error_shapes contains s if {
	some id, f in input.fixtures
	_is_error(f)
	s := shapes[id]
}

# METADATA
# title: on_error
# description: The shape the group's error results share ("mixed" when they differ).
on_error := s if {
	count(_error_shapes) == 1
	some s in _error_shapes
} else := "mixed" if {
	count(_error_shapes) > 1
}

_on_error := {"onError": on_error} if count(_error_shapes) > 0

_on_error := {} if count(_error_shapes) == 0

# METADATA
# title: category
# description: The group's category, with its shapes (and nearest, disagree, candidates, onError).
category := object.union(_category, _on_error)

_category := {"category": consistent[0], "shapes": shapes} if {
	count(consistent) == 1
} else := {"category": "undetermined", "candidates": consistent, "shapes": shapes} if {
	count(consistent) > 1
} else := {
	"category": "mixed",
	"nearest": nearest,
	"disagree": sort([id | some id, _ in _results; not _fits(nearest, id)]),
	"shapes": shapes,
}
