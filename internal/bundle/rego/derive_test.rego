package contractcheck.bundle.derive_test

import data.contractcheck.bundle.derive

test_holds_and_family if {
	derive.holds({"content": [], "structuredContent": null, "isError": false}) == ["structured", "error", "content"]
	derive.family({"content": [], "structuredContent": null}) == "structured"
	derive.holds({"content": [{"type": "text", "text": "a", "annotations": {}}]}) == ["rich", "content"]
	derive.family({"content": [{"type": "image", "data": "", "mimeType": "image/png"}], "_meta": {}}) == "rich"
	derive.holds({"content": [{"type": "text", "text": "a"}], "_meta": {"k": 1}}) == ["meta", "content"]
	derive.family({"content": [{"type": "text", "text": "a"}]}) == "content"
	derive.family({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}}) == "error-response"
	derive.holds({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}}) == ["error"]
	derive.holds({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}}) == ["error", "content"]
}

test_tasks_by_applies_to if {
	derive.entry("U1", "mine", {"content": [{"type": "text", "text": "a"}], "structuredContent": {}}).tasks == ["T1", "T2"]
	derive.entry("U2", "mine", {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "m"}}).tasks == ["T3"]
	derive.entry("U3", "reported", {"content": [{"type": "image", "data": "", "mimeType": "image/png"}]}).tasks == ["T1", "T4", "TM", "TP"]
}

test_selects_globs if {
	derive.selects({"fixtures": ["U*"]}, "U1", {"suite": "s", "family": "f", "holds": []}, [])
	not derive.selects({"fixtures": ["V*"]}, "U1", {"suite": "s", "family": "f", "holds": []}, [])
	derive.selects({"suites": ["m?ne"], "holds": ["structured"]}, "U1", {"suite": "mine", "family": "f", "holds": ["structured", "content"]}, [])
	not derive.selects({"blockKinds": ["image"]}, "U1", {"suite": "s", "family": "f", "holds": []}, ["text"])
}
