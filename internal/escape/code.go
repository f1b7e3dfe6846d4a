package escape

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Python returns s as a Python 3 str literal in double quotes, all ASCII: '"' and '\' escaped,
// printable ASCII as itself, everything else as \n, \r, \t, \xXX, \uXXXX or \UXXXXXXXX. No
// character of s can end the literal, start a comment, end a docstring or a line of source;
// invalid UTF-8 becomes U+FFFD.
func Python(s string) string { return pythonStyle.quote(s) }

// JavaScript returns s as a JavaScript string literal in double quotes, all ASCII: '"' and '\'
// escaped, '<', '>' and '/' too (so the literal is also safe inside an HTML script element),
// printable ASCII as itself, everything else as \n, \r, \t or \uXXXX (a surrogate pair beyond
// the basic plane). U+2028 and U+2029, which end a line comment, are escaped like any other
// non-ASCII character; a template's "${" and backquotes mean nothing in a double-quoted
// literal. Invalid UTF-8 becomes U+FFFD.
func JavaScript(s string) string { return javaScriptStyle.quote(s) }

// JSON returns s as a JSON string that a terminal may show as it is: '"' and '\' escaped, line
// breaks and tab as \n, \r, \t, every character Terminal would show escaped (controls, DEL,
// U+2028 and U+2029, bidi and other format characters) as \uXXXX (a surrogate pair beyond the
// basic plane), every other character as itself. It reads back (encoding/json) as s; invalid
// UTF-8 becomes U+FFFD. It is a Rego string literal too, and OPA's parser reads it back the same:
// a Rego string is a JSON string (the parser unquotes it with encoding/json).
func JSON(s string) string { return jsonStyle.quote(s) }

var (
	jsonStyle       = literalStyle{keep: visible, pairs: true}
	pythonStyle     = literalStyle{keep: printableASCII, hexByte: true}
	javaScriptStyle = literalStyle{keep: func(r rune) bool { return printableASCII(r) && r != '<' && r != '>' && r != '/' }, pairs: true}
)

func printableASCII(r rune) bool { return r >= 0x20 && r < 0x7f }

// literalStyle is how one language writes a double-quoted string literal with C-like escapes:
// which characters stand as themselves (keep), whether a character below U+0100 is written
// \xXX (hexByte), and whether one beyond the basic plane is a UTF-16 surrogate pair of \uXXXX
// (pairs) rather than \UXXXXXXXX.
type literalStyle struct {
	keep           func(rune) bool
	hexByte, pairs bool
}

// quote writes s as a literal of the style: '"' and '\' backslash-escaped, line breaks and tab
// as \n, \r, \t, a character keep accepts as itself, any other escaped (invalid UTF-8 as
// U+FFFD).
func (st literalStyle) quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		if e := Short(r); e != "" {
			b.WriteString(e)
			continue
		}
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case st.keep(r):
			b.WriteRune(r)
		case st.hexByte && r < 0x100:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xf])
		case st.pairs:
			writeJSONRune(&b, r)
		default:
			writeU(&b, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// JSONRune is r written as a JSON escape: \uXXXX in lower-case hex, and beyond the basic plane a
// UTF-16 surrogate pair of two, as JSON and JavaScript (and Python's json.dumps) write a
// character they escape. It reads back (encoding/json) as r.
func JSONRune(r rune) string {
	var b strings.Builder
	writeJSONRune(&b, r)
	return b.String()
}

// writeJSONRune writes JSONRune(r) to b.
func writeJSONRune(b *strings.Builder, r rune) {
	if r > 0xffff {
		r1, r2 := utf16Pair(r)
		writeU(b, r1)
		writeU(b, r2)
		return
	}
	writeU(b, r)
}

// utf16Pair is r's UTF-16 surrogate pair.
func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// Go returns s as a Go interpreted string literal, all ASCII (strconv.QuoteToASCII): no
// character of s can end the literal or a line, and no bidi control reaches the source.
// Each byte of invalid UTF-8 is first replaced by U+FFFD, as the other escapers replace it, so
// that the literal holds valid UTF-8.
func Go(s string) string { return strconv.QuoteToASCII(ValidUTF8(s)) }

// ValidUTF8 is s with each byte of invalid UTF-8 replaced by U+FFFD, as every escaper here, CUE's
// quoting and encoding/json replace it (strings.ToValidUTF8 would replace a run of them with
// one): what a sink holds of s.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
