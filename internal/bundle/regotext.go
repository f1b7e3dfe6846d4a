package bundle

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// appendRego appends v as Rego source text that OPA's parser reads back as v: the generated module
// holds a tool result's strings as values, so they are generated code. OPA's own String (Go's
// strconv.Quote) writes a control character as \x01, which OPA's parser refuses, and keeps a
// byte-order mark, which it refuses too; appendRego writes strings with JSON's escapes only, and
// every character that is not printable (controls, U+2028 and U+2029, bidi and other format
// characters, the byte-order mark) as \u escapes, so no string can end early, break a line or
// reorder one. Arrays and objects are written as OPA writes them (objects in key order).
func appendRego(buf []byte, v ast.Value) ([]byte, error) {
	switch x := v.(type) {
	case ast.Null, ast.Boolean, ast.Number:
		return append(buf, x.String()...), nil
	case ast.String:
		return appendRegoString(buf, string(x))
	case *ast.Array:
		buf = append(buf, '[')
		for i := range x.Len() {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			var err error
			if buf, err = appendRego(buf, x.Elem(i).Value); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case ast.Object:
		keys := slices.Clone(x.Keys())
		slices.SortFunc(keys, ast.TermValueCompare)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			var err error
			if buf, err = appendRego(buf, k.Value); err != nil {
				return nil, err
			}
			buf = append(buf, ": "...)
			if buf, err = appendRego(buf, x.Get(k).Value); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	}
	return nil, fmt.Errorf("a %T is not a JSON value", v)
}

// appendRegoString appends s as a Rego string literal (see appendRego).
func appendRegoString(buf []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("string %q is not valid UTF-8", s)
	}
	buf = append(buf, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			buf = append(buf, '\\', byte(r))
		case r == '\n':
			buf = append(buf, `\n`...)
		case r == '\t':
			buf = append(buf, `\t`...)
		case r == '\r':
			buf = append(buf, `\r`...)
		case r < utf8.RuneSelf && r >= 0x20 && r != 0x7f, r >= utf8.RuneSelf && strconv.IsPrint(r):
			buf = utf8.AppendRune(buf, r)
		case r > 0xffff:
			r -= 0x10000
			buf = appendU(appendU(buf, 0xd800+(r>>10)), 0xdc00+(r&0x3ff))
		default:
			buf = appendU(buf, r)
		}
	}
	return append(buf, '"'), nil
}

// appendU appends the \u escape of a UTF-16 code unit.
func appendU(buf []byte, u rune) []byte {
	const hex = "0123456789abcdef"
	return append(buf, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
}
