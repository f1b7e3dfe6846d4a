# METADATA
# title: Builtin calls past the sandbox's limits
# description: |
#   value[id] is a builtin call that would make a number, a string or an
#   array past one of the sandbox's limits (internal/policy/bounds.go): each
#   is refused at once, naming the builtin and the limit, without making any
#   of it. The task policy limits.task evaluates the one its task names; the
#   tests in cases_test.rego call each one.
# scope: package
package limits.cases

# 2^99999, a number of 100000 bits: the longest shift of 1 within the limit.
_big := bits.lsh(1, 99999)

# A string of one million bytes, twenty "a", five million bytes.
_mb := sprintf("%01000000d", [1])

_a20 := concat("", ["a" | some _ in numbers.range(1, 20)])

_5mb := sprintf("%05000000d", [1])

# A format that prints its first argument seventeen times.
_seventeen_times := concat("", ["%[1]s" | some _ in numbers.range(1, 17)])

# 300 references to one 1 MB string: an array that hashes 300 MB.
_refs := [_mb | some _ in numbers.range(1, 300)]

# _dag holds 2^24 leaves in 25 arrays: each level holds the one below twice.
# (object.get hides the nesting from the type checker, which would walk it.)
_d0 := [1]

_d1 := object.get({}, "", [_d0, _d0])

_d2 := object.get({}, "", [_d1, _d1])

_d3 := object.get({}, "", [_d2, _d2])

_d4 := object.get({}, "", [_d3, _d3])

_d5 := object.get({}, "", [_d4, _d4])

_d6 := object.get({}, "", [_d5, _d5])

_d7 := object.get({}, "", [_d6, _d6])

_d8 := object.get({}, "", [_d7, _d7])

_d9 := object.get({}, "", [_d8, _d8])

_d10 := object.get({}, "", [_d9, _d9])

_d11 := object.get({}, "", [_d10, _d10])

_d12 := object.get({}, "", [_d11, _d11])

_d13 := object.get({}, "", [_d12, _d12])

_d14 := object.get({}, "", [_d13, _d13])

_d15 := object.get({}, "", [_d14, _d14])

_d16 := object.get({}, "", [_d15, _d15])

_d17 := object.get({}, "", [_d16, _d16])

_d18 := object.get({}, "", [_d17, _d17])

_d19 := object.get({}, "", [_d18, _d18])

_d20 := object.get({}, "", [_d19, _d19])

_d21 := object.get({}, "", [_d20, _d20])

_d22 := object.get({}, "", [_d21, _d21])

_d23 := object.get({}, "", [_d22, _d22])

_dag := object.get({}, "", [_d23, _d23])

# [[…[1]…]], 20 levels deep.
_deep := [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]

# A ladder of 60 vertices: each vertex leads to the next two, so the paths
# from "0" are as many as the Fibonacci numbers (about 10^12).
_ladder[format_int(i, 10)] := [format_int(i + 1, 10), format_int(i + 2, 10)] if some i in numbers.range(0, 60)

value["lsh_1e12"] := bits.lsh(1, 1000000000000)

value["lsh_1e8"] := bits.lsh(1, 1e8)

value["lsh_4e10"] := bits.lsh(1, 4e10)

value["mul"] := 1e30000 * 1e30000

value["div"] := 1e30000 / 1e-30000

value["product"] := product([1e20000, 1e20000])

value["sum_shared"] := sum([_big | some _ in numbers.range(1, 200)])

value["to_number"] := to_number(sprintf("%040000d", [1]))

value["units_parse"] := units.parse("1e999999")

value["units_parse_bytes"] := units.parse_bytes("1e999999")

value["sprintf_width"] := sprintf("%1000000000d", [1])

value["sprintf_widths"] := sprintf("%9999999d%9999999d", [1, 1])

value["sprintf_index"] := sprintf(_seventeen_times, [_mb])

value["concat"] := concat(_mb, ["a" | some _ in numbers.range(1, 20)])

value["replace"] := replace(_a20, "a", _mb)

value["replace_n"] := strings.replace_n({"a": _mb}, _a20)

value["regex_replace"] := regex.replace(_a20, `a`, _mb)

value["json_marshal"] := json.marshal(_dag)

value["json_marshal_indent"] := json.marshal_with_options(_deep, {"indent": _mb})

value["yaml_marshal"] := yaml.marshal(_dag)

value["array_concat"] := array.concat(_refs, _refs)

value["array_flatten"] := array.flatten([_refs])

value["array_reverse"] := array.reverse(_refs)

value["split"] := split(_5mb, "")

value["indexof_n"] := indexof_n(_5mb, "0")

value["reachable_paths"] := graph.reachable_paths(_ladder, {"0"})
