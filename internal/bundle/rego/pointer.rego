# METADATA
# title: JSON pointers
# description: |
#   RFC 6901 JSON pointers as the projector reads them (internal/project/pointer.go): a pointer
#   names one value by its reference tokens; an object member by its key, an array element by its
#   decimal index. A step that is not there makes the lookup undefined, which is how absent stays
#   apart from a present null. Pointers of up to 16 tokens are read (the bundle writer refuses a
#   binding with a deeper one).
package contractcheck.bundle.pointer

# tokens is the pointer's reference tokens, unescaped; "" (the whole value) has none.
tokens("") := []

tokens(ptr) := [unescape(t) | some t in split(substring(ptr, 1, -1), "/")] if startswith(ptr, "/")

# unescape reads one reference token: ~1 is "/" and ~0 is "~".
unescape(t) := replace(replace(t, "~1", "/"), "~0", "~")

# escape writes an object key as a reference token.
escape(k) := replace(replace(k, "~", "~0"), "/", "~1")

# from_path writes a typed path (strings for object keys, numbers for array indices) under base.
from_path(base, path) := concat("", array.concat([base], [concat("", ["/", _token(t)]) | some t in path]))

_token(t) := format_int(t, 10) if is_number(t)

_token(t) := escape(t) if is_string(t)

# lookup is the value at ptr in doc; undefined when any step is absent. A pointer of the
# model's bindings is read through the bundle's pointer table (data.contractcheck.bundle.hot.pointers,
# written by the bundle writer: internal/bundle, pointerTable): its typed paths under "v", at most
# one of which is in the document, each read with one object.get; any other pointer step by step.
# One rule with an else, the table read in place: each function call and rule body costs OPA a
# memo entry and bindings of its own.
lookup(doc, ptr) := x if {
	some path in data.contractcheck.bundle.hot.pointers[ptr]
	x := object.get({"v": doc}, path, _absent)
	not is_set(x)
} else := follow(doc, tokens(ptr)) if not data.contractcheck.bundle.hot.pointers[ptr]

# _absent is what object.get gives for a path that is not there: a set, which no JSON value is.
_absent := set()

# follow walks the tokens through objects and arrays, one step each.
follow(doc, toks) := doc if count(toks) == 0

follow(doc, toks) := _at(doc, toks[0]) if count(toks) == 1

follow(doc, toks) := _at(_at(doc, toks[0]), toks[1]) if count(toks) == 2

follow(doc, toks) := _f3(doc, toks) if count(toks) == 3

follow(doc, toks) := _at(_f3(doc, toks), toks[3]) if count(toks) == 4

follow(doc, toks) := _at(_at(_f3(doc, toks), toks[3]), toks[4]) if count(toks) == 5

follow(doc, toks) := _f6(doc, toks) if count(toks) == 6

follow(doc, toks) := _at(_f6(doc, toks), toks[6]) if count(toks) == 7

follow(doc, toks) := _at(_at(_f6(doc, toks), toks[6]), toks[7]) if count(toks) == 8

follow(doc, toks) := _f9(doc, toks) if count(toks) == 9

follow(doc, toks) := _at(_f9(doc, toks), toks[9]) if count(toks) == 10

follow(doc, toks) := _at(_at(_f9(doc, toks), toks[9]), toks[10]) if count(toks) == 11

follow(doc, toks) := _f12(doc, toks) if count(toks) == 12

follow(doc, toks) := _at(_f12(doc, toks), toks[12]) if count(toks) == 13

follow(doc, toks) := _at(_at(_f12(doc, toks), toks[12]), toks[13]) if count(toks) == 14

follow(doc, toks) := _f15(doc, toks) if count(toks) == 15

follow(doc, toks) := _at(_f15(doc, toks), toks[15]) if count(toks) == 16

# max_tokens is the deepest pointer lookup reads.
max_tokens := 16

_f3(doc, toks) := _at(_at(_at(doc, toks[0]), toks[1]), toks[2])

_f6(doc, toks) := _at(_at(_at(_f3(doc, toks), toks[3]), toks[4]), toks[5])

_f9(doc, toks) := _at(_at(_at(_f6(doc, toks), toks[6]), toks[7]), toks[8])

_f12(doc, toks) := _at(_at(_at(_f9(doc, toks), toks[9]), toks[10]), toks[11])

_f15(doc, toks) := _at(_at(_at(_f12(doc, toks), toks[12]), toks[13]), toks[14])

# _at is one step: an object's member, or an array's element at a decimal index (as Go's
# strconv.Atoi reads it: an optional sign, no leading zero, not negative).
_at(v, t) := v[t] if is_object(v)

_at(v, t) := v[_index(t)] if is_array(v)

_index(t) := n if {
	regex.match(`^[+-]?[0-9]+$`, t)
	not _leading_zero(t)
	digits := trim_left(t, "+-")
	n := to_number(digits)
	_sign_ok(t, n)
}

_leading_zero(t) if {
	count(t) > 1
	startswith(t, "0")
}

_sign_ok(t, _) if not startswith(t, "-")

_sign_ok(t, n) if {
	startswith(t, "-")
	n == 0
}
