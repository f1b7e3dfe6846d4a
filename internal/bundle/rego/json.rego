# METADATA
# title: Strict JSON text and exact numbers
# description: |
#   The pure-Rego equivalent of the checker's custom builtin contractcheck.json_text
#   (internal/policy/policy.go) and of the projector's "json" decoder (internal/strictjson): a string
#   is read as JSON only when the whole of it is one JSON value, surrounding whitespace allowed, in
#   valid UTF-8, with no duplicate object key, no unpaired surrogate escape, nesting at most 256
#   deep, no number over 4300 digits or with an exponent beyond ±10000. Numbers keep their
#   spelling, respelled where OPA would otherwise compare them through float64
#   (internal/policy/numbers.go), so == stays exact. internal/bundle TestJSONTextAgrees holds it to
#   contractcheck.json_text on every string of the catalogue and at each of these limits.
package contractcheck.bundle.json

# text is the JSON value the whole string s holds when s is strict JSON; undefined otherwise. Every
# number OPA would compare through float64 (more than 15 significant digits and trailing zeros
# after a decimal point) is patched to a spelling that compares exactly, the same decimal (see
# number). The value is respelled here, in the function whose argument is the text: OPA's memo of
# function calls compares arguments as OPA compares numbers, so a function given the decoded value
# could answer for another value that differs only in such a number. A value not read from a text
# is respelled with patches too (decision.rego), never passed to a function before. A string of a
# catalogued source view is read from the table the bundle writer computed with this function
# (data.contractcheck.bundle.hot.texts: internal/bundle, jsonTexts), where it reads the same.
text(s) := v if {
	v := data.contractcheck.bundle.hot.texts[s]
} else := json.patch(v, patches) if {
	is_string(s)
	json.is_valid(s)
	_utf8(s)
	v := json.unmarshal(s)
	strict(s, v)
	patches := _respellings(s, v)
}

# _respellings are the patches that respell v's numbers (see number), v read from the JSON text
# s. number changes only a spelling with a '.' that ends in '0': a text with no such digits holds
# no number to respell, and v is not walked.
_respellings(s, v) := [] if {
	not regex.match(respellable, s)
} else := [op |
	walk(v, [p, n])
	is_number(n)
	spelled := json.marshal(n)
	r := number(spelled)
	r != spelled
	op := {"op": "replace", "path": p, "value": json.unmarshal(r)}
]

# respellable matches where JSON text may hold a number number respells: digits, a '.', more
# digits and perhaps an exponent, ending in '0'. A text it does not match holds none (a match
# may be inside a string: the number's spelling is then checked one by one).
respellable := `[0-9]\.[0-9]*(?:[eE][+-]?[0-9]*)?0(?:[^0-9]|$)`

# _utf8 holds when s is valid UTF-8, as the strict reader requires inside strings too (a string
# made by base64.decode may not be; json.is_valid and json.unmarshal read an invalid byte as
# U+FFFD). json.marshal writes each invalid byte as U+FFFD: only a valid string reads back as
# itself.
_utf8(s) if json.unmarshal(json.marshal(s)) == s

# strict holds when the JSON text s, decoded as v, is what the strict reader accepts beyond the
# grammar json.is_valid checks.
strict(s, v) if {
	_unique_keys(s, v)
	not _unpaired_surrogate(s)
	_shallow(s, v)
	_numbers_ok(s, v)
}

# _shallow holds when v nests at most 256 deep. Each level opens a '[' or '{' in the text: a text
# with at most 256 of them (counted inside strings too) nests no deeper, and v is not walked.
_shallow(s, _) if _openings(s) <= 256

_shallow(s, v) if {
	_openings(s) > 256
	_depth(v) <= 256
}

_openings(s) := strings.count(s, "[") + strings.count(s, "{")

# _numbers_ok holds when every number of v is within the strict reader's limits (_number_ok). One
# beyond them has over 2150 digits before or after its '.' (so a run of 1000, the longest repeat
# a regular expression counts), or an exponent of five significant digits: a text with neither
# (counted inside strings too) is within them, and v is not walked.
_numbers_ok(s, _) if not _long_number(s)

_numbers_ok(s, v) if {
	_long_number(s)
	every n in [n | walk(v, [_, n]); is_number(n)] {
		_number_ok(json.marshal(n))
	}
}

# _long_number holds when s has a run of 1000 digits or an exponent of five significant digits. A
# text shorter than 1000 characters has no such run, and is not matched against the expression
# that counts one (1000 states, the costliest part of reading a short text).
_long_number(s) if regex.match(`[eE][+-]?0*[1-9][0-9]{4}`, s)

