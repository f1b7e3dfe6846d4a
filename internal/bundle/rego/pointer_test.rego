package contractcheck.bundle.pointer_test

import data.contractcheck.bundle.pointer

_doc := {"a": {"b/c": [10, null, {"~k": false}]}, "n": null, "0": "key zero", "list": [[1, [2, [3]]]]}

test_tokens if {
	pointer.tokens("") == []
	pointer.tokens("/") == [""]
	pointer.tokens("/a/b~1c/0") == ["a", "b/c", "0"]
	pointer.tokens("/~01") == ["~1"]
}

test_lookup_present if {
	pointer.lookup(_doc, "") == _doc
	pointer.lookup(_doc, "/a/b~1c/0") == 10
	pointer.lookup(_doc, "/a/b~1c/2/~0k") == false
	pointer.lookup(_doc, "/0") == "key zero"
	pointer.lookup(_doc, "/list/0/1/1/0") == 3
}

test_lookup_keeps_null_apart_from_absent if {
	pointer.lookup(_doc, "/n") == null
	pointer.lookup(_doc, "/a/b~1c/1") == null
	not pointer.lookup(_doc, "/x")
	not pointer.lookup(_doc, "/n/x")
}

test_array_index_as_strconv_atoi if {
	not pointer.lookup(_doc, "/a/b~1c/3")
	not pointer.lookup(_doc, "/a/b~1c/01")
	not pointer.lookup(_doc, "/a/b~1c/-1")
	not pointer.lookup(_doc, "/a/b~1c/x")
	pointer.lookup(_doc, "/a/b~1c/+1") == null
	pointer.lookup(_doc, "/a/b~1c/-0") == 10
	not pointer.lookup("text", "/0")
}

test_sixteen_tokens if {
	deep := {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": "x"}}}}}}}}}}}}}}}}
	pointer.lookup(deep, "/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a") == "x"
	pointer.lookup(deep, "/a/a/a/a/a/a/a/a/a/a/a/a/a") == {"a": {"a": {"a": "x"}}}
}

test_pointer_writes_tokens if {
	pointer.from_path("/base", ["a/b", 3, "c~d"]) == "/base/a~1b/3/c~0d"
	pointer.from_path("", []) == ""
}
