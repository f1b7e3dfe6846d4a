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

// Lookup follows the pointer through objects and arrays (an array index is decimal digits
// without leading zeros, as RFC 6901 has it: no sign, no space). It reports false when any step
// is absent, which keeps "absent" apart from a present null.
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
			i, ok := arrayIndex(tok)
			if !ok || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// arrayIndex is the array index a reference token spells: "0", or digits not starting with 0.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') || strings.ContainsFunc(tok, func(r rune) bool { return r < '0' || r > '9' }) {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
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
