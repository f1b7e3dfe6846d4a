# METADATA
# title: Provider acceptance
# description: |
#   Whether a provider's published request schema (schemas/providers/) accepts one carried item,
#   and, when it does not, the error contractcheck check gives (internal/schema: Validator.Accepts),
#   word for word. Stock OPA's json.match_schema decides; it is given the schema with the checker's
#   RFC 3986 assertion (uri_pattern) beside every "format": "uri", because its own "uri" check only
#   asks Go's url.Parse for a scheme and accepts what the checker refuses (a non-ASCII character, a
#   "%" without two hex digits, a second "#", a host with two colons). The error is worded here
#   from the leaves of the validation: every failing keyword under the failing "anyOf" branches and
#   properties, deepest instance location first, as check words them. The bundle writer refuses a
#   schema with a keyword this file does not word (internal/bundle: checkProviderSchema).
package contractcheck.bundle.accept

import data.contractcheck.bundle.pointer

# uri_pattern is what the checker's "uri" format asserts beyond Go's url.Parse
# (internal/schema/formats.go, validateURI): a scheme; then only RFC 3986 characters or
# percent-encoded octets, "#" at most once, "[" and "]" only in the authority; and a host that
# has at most one ":" unless it is an IP literal in brackets. Go's url.Parse, which the checker
# also runs, is json.match_schema's own "uri" check: it refuses a "[" in a host that is not an IP
# literal, so the pattern need not.
uri_pattern := concat("", [
	`^[A-Za-z][A-Za-z0-9+.\-]*:`,
	`(?://`,
	`(?:(?:[A-Za-z0-9\-._~:!$&'()*+,;=@]|%[0-9A-Fa-f]{2})*@)?`,
	`(?:\[(?:[A-Za-z0-9\-._~:!$&'()*+,;=\[\]]|%[0-9A-Fa-f]{2})*`,
	`|(?:[A-Za-z0-9\-._~!$&'()*+,;=\]]|%[0-9A-Fa-f]{2})*(?::(?:[A-Za-z0-9\-._~!$&'()*+,;=\]]|%[0-9A-Fa-f]{2})*)?)`,
	`(?:[/?]`, _tail, `|#`, _chars, `)?`,
	`|(?:/(?:`, _first, _tail, `|#`, _chars, `)?|`, _first, _tail, `|#`, _chars, `)?`,
	`)$`,
])

# _first is one character of a path that does not start with "//"; _tail the rest of a URI after
# the authority, with at most one "#"; _chars the characters allowed anywhere after the scheme.
_first := `(?:[A-Za-z0-9\-._~:?@!$&'()*+,;=]|%[0-9A-Fa-f]{2})`

_tail := concat("", [_chars, `(?:#`, _chars, `)?`])

_chars := `(?:[A-Za-z0-9\-._~:/?@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*`

# strict is the schema with uri_pattern asserted beside every "format": "uri".
strict(schema) := json.patch(schema, [{"op": "add", "path": array.concat(p, ["pattern"]), "value": uri_pattern} |
	walk(schema, [p, x])
	is_object(x)
	x.format == "uri"
])

# rejection is the checker's error for an item the schema refuses; undefined when it accepts it.
rejection(schema, item) := message(ctx) if {
	ctx := {"root": strict(schema), "item": item}
	not _valid(ctx, [[], []])
}

# message words the validation's leaves as check does: the deepest first (then by pointer and
# message), each once, up to three, "; also" between them.
message(ctx) := _render(sort(ls)) if {
	ls := leaves(ctx)
	count(ls) > 0
} else := concat("; ", [e.error | some e in _stock_errors(ctx)])

# _stock_errors are json.match_schema's own errors on the item, for a failure no leaf words.
_stock_errors(ctx) := errs if {
	[_, errs] := json.match_schema({"v": ctx.item}, _wrap(ctx, []))
}

