package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxMarshalDepth stops Marshal on a cyclic value (a []any holding itself)
// instead of overflowing the stack. It is far above any depth Decode accepts
// by default, so legitimate trees never reach it.
const maxMarshalDepth = 10000

// Marshal encodes a tree canonically and compactly, so that equal trees give
// byte-identical output and reports are reproducible:
//
//   - object keys are sorted in byte order, with no whitespace anywhere;
//   - json.Number is written verbatim (it must match the JSON number grammar),
//     so "1.0" and "1e2" keep their spelling;
//   - strings are escaped minimally: only '"', '\\' and control characters
//     below U+0020 (as \b \f \n \r \t or \u00XX); no HTML escaping of < > &,
//     since the output is data, not markup. Strings must be valid UTF-8.
//
// Besides the types Decode produces (map[string]any, []any, string, bool,
// nil, json.Number) it accepts int, int64, float64 (shortest 'g' form; NaN
// and infinities are errors), []string and map[string]string, for callers
// that build trees in Go. Any other type is an error naming the JSON pointer
// where it was found.
func Marshal(v any) ([]byte, error) {
	var e encoder
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// marshalError collects the JSON pointer of the failing value as the error
// travels back up, so the pointer costs nothing when there is no error.
type marshalError struct {
	path []string // reversed reference tokens
	msg  string
}

func (e *marshalError) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(EscapeToken(e.path[i]))
	}
	ptr := b.String()
	if ptr == "" {
		ptr = `""`
	}
	return "strictjson: cannot marshal value at " + ptr + ": " + e.msg
}

func within(err error, token string) error {
	var me *marshalError
	if errors.As(err, &me) {
		me.path = append(me.path, token)
	}
	return err
}

type encoder struct {
	buf []byte
}

func (e *encoder) value(v any, depth int) error {
	if depth > maxMarshalDepth {
		return &marshalError{msg: fmt.Sprintf("nesting deeper than %d (cyclic value?)", maxMarshalDepth)}
	}
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case string:
		return e.str(x)
	case json.Number:
		if !validNumber(string(x)) {
			return &marshalError{msg: fmt.Sprintf("invalid json.Number %q", string(x))}
		}
		e.buf = append(e.buf, x...)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &marshalError{msg: fmt.Sprintf("%v is not a JSON number", x)}
		}
		e.buf = strconv.AppendFloat(e.buf, x, 'g', -1, 64)
	case []any:
		e.buf = append(e.buf, '[')
		for i, el := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.value(el, depth+1); err != nil {
				return within(err, strconv.Itoa(i))
			}
		}
		e.buf = append(e.buf, ']')
	case []string:
		e.buf = append(e.buf, '[')
		for i, el := range x {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.str(el); err != nil {
				return within(err, strconv.Itoa(i))
			}
		}
		e.buf = append(e.buf, ']')
	case map[string]any:
		return encodeObject(e, x, func(el any) error { return e.value(el, depth+1) })
	case map[string]string:
		return encodeObject(e, x, e.str)
	default:
		return &marshalError{msg: fmt.Sprintf("unsupported type %T", v)}
	}
	return nil
}

// encodeObject writes m with its keys in byte order (Go's string order).
func encodeObject[V any](e *encoder, m map[string]V, elem func(V) error) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.str(k); err != nil {
			return &marshalError{msg: fmt.Sprintf("object key %q is not valid UTF-8", k)}
		}
		e.buf = append(e.buf, ':')
		if err := elem(m[k]); err != nil {
			return within(err, k)
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

const hexDigits = "0123456789abcdef"

// str writes s with minimal escaping. Invalid UTF-8 is an error rather than
// silently replaced, since the output must re-decode to the same tree.
func (e *encoder) str(s string) error {
	if !utf8.ValidString(s) {
		return &marshalError{msg: fmt.Sprintf("string %q is not valid UTF-8", s)}
	}
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		e.buf = append(e.buf, s[start:i]...)
		switch c {
		case '"', '\\':
			e.buf = append(e.buf, '\\', c)
		case '\b':
			e.buf = append(e.buf, '\\', 'b')
		case '\f':
			e.buf = append(e.buf, '\\', 'f')
		case '\n':
			e.buf = append(e.buf, '\\', 'n')
		case '\r':
			e.buf = append(e.buf, '\\', 'r')
		case '\t':
			e.buf = append(e.buf, '\\', 't')
		default:
			e.buf = append(e.buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
	return nil
}

// validNumber reports whether s is exactly one JSON number.
func validNumber(s string) bool {
	end, _, msg := scanNumber(s, 0)
	return msg == "" && end == len(s)
}
