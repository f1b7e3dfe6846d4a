package contractcheck.bundle.json_test

import data.contractcheck.bundle.json as jsontext

test_text_whole_value if {
	jsontext.text(" {\"a\": [1, 2.50, {\"b\": null}]}\n") == {"a": [1, 2.5, {"b": null}]}
	jsontext.text("\"x\"") == "x"
	jsontext.text("null") == null
	not jsontext.text("{\"a\": 1} x")
	not jsontext.text("")
	not jsontext.text(1)
}

test_text_refuses_duplicate_keys if {
	not jsontext.text("{\"a\": 1, \"a\": 2}")
	not jsontext.text("[{\"k\": {\"a\": \"x:y\", \"a\": 1}}]")
	jsontext.text("{\"a:b\": \"c:d\", \"e\": \"\\u003a\"}") == {"a:b": "c:d", "e": ":"}
	jsontext.text("{\"a\": \"\\\\u003a\"}") == {"a": "\\u003a"}
}

test_text_refuses_unpaired_surrogates if {
	not jsontext.text("\"\\ud800\"")
	not jsontext.text("\"\\udc00\"")
	not jsontext.text("\"\\ud800x\\udc00\"")
	jsontext.text("\"\\ud83d\\ude00\"") == "😀"
	jsontext.text("\"\\\\ud800\"") == "\\ud800"
}

# A string base64.decode makes need not be UTF-8: 0xff inside a JSON string is not strict JSON.
test_text_refuses_invalid_utf8 if {
	not jsontext.text(concat("", ["\"", base64.decode("/w=="), "\""]))
	jsontext.text("\"\ufffd\"") == "\ufffd"
}

test_text_limits if {
	jsontext.text("1e10000") == 1e10000
	not jsontext.text("1e10001")
	not jsontext.text("1e-10001")
	jsontext.text(concat("", [concat("", [x | some _ in numbers.range(1, 256); x := "["]), concat("", [x | some _ in numbers.range(1, 256); x := "]"])])) != null
	not jsontext.text(concat("", [concat("", [x | some _ in numbers.range(1, 257); x := "["]), concat("", [x | some _ in numbers.range(1, 257); x := "]"])]))
	jsontext.text(concat("", [x | some _ in numbers.range(1, 4300); x := "7"])) > 0
	not jsontext.text(concat("", [x | some _ in numbers.range(1, 4301); x := "7"]))
}

test_text_exact_numbers if {
	jsontext.text("12345678901234567891") != 12345678901234567000
	jsontext.text("[0.10000000000000000000010]") != jsontext.text("[0.10]")
	jsontext.text("[0.1000000000000000000001]") == jsontext.text("[0.10000000000000000000010]")
}

test_number_respelling if {
	jsontext.number("1.50") == "1.50"
	jsontext.number("0.10000000000000000000010") == "0.1000000000000000000001"
	jsontext.number("1.10000000000000000000e10") == "11e9"
	jsontext.number("0.00000000000000000000e10") == "0"
	jsontext.number("-1000000000000000000000.10") == "-1000000000000000000000.1"
	jsontext.number("1.5e3") == "1.5e3"
	jsontext.number("100") == "100"
}

test_respelled_value if {
	v := jsontext.text("{\"a\": [0.10000000000000000000010, 1.0]}")
	json.marshal(v) == "{\"a\":[0.1000000000000000000001,1.0]}"
	jsontext.text("{\"b\": \"s\"}") == {"b": "s"}
}

# Two texts whose values OPA's float64 shortcut calls equal stay apart in one evaluation: the
# memo of function calls compares arguments as numbers compare.
test_texts_apart_in_one_query if {
	json.marshal([jsontext.text("[0.10000000000000000000010]"), jsontext.text("[0.10]")]) == "[[0.1000000000000000000001],[0.10]]"
	jsontext.text("[0.10000000000000000000010]") != jsontext.text("[0.10]")
}

# A duplicate key is refused whether or not the text's strings hold colons (with none, the
# members are counted without walking the strings).
test_duplicate_keys_with_and_without_colons if {
	not jsontext.text(`{"a": 1, "a": 2}`)
	not jsontext.text(`{"a": "x:y", "a": 2}`)
	not jsontext.text(`[{"k:": 1, "k:": 1}]`)
	jsontext.text(`{"a": "x:y", "b": {"c": 1}}`) == {"a": "x:y", "b": {"c": 1}}
	jsontext.text(`{"a:b": 1}`) == {"a:b": 1}
	jsontext.text(`{"a\u003ab": 1, "c": ":"}`) == {"a:b": 1, "c": ":"}
}

# A long run of digits is looked for only in a text long enough to hold one.
test_long_numbers if {
	jsontext.text(concat("", ["[", concat("", [d | some _ in numbers.range(1, 999); d := "1"]), "]"]))
	jsontext.text("[1e9999]")
	not jsontext.text("[1e10001]")
}