_render(ls) := concat("", array.concat([_head(ls[0])], array.concat(
	[concat("", ["; also ", _where(l[1]), ": ", l[2]]) | some i, l in ls; i >= 1; i < 3],
	[sprintf(" (and %d more)", [count(ls) - 3]) | count(ls) > 3],
)))

_head([_, "", m]) := m

_head([_, p, m]) := concat(": ", [p, m]) if p != ""

_where("") := "(document)"

_where(p) := p if p != ""

# leaves are the failing keywords, as [-depth, pointer, message]: those of every node of the
# validation (a subschema at an instance location) that fails and that check reports.
leaves(ctx) := {[0 - count(ip), pointer.from_path("", ip), m] |
	some [sp, ip] in reached(ctx)
	some m in _local(ctx, sp, ip)
}

# max_depth is how many subschemas deep the validation is followed (properties, $ref, anyOf
# branches); the bundle writer refuses a deeper schema.
max_depth := 16

# reached are the failing nodes check reports, from the root down: a failing property or $ref
# target of a reported node, and every branch of its anyOf when none holds. A node whose type,
# enum or format fails is reported alone, as check stops there.
reached(ctx) := l if {
	l0 := {[[], []]}
	l1 := _next(ctx, l0)
	l2 := _next(ctx, l1)
	l3 := _next(ctx, l2)
	l4 := _next(ctx, l3)
	l5 := _next(ctx, l4)
	l6 := _next(ctx, l5)
	l7 := _next(ctx, l6)
	l8 := _next(ctx, l7)
	l9 := _next(ctx, l8)
	l10 := _next(ctx, l9)
	l11 := _next(ctx, l10)
	l12 := _next(ctx, l11)
	l13 := _next(ctx, l12)
	l14 := _next(ctx, l13)
	l15 := _next(ctx, l14)
	l := ((((((((((((((l0 | l1) | l2) | l3) | l4) | l5) | l6) | l7) | l8) | l9) | l10) | l11) | l12) | l13) | l14) | l15
}

_next(ctx, nodes) := {c | some n in nodes; some c in _children(ctx, n)}

_children(ctx, [sp, ip]) := set() if {
	_ = _stop(ctx, sp, ip)
} else := {c | some c in _structural(ctx, sp, ip); not _valid(ctx, c)} | _branches(ctx, sp, ip)

_structural(ctx, sp, ip) := {[array.concat(sp, ["properties", p]), array.concat(ip, [p])] |
	v := _value(ctx, ip)
	is_object(v)
	some p, _ in object.get(_schema(ctx, sp), "properties", {})
	_has(v, p)
} | {[_ref(r), ip] | r := _schema(ctx, sp)["$ref"]}

_branches(ctx, sp, ip) := bs if {
	bs := {[array.concat(sp, ["anyOf", i]), ip] | some i, _ in object.get(_schema(ctx, sp), "anyOf", [])}
	every b in bs {
		not _valid(ctx, b)
	}
} else := set()

# _ref is the schema path a local reference ("#/$defs/Name") names.
_ref(r) := pointer.tokens(substring(r, 1, -1)) if startswith(r, "#")

_schema(ctx, sp) := object.get(ctx.root, sp, {})

_value(ctx, []) := ctx.item

_value(ctx, ip) := object.get(ctx.item, ip, null) if count(ip) > 0

# _valid holds when the node's subschema accepts its value. The value is wrapped in an object:
# json.match_schema reads a string document as JSON text.
_valid(ctx, [sp, ip]) if {
	[ok, _] := json.match_schema({"v": _value(ctx, ip)}, _wrap(ctx, sp))
	ok == true
}

_wrap(ctx, sp) := {"properties": {"v": _schema(ctx, sp)}, "$defs": object.get(ctx.root, "$defs", {})}

