package project

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// pointer is a parsed RFC 6901 JSON pointer: its reference tokens, unescaped.
type pointer []string

// parsePointer parses an RFC 6901 pointer; "" is the whole value.
func parsePointer(s string) (pointer, error) {
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
		parts[i] = strictjson.UnescapeToken(p)
	}
	return parts, nil
}

// lookup follows the pointer through objects and arrays. It reports false when any step is
// absent, which is how the projector keeps "absent" apart from a present null.
func (p pointer) lookup(v any) (any, bool) {
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
