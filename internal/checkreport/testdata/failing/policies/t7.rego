package custom.t7

diagnostics contains d if {
	d := {"atom": "block.text", "path": "", "kind": to_number("many")}
}