# _local are the messages of a failing node's own keywords.
_local(ctx, sp, ip) := {m} if {
	m := _stop(ctx, sp, ip)
} else := {m |
	some k in ["required", "minLength", "maxLength"]
	m := _check(k, _schema(ctx, sp), _value(ctx, ip))
}

# _stop is the failure of a keyword after which check reports nothing else of the node: type,
# enum, format.
_stop(ctx, sp, ip) := sprintf("got %s, want %s", [type_name(v), concat(" or ", ts)]) if {
	ts := _types(_schema(ctx, sp))
	v := _value(ctx, ip)
	not _typed(ts, v)
} else := _enum_message(s.enum) if {
	s := _schema(ctx, sp)
	is_array(s.enum)
	not _value(ctx, ip) in s.enum
} else := sprintf("not a valid %q: %s", ["uri", e]) if {
	object.get(_schema(ctx, sp), "format", null) == "uri"
	e := uri_error(_value(ctx, ip))
}

# _types lists a schema's types in the order check names them.
_types(s) := [t | some t in _type_order; t in ts] if ts := _type_list(s.type)

_type_order := ["null", "boolean", "number", "integer", "string", "array", "object"]

_type_list(t) := [t] if is_string(t)

_type_list(t) := t if is_array(t)

_typed(ts, v) if type_name(v) in ts

_typed(ts, v) if {
	"integer" in ts
	is_number(v)
	floor(v) == v
}

_enum_message(want) := sprintf("value must be %s", [display(want[0])]) if {
	count(want) == 1
	_primitives(want)
} else := sprintf("value must be one of %s", [concat(", ", [display(x) | some x in want])]) if {
	_primitives(want)
} else := "'enum' failed"

_primitives(xs) if every x in xs {
	not is_array(x)
	not is_object(x)
}

_check("required", s, v) := _missing(ps) if {
	is_object(v)
	ps := [p | some p in object.get(s, "required", []); not _has(v, p)]
	count(ps) > 0
}

_check("minLength", s, v) := sprintf("minLength: got %d, want %d", [count(v), s.minLength]) if {
	is_string(v)
	count(v) < s.minLength
}

_check("maxLength", s, v) := sprintf("maxLength: got %d, want %d", [count(v), s.maxLength]) if {
	is_string(v)
	count(v) > s.maxLength
}

_missing([p]) := sprintf("missing property %s", [quote(p)])

_missing(ps) := sprintf("missing properties %s", [concat(", ", [quote(p) | some p in ps])]) if count(ps) > 1

# display writes a primitive value as check's messages do: a string single-quoted, null as <nil>.
display(x) := quote(x) if is_string(x)

display(x) := json.marshal(x) if {
	not is_string(x)
	x != null
}

display(null) := "<nil>"

# quote single-quotes a string as check's messages do: Go's %q, with \" unescaped and ' escaped.
quote(s) := concat("", ["'", substring(q, 1, count(q) - 2), "'"]) if {
	q := replace(replace(sprintf("%q", [s]), `\"`, `"`), "'", `\'`)
}

# uri_error is why s is not a "uri" as the checker asserts it; undefined when it is one. The
# checker's own rules are worded as it words them; a URI only Go's url.Parse refuses (a bad port,
# a malformed IP literal) is worded without url.Parse's reason, which json.match_schema does not
# give.
uri_error(s) := e if {
	is_string(s)
	e := _uri_rule(s)
} else := sprintf("parse %q: url.Parse refuses it", [split(s, "#")[0]]) if {
	is_string(s)
	not _parses(s)
} else := "an IPv6 address must be enclosed in brackets" if {
	is_string(s)
	not regex.match(uri_pattern, s)
}

_parses(s) if {
	[ok, _] := json.match_schema({"v": s}, {"properties": {"v": {"format": "uri"}}})
	ok == true
}

