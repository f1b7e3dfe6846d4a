package schema

import (
	"encoding/json"
	"math/big"
	"strings"
	"unicode/utf8"
)

// recordConforms decides, in Go, whether a decoded observation record satisfies
// contractcheck/observation-record.schema.json. It is the fast path of ValidateRecord: a record it
// accepts needs no schema evaluation; one it rejects is validated against the schema, which names
// the pointer and the reason. It must never accept what the schema rejects
// (TestRecordFastPathAgreesWithTheSchema holds it to that over the corpus and fuzzed records).
func recordConforms(doc any) bool {
	m, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	for k := range m {
		switch k {
		case "fixture", "lane", "laneVersion", "configuration", "stage", "repetition", "state",
			"carrier", "error", "sourceSha256", "origin", "basis", "notes":
		default:
			return false
		}
	}
	str := func(k string) (string, bool) {
		s, ok := m[k].(string)
		return s, ok
	}
	if s, ok := str("fixture"); !ok || utf8.RuneCountInString(s) < 1 {
		return false
	}
	if s, ok := str("laneVersion"); !ok || utf8.RuneCountInString(s) < 1 {
		return false
	}
	for _, k := range []string{"lane", "configuration"} {
		if s, ok := str(k); !ok || !isSlug(s) {
			return false
		}
	}
	switch s, _ := str("stage"); s {
	case "D1", "A2", "M3", "H4":
	default:
		return false
	}
	if n, ok := m["repetition"].(json.Number); !ok || !positiveInteger(n) {
		return false
	}
	state, _ := str("state")
	switch state {
	case "captured", "execution_failed", "not_reached", "not_applicable", "not_observable", "ambiguous":
	default:
		return false
	}
	if s, ok := str("sourceSha256"); !ok || !isSha256(s) {
		return false
	}
	origin, _ := str("origin")
	if origin != "captured" && origin != "reconstructed" {
		return false
	}
	_, hasCarrier := m["carrier"]
	if hasCarrier != (state == "captured") {
		return false
	}
	e, hasError := m["error"]
	if hasError != (state == "execution_failed") {
		return false
	}
	if hasError {
		if s, ok := e.(string); !ok || utf8.RuneCountInString(s) < 1 {
			return false
		}
	}
	b, hasBasis := m["basis"]
	if hasBasis != (origin == "reconstructed") {
		return false
	}
	if hasBasis && !basisConforms(b) {
		return false
	}
	if n, has := m["notes"]; has {
		if _, ok := n.(string); !ok {
			return false
		}
	}
	return true
}

func basisConforms(b any) bool {
	items, ok := b.([]any)
	if !ok || len(items) < 1 {
		return false
	}
	for _, it := range items {
		o, ok := it.(map[string]any)
		if !ok || len(o) != 4 {
			return false
		}
		for _, k := range []string{"rule", "file", "function", "version"} {
			if s, ok := o[k].(string); !ok || utf8.RuneCountInString(s) < 1 {
				return false
			}
		}
	}
	return true
}

// isSlug is the schema's ^[a-z0-9][a-z0-9-]*$.
func isSlug(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isSha256 is the schema's ^[0-9a-f]{64}$.
func isSha256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// positiveInteger is "type": "integer", "minimum": 1 for a number as written: JSON Schema counts
// 2.0 and 1e2 as integers, so the value is compared, not the spelling.
func positiveInteger(n json.Number) bool {
	s := n.String()
	if s != "" && !strings.ContainsAny(s, ".eE") {
		// The common case: plain digits.
		if s[0] == '-' || s == "0" {
			return false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return s[0] != '0'
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt() && r.Sign() > 0
}
