package fakeprovider

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The scanner below walks a request body that json.Valid has accepted and hands out the byte
// ranges of its values, so that an item is returned exactly as the agent sent it (spacing,
// escapes, key order and number spellings untouched) instead of being decoded and re-encoded.

// member is one key of a JSON object with the byte range of its value.
type member struct {
	key        string
	start, end int
}

// errScan reports bytes the scanner cannot walk; json.Valid runs first, so it means a bug.
var errScan = errors.New("malformed JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string literal that starts at b[i] == '"'.
func stringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("%w: unterminated string at byte %d", errScan, i)
}

// valueEnd returns the index just past the value that starts at b[i] (no leading space).
// Objects and arrays are skipped iteratively, so nesting depth costs no stack.
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, fmt.Errorf("%w: value expected at byte %d", errScan, i)
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := stringEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, fmt.Errorf("%w: unterminated container at byte %d", errScan, i)
	default: // number, true, false, null
		j := i
		for j < len(b) && !isSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		if j == i {
			return 0, fmt.Errorf("%w: value expected at byte %d", errScan, i)
		}
		return j, nil
	}
}

// objectMembers lists the members of the object b[start:end] in order. It reports ok false when
// the value is not an object.
func objectMembers(b []byte, start, end int) ([]member, bool, error) {
	if start >= end || b[start] != '{' {
		return nil, false, nil
	}
	var ms []member
	i := skipSpace(b, start+1)
	if i < end && b[i] == '}' {
		return ms, true, nil
	}
	for i < end {
		if b[i] != '"' {
			return nil, false, fmt.Errorf("%w: key expected at byte %d", errScan, i)
		}
		kEnd, err := stringEnd(b, i)
		if err != nil {
			return nil, false, err
		}
		var key string
		if err := json.Unmarshal(b[i:kEnd], &key); err != nil {
			return nil, false, fmt.Errorf("%w: key at byte %d: %v", errScan, i, err)
		}
		i = skipSpace(b, kEnd)
		if i >= end || b[i] != ':' {
			return nil, false, fmt.Errorf("%w: ':' expected at byte %d", errScan, i)
		}
		i = skipSpace(b, i+1)
		vEnd, err := valueEnd(b, i)
		if err != nil {
			return nil, false, err
		}
		ms = append(ms, member{key: key, start: i, end: vEnd})
		i = skipSpace(b, vEnd)
		if i < end && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < end && b[i] == '}' {
			return ms, true, nil
		}
		return nil, false, fmt.Errorf("%w: ',' or '}' expected at byte %d", errScan, i)
	}
	return nil, false, fmt.Errorf("%w: unterminated object at byte %d", errScan, start)
}

// arrayElems lists the byte ranges of the elements of the array b[start:end]. It reports ok
// false when the value is not an array.
func arrayElems(b []byte, start, end int) ([][2]int, bool, error) {
	if start >= end || b[start] != '[' {
		return nil, false, nil
	}
	var es [][2]int
	i := skipSpace(b, start+1)
	if i < end && b[i] == ']' {
		return es, true, nil
	}
	for i < end {
		vEnd, err := valueEnd(b, i)
		if err != nil {
			return nil, false, err
		}
		es = append(es, [2]int{i, vEnd})
		i = skipSpace(b, vEnd)
		if i < end && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < end && b[i] == ']' {
			return es, true, nil
		}
		return nil, false, fmt.Errorf("%w: ',' or ']' expected at byte %d", errScan, i)
	}
	return nil, false, fmt.Errorf("%w: unterminated array at byte %d", errScan, start)
}

// lookup returns the value of key in members; with duplicate keys the last one wins, as in
// encoding/json and JavaScript.
func lookup(ms []member, key string) (member, bool) {
	var found member
	ok := false
	for _, m := range ms {
		if m.key == key {
			found, ok = m, true
		}
	}
	return found, ok
}

// stringAt decodes b[start:end] when it is a JSON string.
func stringAt(b []byte, start, end int) (string, bool) {
	if start >= end || b[start] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(b[start:end], &s) != nil {
		return "", false
	}
	return s, true
}

// root returns the members of the body's top-level object.
func root(body []byte) ([]member, error) {
	if !json.Valid(body) {
		return nil, errors.New("the body is not JSON")
	}
	start := skipSpace(body, 0)
	end, err := valueEnd(body, start)
	if err != nil {
		return nil, err
	}
	ms, ok, err := objectMembers(body, start, end)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("the body is not a JSON object")
	}
	return ms, nil
}

// field returns the members of the object under key in ms (ok false when absent or no object).
func field(b []byte, ms []member, key string) ([]member, bool, error) {
	m, ok := lookup(ms, key)
	if !ok {
		return nil, false, nil
	}
	return objectMembers(b, m.start, m.end)
}

// elems returns the elements of the array under key in ms (ok false when absent or no array).
func elems(b []byte, ms []member, key string) ([][2]int, bool, error) {
	m, ok := lookup(ms, key)
	if !ok {
		return nil, false, nil
	}
	return arrayElems(b, m.start, m.end)
}

// str returns the string under key in ms.
func str(b []byte, ms []member, key string) (string, bool) {
	m, ok := lookup(ms, key)
	if !ok {
		return "", false
	}
	return stringAt(b, m.start, m.end)
}