# _uri_rule is the first of the checker's own rules s breaks, worded as the checker words it, with
# byte offsets.
_uri_rule(s) := "no scheme (not an absolute URI)" if {
	not contains(s, ":")
} else := "the scheme must start with a letter" if {
	not regex.match(`^[A-Za-z]`, s)
} else := sprintf(
	"character %s at offset %d is not allowed in a scheme",
	[quote_rune(_byte(c)), _bytes(substring(s, 0, k))],
) if {
	scheme := substring(s, 0, indexof(s, ":"))
	[c] := regex.find_n(`[^A-Za-z0-9+.\-]`, scheme, 1)
	k := indexof(scheme, c)
} else := m if {
	colon := indexof(s, ":")
	rest := substring(s, colon + 1, -1)
	errs := {[(colon + 1) + k, m] | some [k, m] in _rest_errors(s, colon + 1, rest)}
	count(errs) > 0
	[_, m] := min(errs)
}

# _rest_errors are, after the scheme, the first character of each kind the checker refuses, as
# [rune offset in rest, message]: a character RFC 3986 does not allow, a "%" not followed by two
# hex digits, a bracket outside the authority, a second "#".
_rest_errors(s, at, rest) := union({
	_bad_character(s, at, rest),
	_bad_percent(s, at, rest),
	_bad_bracket(s, at, rest),
	_second_hash(s, at, rest),
})

_bad_character(s, at, rest) := {[k, m] |
	[c] := regex.find_n(`[^A-Za-z0-9\-._~:/?@!$&'()*+,;=#%\[\]]`, rest, 1)
	k := indexof(rest, c)
	m := sprintf(
		"character %s at offset %d is not allowed in a URI (RFC 3986 §2; percent-encode it)",
		[quote_rune(c), _bytes(substring(s, 0, at + k))],
	)
}

# A "%" followed by two hex digits is replaced by as many characters: the "%" left are the bad ones.
_bad_percent(s, at, rest) := {[k, m] |
	k := indexof(regex.replace(rest, `%[0-9A-Fa-f]{2}`, "~~~"), "%")
	k >= 0
	m := sprintf(`"%%" at offset %d is not followed by two hex digits`, [_bytes(substring(s, 0, at + k))])
}

_bad_bracket(s, at, rest) := {[e + k, m] |
	e := _authority_end(rest)
	tail := substring(rest, e, -1)
	[c] := regex.find_n(`[\[\]]`, tail, 1)
	k := indexof(tail, c)
	m := sprintf("%s at offset %d outside the authority", [quote_rune(c), _bytes(substring(s, 0, (at + e) + k))])
}

_second_hash(s, at, rest) := {[k, m] |
	ks := indexof_n(rest, "#")
	count(ks) > 1
	k := ks[1]
	m := sprintf(`a second "#" at offset %d`, [_bytes(substring(s, 0, at + k))])
}

# _authority_end is where the authority ends in what follows the scheme: at the first "/", "?" or
# "#" after "//", 0 when there is no authority.
_authority_end(rest) := 0 if not startswith(rest, "//")

_authority_end(rest) := 2 + count(a) if {
	startswith(rest, "//")
	a := regex.find_n(`^[^/?#]*`, substring(rest, 2, -1), 1)[0]
}

# _bytes is the length of s in bytes (its UTF-8 encoding).
_bytes(s) := count(hex.encode(s)) / 2

# _byte is the first byte of c's UTF-8 encoding read as a character, as the checker reads a
# scheme byte by byte.
_byte(c) := json.unmarshal(sprintf(`"\u00%s"`, [substring(hex.encode(c), 0, 2)]))

# quote_rune single-quotes one character as Go's %q quotes a rune.
quote_rune(`"`) := `'"'`

quote_rune("'") := `'\''`

quote_rune(c) := concat("", ["'", substring(q, 1, count(q) - 2), "'"]) if {
	not c in {`"`, "'"}
	q := sprintf("%q", [c])
}

_has(obj, key) if {
	is_object(obj)
	_ = obj[key]
}
