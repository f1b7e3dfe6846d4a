# METADATA
# title: Tests that call builtins past the sandbox's limits
# description: |
#   Each test calls one case of limits.cases; the sandbox refuses the call,
#   so that contractcheck test stops the test at the limit and exits 3.
# scope: package
package limits.cases_test

import data.limits.cases

test_lsh_1e12 if cases.value.lsh_1e12

test_lsh_1e8 if cases.value.lsh_1e8

test_lsh_4e10 if cases.value.lsh_4e10

test_mul if cases.value.mul

test_div if cases.value.div

test_product if cases.value.product

test_sum_shared if cases.value.sum_shared

test_to_number if cases.value.to_number

test_units_parse if cases.value.units_parse

test_units_parse_bytes if cases.value.units_parse_bytes

test_sprintf_width if cases.value.sprintf_width

test_sprintf_widths if cases.value.sprintf_widths

test_sprintf_index if cases.value.sprintf_index

test_concat if cases.value.concat

test_replace if cases.value.replace

test_replace_n if cases.value.replace_n

test_regex_replace if cases.value.regex_replace

test_json_marshal if cases.value.json_marshal

test_json_marshal_indent if cases.value.json_marshal_indent

test_yaml_marshal if cases.value.yaml_marshal

test_array_concat if cases.value.array_concat

test_array_flatten if cases.value.array_flatten

test_array_reverse if cases.value.array_reverse

test_split if cases.value.split

test_indexof_n if cases.value.indexof_n

test_reachable_paths if cases.value.reachable_paths
