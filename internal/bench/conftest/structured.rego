# METADATA
# title: structuredContent kept at D1 (for conftest)
# description: |
#   The decision scripts/bench runs in conftest beside contractcheck: a D1 record whose fixture's
#   source holds structuredContent must carry it. data.structured lists those fixtures (written by
#   go run ./internal/bench/gen -conftest DIR). contractcheck decides the same with its T2 policy
#   (structured.state), restricted to --stage D1 --task T2.
package main

deny contains msg if {
	input.stage == "D1"
	input.state == "captured"
	input.fixture in data.structured
	not _has_structured(input.carrier)
	msg := sprintf("%s %s %s D1: structuredContent missing", [input.fixture, input.lane, input.laneVersion])
}

_has_structured(carrier) if _ = carrier.structuredContent

_has_structured(carrier) if _ = carrier.result.structuredContent
