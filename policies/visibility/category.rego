# The category rule of the visibility policy (its channels rule and the
# package's documentation are in visibility.rego).
package contractcheck.visibility

import data.contractcheck.lib.views

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

# METADATA
# title: exact
# description: The content and structured readings that recover the value exactly.
exact := {
	"content": {"blocks", "joined", "line", "prefixed", "array-dump", "dump", "error-object", "partial"},
	"structured": {"slot", "dump", "json-text", "json-line"},
}

_content_seen(ch) if ch.content in exact.content

_structured_seen(ch) if ch.structured in exact.structured

_rendered_seen(ch) if ch.content == "rendered"

_rendered_seen(ch) if ch.structured == "rendered"

# shape(ch) is what of the two channels reaches the model exactly, else
# whether any of it reaches it rendered, or a text of the framework's own
# in its place.
shape(ch) := "both" if {
	_content_seen(ch)
	_structured_seen(ch)
} else := "content" if {
	_content_seen(ch)
} else := "structured" if {
	_structured_seen(ch)
} else := "rendered" if {
	_rendered_seen(ch)
} else := "rewritten" if {
	ch.content == "rewritten"
} else := "nothing"

# lossy_shape(ch) is what of the two reaches the model when a rendered
# channel counts as reaching it.
lossy_shape(ch) := "both" if {
	_content_reaches(ch)
	_structured_reaches(ch)
} else := "content" if {
	_content_reaches(ch)
} else := "structured" if {
	_structured_reaches(ch)
} else := "nothing"

_content_reaches(ch) if _content_seen(ch)

_content_reaches(ch) if ch.content == "rendered"

_structured_reaches(ch) if _structured_seen(ch)

_structured_reaches(ch) if ch.structured == "rendered"

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

# What each result shows to the category: its exact shape (rendered and
# rewritten are nothing there), and its shape with rendered channels.
_exact_shapes[id] := _flat(shapes[id]) if some id, _ in _results

_flat(s) := s if s in {"content", "structured", "both"}

_flat(s) := "nothing" if not s in {"content", "structured", "both"}

_lossy_shapes[id] := lossy_shape(f.channels) if some id, f in _results

_fits(sh, cat, id) if sh[id] == expects[cat][_kind(_results[id])]

_agree(sh, cat) := count({id | some id, _ in _results; _fits(sh, cat, id)})

_consistent(sh) := [cat |
	some cat in order
	_agree(sh, cat) == count(_results)
]

consistent := _consistent(_exact_shapes)

_nearest(sh) := [cat | some cat in order; _agree(sh, cat) == max({_agree(sh, c) | some c in order})][0]

nearest := _nearest(_exact_shapes)

# _verdict(sh) is the category the shapes sh give, with what explains it.
_verdict(sh) := {"category": c[0]} if {
	c := _consistent(sh)
	count(c) == 1
} else := {"category": "undetermined", "candidates": c} if {
	c := _consistent(sh)
	count(c) > 1
} else := {
	"category": "mixed",
	"nearest": _nearest(sh),
	"disagree": sort([id | some id, _ in _results; not _fits(sh, _nearest(sh), id)]),
}

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

_exact_verdict := _verdict(_exact_shapes)

# METADATA
# title: rendered
# description: The category when a rendered channel counts as reaching the model, when it is another than the exact one.
rendered := r if {
	r := _verdict(_lossy_shapes).category
	r != _exact_verdict.category
}

_rendered := {"rendered": rendered} if rendered

_rendered := {} if not rendered

# METADATA
# title: category
# description: The group's category, with its shapes (and nearest, disagree, candidates, onError, rendered).
category := object.union_n([_exact_verdict, {"shapes": shapes}, _on_error, _rendered])