_long_number(s) if {
	count(s) >= 1000
	regex.match(`[0-9]{1000}`, s)
}

# A duplicate key is kept once by the decoder, so the text has more members than the value. In
# valid JSON every ':' outside a string ends an object key: the members written are the text's
# colons less those inside strings, which are the decoded strings' colons less the ones written as
# a \u003a escape.
#
# Each member decoded was written at least once, and each member written has a ':' of the text:
# when the text has no more colons than v has members, none is written twice, and v's strings are
# not walked (a text whose strings hold no colon).
_unique_keys(s, v) if {
	strings.count(s, ":") == sum([count(o) | walk(v, [_, o]); is_object(o)])
} else if {
	decoded := sum([count(o) | walk(v, [_, o]); is_object(o)])
	in_strings := sum([strings.count(x, ":") | walk(v, [_, x]); is_string(x)]) + sum([strings.count(k, ":") |
		walk(v, [_, o])
		is_object(o)
		some k, _ in o
	])
	(strings.count(s, ":") - in_strings) + _escaped_colons(s) == decoded
}

_escaped_colons(s) := 0 if {
	not regex.match(`\\u003[aA]`, s)
} else := count(regex.find_n(`\\u003[aA]`, regex.replace(s, `\\\\`, ""), -1))

# An escaped backslash pairs off first; a high surrogate escape must then be followed by a low
# one, and a low one preceded by a high one.
_unpaired_surrogate(s) if {
	regex.match(`\\u[dD][89a-fA-F]`, s)
	t := regex.replace(regex.replace(s, `\\\\`, ""), `\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}`, "")
	regex.match(`\\u[dD][89a-fA-F][0-9a-fA-F]{2}`, t)
}

# _depth is the deepest nesting of arrays and objects: a scalar 0, [] 1.
_depth(v) := max([d | walk(v, [p, x]); _container(x); d := count(p) + 1]) if _container(v)

_depth(v) := 0 if not _container(v)

_container(x) if is_object(x)

_container(x) if is_array(x)

# _number_ok holds for a number of at most 4300 digits (integer and fraction) with an exponent
# within ±10000.
_number_ok(n) if {
	parts := split(lower(n), "e")
	mantissa := trim_left(parts[0], "-")
	count(replace(mantissa, ".", "")) <= 4300
	_exponent_ok(parts)
}

_exponent_ok(parts) if count(parts) == 1

_exponent_ok(parts) if {
	count(parts) == 2
	digits := trim_left(trim_left(parts[1], "+-"), "0")
	count(digits) <= 5
	_bounded(digits)
}

_bounded("") := true

_bounded(d) if {
	d != ""
	to_number(d) <= 10000
}

# number is the spelling of the JSON number s that OPA compares exactly (the port of respell in
# internal/policy/numbers.go): s itself unless it has a '.', trailing '.'/'0' characters and more
# than 15 significant digits or an exponent; then without the trailing zeros, or as digits and an
# exponent without a '.'.
number(s) := s if {
	not contains(s, ".")
} else := s if {
	t := trim_right(s, ".0")
	_unchanged(s, t)
} else := s if {
	not contains(lower(s), "e")
	count(_significant(s)) <= 15
} else := concat("", [_sign(s), _int_part(s), ".", trim_right(_frac_part(s), "0")]) if {
	not contains(lower(s), "e")
} else := _exponent_form(s)

_unchanged(s, t) if t == s

_unchanged(_, t) if not contains(t, ".")

_mantissa(s) := trim_left(split(lower(s), "e")[0], "-")

_sign(s) := "-" if startswith(s, "-")

_sign(s) := "" if not startswith(s, "-")

_int_part(s) := split(_mantissa(s), ".")[0]

_frac_part(s) := f if {
	parts := split(_mantissa(s), ".")
	count(parts) == 2
	f := parts[1]
} else := ""

_significant(s) := trim_left(concat("", [_int_part(s), _frac_part(s)]), "0")

_exponent_form(s) := "0" if {
	trim_right(_significant(s), "0") == ""
} else := concat("", [_sign(s), digits, "e", format_int(e, 10)]) if {
	sig := _significant(s)
	digits := trim_right(sig, "0")
	exp := to_number(trim_left(split(lower(s), "e")[1], "+"))
	e := (exp - count(_frac_part(s))) + (count(sig) - count(digits))
}
