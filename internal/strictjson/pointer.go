package strictjson

import (
	"fmt"
	"strconv"
	"strings"
)

var (
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapeToken spells an object key as an RFC 6901 reference token: "~" as "~0", "/" as "~1".
func EscapeToken(key string) string { return tokenEscaper.Replace(key) }

// UnescapeToken is the object key a reference token spells: EscapeToken undone ("~01" is "~1").
func UnescapeToken(token string) string { return tokenUnescaper.Replace(token) }

// Pointer is a parsed RFC 6901 JSON pointer: its reference tokens, unescaped.
type Pointer []string

// ParsePointer parses an RFC 6901 pointer; "" is the whole value.
func ParsePointer(s string) (Pointer, error) {
	if s == "" {
		return nil, nil
	}
	if !strings.HasPrefix(s, "/") {
		return nil, fmt.Errorf("JSON pointer %q must be empty or start with /", s)
	}
	parts := strings.Split(s[1:], "/")
	for i, p := range parts {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(p, "~0", ""), "~1", ""), "~") {
			return nil, fmt.Errorf("JSON pointer %q: bad escape in %q", s, p)
		}
		parts[i] = UnescapeToken(p)
	}
	return parts, nil
}

// Lookup follows the pointer through objects and arrays (an array index is decimal without
// leading zeros, read as strconv.Atoi reads it: a sign is taken, a negative index is absent; the
// bundle's Rego projector, internal/bundle/rego/pointer.rego, reads it the same). It reports
// false when any step is absent, which keeps "absent" apart from a present null.
func (p Pointer) Lookup(v any) (any, bool) {
	for _, tok := range p {
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(node) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// Lookup follows the pointer ptr, given as text (ParsePointer), through the decoded value v: false
// when a step is absent or ptr is not a pointer.
func Lookup(v any, ptr string) (any, bool) {
	p, err := ParsePointer(ptr)
	if err != nil {
		return nil, false
	}
	return p.Lookup(v)
}
