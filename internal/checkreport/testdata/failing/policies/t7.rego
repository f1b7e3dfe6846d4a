package custom.t7

diagnostics contains {"atom": "block.text", "path": "", "kind": to_number("many")}
