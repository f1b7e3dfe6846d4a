// Package strictjson reads and writes JSON exactly. It is step 1 of the
// contractcheck pipeline (strict JSON → schema → contract → project → policy
// → census → report): every source, carrier and record enters through here, so
// the later steps can trust that what they compare is what the file said.
//
// encoding/json is too forgiving for a checker whose verdicts hinge on
// byte-level fidelity: it silently keeps the last of two duplicate keys,
// replaces invalid UTF-8 with U+FFFD, accepts unpaired surrogate escapes and
// rounds numbers through float64. Decode instead rejects all of those with a
// file:line:col error, and keeps every number's digits verbatim as a
// json.Number.
//
// Decoded trees are built only from map[string]any, []any, string, bool, nil
// and json.Number. Marshal writes such a tree canonically (sorted keys,
// minimal escaping, numbers verbatim) so that equal inputs give byte-identical
// reports, and Equal compares two trees with numbers compared as exact
// decimals.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits bounds what Decode and LineReader accept, so that a hostile or
// broken input fails with a clear message instead of exhausting memory or the
// stack. A field that is zero or negative means "use the DefaultLimits value":
// the zero Limits is safe, never unlimited.
type Limits struct {
	// MaxBytes is the largest accepted input in bytes (for LineReader: the
	// largest accepted line, excluding its newline).
	MaxBytes int64
	// MaxDepth is the deepest accepted nesting of arrays and objects; a
	// scalar at top level has depth 0, "[]" has depth 1. Decoding recurses
	// once per level, so this also bounds stack use: keep it in the
	// thousands, not millions. (Marshal refuses nesting beyond 10000.)
	MaxDepth int
	// MaxExponent bounds the magnitude of a number's written exponent
	// ("1e400" has 400). Exact decimal arithmetic downstream (the policy
	// engine's big numbers) cannot represent unbounded exponents, and an
	// input such as 1e999999999 would otherwise pass the reader and fail
	// later without a position.
	MaxExponent int
	// MaxDigits bounds the digits of a number's mantissa: integer and
	// fraction digits together, leading and trailing zeros included (the
	// exponent's digits are bounded by MaxExponent). Exact comparison
	// downstream converts a number to a big rational, which costs time
	// quadratic in its digits; and OPA panics on a number whose fraction
	// digits minus exponent pass 10^6 (big.Rat refuses it), as
	// 0.000…0001 with 10^6 zeros does. At the default, 4300, an exact
	// comparison costs no more per digit than for a 100-digit number,
	// and a number with its digits plus the largest exponent stays two
	// orders of magnitude below OPA's panic (docs/design.md, "Limits").
	MaxDigits int
}

// DefaultLimits is generous for the contracts, sources and records the
// checker reads, yet small enough that a runaway input is caught early.
var DefaultLimits = Limits{MaxBytes: 16 << 20, MaxDepth: 256, MaxExponent: 10000, MaxDigits: 4300}

// withDefaults replaces non-positive fields by the defaults, so a partly
// filled Limits never disables a bound by accident.
func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxExponent <= 0 {
		l.MaxExponent = DefaultLimits.MaxExponent
	}
	if l.MaxDigits <= 0 {
		l.MaxDigits = DefaultLimits.MaxDigits
	}
	return l
}

// SyntaxError is the only error Decode returns (LineReader adds I/O errors).
// Its position is meant for humans and editors: Line and Col are 1-based, and
// Col counts characters (UTF-8 runes; tabs count as one, each invalid byte
// counts as one) from the start of the line, so that it matches what an
// editor shows for non-ASCII text. Offset is the 0-based byte offset in the
// file, for tools. Only '\n' ends a line; a '\r' is an ordinary character.
type SyntaxError struct {
	File   string // the file name as given by the caller
	Line   int    // 1-based line number
	Col    int    // 1-based column, in runes
	Offset int64  // 0-based byte offset from the start of the file
	Msg    string // what is wrong, without the position
}

// Error formats the error as "file:line:col: msg", the form compilers use,
// so editors and CI annotators can jump to it. With an empty File the
// "file:" prefix is left out.
func (e *SyntaxError) Error() string {
	pos := strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Msg
	if e.File == "" {
		return pos
	}
	return e.File + ":" + pos
}

// Decode parses data as exactly one JSON value (RFC 8259), optionally
// surrounded by whitespace, and returns it as a tree of map[string]any,
// []any, string, bool, nil and json.Number. file is used only in error
// messages.
//
// Beyond the RFC grammar, Decode rejects what would make two readers disagree
// about the same bytes: duplicate object keys (the message names the key and
// where it first occurred), invalid UTF-8 anywhere (inside strings too),
// unpaired surrogate escapes such as "\ud800" (they name no character), and a
// leading byte order mark. It also rejects inputs larger than lim.MaxBytes
// and nesting deeper than lim.MaxDepth. Numbers are returned with their
// digits exactly as written ("1.0" stays "1.0", "1E2" stays "1E2").
//
// Every error is a *SyntaxError pointing at the first offending byte.
func Decode(file string, data []byte, lim Limits) (any, error) {
	return decodeWhole(file, data, lim, false)
}

// Object is a JSON object as DecodeOrdered reads it: its members in the order written.
type Object struct {
	Keys []string
	Vals []any
}

// DecodeOrdered is Decode with every object read as an *Object, its members in the order the
// document writes them, for a reader that must write the document back as it was (mutate's
// operators): the same strict reading and the same errors, in one pass.
func DecodeOrdered(file string, data []byte, lim Limits) (any, error) {
	return decodeWhole(file, data, lim, true)
}

// decodeWhole is Decode (ordered false) and DecodeOrdered (true): data, at most lim.MaxBytes,
// read as one document.
func decodeWhole(file string, data []byte, lim Limits, ordered bool) (any, error) {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxBytes {
		return nil, &SyntaxError{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf(
			"input is %d bytes, over the limit of %d bytes", len(data), lim.MaxBytes)}
	}
	d := decoder{file: file, maxDepth: lim.MaxDepth, maxExponent: lim.MaxExponent, maxDigits: lim.MaxDigits, lineBase: 1, ordered: ordered}
	v, err := d.decode(data)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// decoder is a recursive-descent scanner over one byte slice. Recursion depth
// is bounded by maxDepth, which is checked before each descent.
type decoder struct {
	file     string
	data     []byte
	pos      int
	depth    int
	maxDepth int
	// maxExponent bounds a number's written exponent (Limits.MaxExponent).
	maxExponent int
	// maxDigits bounds a number's mantissa digits (Limits.MaxDigits).
	maxDigits int

	// lineBase and offBase shift reported positions, so that LineReader can
	// decode one line at a time and still report the file's line and offset;
	// colBase is the runes before data[0] on its line (ArrayReader decodes an
	// element that begins mid-line).
	lineBase int
	colBase  int
	offBase  int64

	stack   []any             // pending array elements, shared by all arrays to avoid regrowth
	scratch []byte            // unescaped string bytes, reused
	keys    map[string]string // interned object keys: records repeat the same keys

	// spanKey names a member of the top-level object whose value's bytes
	// (data[spanStart:spanEnd]) the decoder records (LineDecoder.DecodeSpan);
	// with skipSpan the value is checked and not built (LineDecoder.DecodeSkipping).
	spanKey            string
	spanStart, spanEnd int
	skipSpan           bool

	// discard is above zero while a value is checked and not built: the same
	// grammar, limits and errors, and nil for the value (Cursor.Skip,
	// LineDecoder.DecodeSkipping).
	discard int

	// ordered reads objects as *Object (DecodeOrdered).
	ordered bool
}

// atLine makes the decoder's positions those of line l, and records the bytes of the value of
// its top-level member spanKey ("" for none).
func (d *decoder) atLine(l Line, spanKey string) {
	d.file, d.lineBase, d.offBase = l.file, l.Number, l.start
	d.spanKey, d.spanStart, d.spanEnd, d.skipSpan = spanKey, 0, 0, false
}

// reset starts reading data from its first byte.
func (d *decoder) reset(data []byte) {
	d.data, d.pos, d.depth, d.discard = data, 0, 0, 0
	clear(d.stack)
	d.stack = d.stack[:0]
}

// decode parses one whole document held in data.
func (d *decoder) decode(data []byte) (any, error) {
	d.reset(data)
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, d.errAt(0, "byte order mark (U+FEFF) is not allowed")
	}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.skipWS()
	if d.pos < len(d.data) {
		return nil, d.unexpected("end of input after the top-level value")
	}
	return v, nil
}

// errAt builds the error for byte offset off of the current data. Line and
// column are computed only here, on the error path, so the happy path pays
// nothing for position tracking.
func (d *decoder) errAt(off int, format string, args ...any) *SyntaxError {
	line, col := d.lineCol(off)
	return &SyntaxError{
		File:   d.file,
		Line:   line,
		Col:    col,
		Offset: d.offBase + int64(off),
		Msg:    fmt.Sprintf(format, args...),
	}
}

// lineCol is the file's line and column of byte offset off of the current data.
func (d *decoder) lineCol(off int) (line, col int) {
	line, col = position(d.data, off)
	if line == 1 {
		col += d.colBase
	}
	return d.lineBase + line - 1, col
}

// position returns the 1-based line and rune column of byte offset off.
func position(data []byte, off int) (line, col int) {
	head := data[:off]
	line = 1 + bytes.Count(head, []byte{'\n'})
	start := bytes.LastIndexByte(head, '\n') + 1
	return line, 1 + utf8.RuneCount(head[start:])
}

// unexpected reports the byte at d.pos (or the end of input) when something
// else was expected, and says plainly when that byte is invalid UTF-8.
func (d *decoder) unexpected(expected string) *SyntaxError {
	if d.pos >= len(d.data) {
		return d.errAt(len(d.data), "unexpected end of input, expected %s", expected)
	}
	c := d.data[d.pos]
	if c < utf8.RuneSelf {
		return d.errAt(d.pos, "unexpected %q, expected %s", rune(c), expected)
	}
	r, size := utf8.DecodeRune(d.data[d.pos:])
	if r == utf8.RuneError && size == 1 {
		return d.errAt(d.pos, "invalid UTF-8 byte 0x%02x", c)
	}
	return d.errAt(d.pos, "unexpected %q, expected %s", r, expected)
}

func (d *decoder) skipWS() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value parses any JSON value starting at the next non-whitespace byte.
func (d *decoder) value() (any, error) {
	d.skipWS()
	if d.pos >= len(d.data) {
		return nil, d.unexpected("a JSON value")
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		b, err := d.str()
		if err != nil || d.discard > 0 {
			return nil, err
		}
		return string(b), nil
	case 't':
		return d.literal("true", true)
	case 'f':
		return d.literal("false", false)
	case 'n':
		return d.literal("null", nil)
	default:
		if c == '-' || isDigit(c) {
			return d.number()
		}
		return nil, d.unexpected("a JSON value")
	}
}

// literal matches true, false or null and points at the first wrong byte.
func (d *decoder) literal(word string, v any) (any, error) {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
			return nil, d.unexpected(word)
		}
		d.pos++
	}
	return v, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number scans a JSON number and keeps its text verbatim: converting to
// float64 would lose digits that a contract may compare.
func (d *decoder) number() (any, error) {
	start := d.pos
	end, bad, msg := scanNumber(d.data, d.pos)
	if msg != "" {
		d.pos = bad
		if bad >= len(d.data) {
			return nil, d.errAt(bad, "invalid number: unexpected end of input, %s", msg)
		}
		return nil, d.errAt(bad, "invalid number: %s", msg)
	}
	d.pos = end
	num := d.data[start:end]
	e := bytes.IndexAny(num, "eE")
	mant := len(num)
	if e >= 0 {
		mant = e
	}
	digits := 0
	for i := 0; i < mant; i++ {
		if isDigit(num[i]) {
			if digits++; digits > d.maxDigits {
				return nil, d.errAt(start+i, "number exceeds the limit of %d digits here", d.maxDigits)
			}
		}
	}
	if e >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(string(num[e+1:]), "+"))
		if err != nil || exp > d.maxExponent || exp < -d.maxExponent {
			return nil, d.errAt(start+e+1, "number exponent %s is beyond the limit of ±%d", num[e+1:], d.maxExponent)
		}
	}
	if d.discard > 0 {
		return nil, nil
	}
	return json.Number(num), nil
}

// scanNumber matches the RFC 8259 number grammar at data[i:]. It returns the
// end of the number, or the offset of the offending byte and what was
// expected there. It is shared by Decode and by Marshal's json.Number check.
func scanNumber[T []byte | string](data T, i int) (end, bad int, msg string) {
	n := len(data)
	if i < n && data[i] == '-' {
		i++
	}
	switch {
	case i >= n || !isDigit(data[i]):
		return 0, i, "expected a digit"
	case data[i] == '0':
		i++
		if i < n && isDigit(data[i]) {
			return 0, i, "leading zeros are not allowed"
		}
	default:
		for i < n && isDigit(data[i]) {
			i++
		}
	}
	if i < n && data[i] == '.' {
		i++
		if i >= n || !isDigit(data[i]) {
			return 0, i, "expected a digit after the decimal point"
		}
		for i < n && isDigit(data[i]) {
			i++
		}
	}
	if i < n && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= n || !isDigit(data[i]) {
			return 0, i, "expected a digit in the exponent"
		}
		for i < n && isDigit(data[i]) {
			i++
		}
	}
	return i, 0, ""
}

// plain[c] is true for bytes that stand for themselves inside a string, so
// the common case is one table lookup per byte.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str scans the string starting at the quote at d.pos and returns its
// unescaped bytes. The result aliases the input or d.scratch and is valid
// only until the next call, so callers copy it (string conversion) at once.
func (d *decoder) str() ([]byte, error) {
	open := d.pos
	data := d.data
	i := open + 1
	start := i
	// Fast path: no escapes, so the result is a subslice of the input.
	for {
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return nil, d.errAt(open, "unterminated string")
		}
		c := data[i]
		if c == '"' {
			d.pos = i + 1
			return data[start:i], nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, d.errAt(i, "control character %U in string must be escaped", rune(c))
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return nil, d.errAt(i, "invalid UTF-8 byte 0x%02x in string", c)
		}
		i += size
	}
	// Slow path: copy what was scanned and unescape the rest into scratch.
	buf := append(d.scratch[:0], data[start:i]...)
	defer func() { d.scratch = buf[:0] }()
	for {
		for i < len(data) && plain[data[i]] {
			buf = append(buf, data[i])
			i++
		}
		if i >= len(data) {
			return nil, d.errAt(open, "unterminated string")
		}
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return buf, nil
		case c == '\\':
			var err error
			if buf, i, err = d.escape(buf, i); err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, d.errAt(i, "control character %U in string must be escaped", rune(c))
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, d.errAt(i, "invalid UTF-8 byte 0x%02x in string", c)
			}
			buf = append(buf, data[i:i+size]...)
			i += size
		}
	}
}

// escape decodes the escape sequence whose backslash is at data[i], appends
// it to buf and returns the offset after it.
func (d *decoder) escape(buf []byte, i int) ([]byte, int, error) {
	data := d.data
	if i+1 >= len(data) {
		return nil, 0, d.errAt(i, "unterminated escape sequence")
	}
	switch c := data[i+1]; c {
	case '"', '\\', '/':
		return append(buf, c), i + 2, nil
	case 'b':
		return append(buf, '\b'), i + 2, nil
	case 'f':
		return append(buf, '\f'), i + 2, nil
	case 'n':
		return append(buf, '\n'), i + 2, nil
	case 'r':
		return append(buf, '\r'), i + 2, nil
	case 't':
		return append(buf, '\t'), i + 2, nil
	case 'u':
		r, err := d.hex4(i)
		if err != nil {
			return nil, 0, err
		}
		switch {
		case 0xDC00 <= r && r <= 0xDFFF:
			return nil, 0, d.errAt(i, "unpaired surrogate escape \\u%04x", r)
		case 0xD800 <= r && r <= 0xDBFF:
			// A high surrogate must be followed at once by a low one.
			j := i + 6
			if j+1 >= len(data) || data[j] != '\\' || data[j+1] != 'u' {
				return nil, 0, d.errAt(i, "unpaired surrogate escape \\u%04x", r)
			}
			lo, err := d.hex4(j)
			if err != nil {
				return nil, 0, err
			}
			if lo < 0xDC00 || lo > 0xDFFF {
				return nil, 0, d.errAt(i, "unpaired surrogate escape \\u%04x", r)
			}
			r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			return utf8.AppendRune(buf, r), j + 6, nil
		}
		return utf8.AppendRune(buf, r), i + 6, nil
	default:
		if c < utf8.RuneSelf && c >= 0x20 {
			return nil, 0, d.errAt(i, "invalid escape sequence \\%c", c)
		}
		return nil, 0, d.errAt(i, "invalid escape sequence")
	}
}

// hex4 decodes the four hex digits of the \u escape whose backslash is at i.
func (d *decoder) hex4(i int) (rune, error) {
	var r rune
	for k := i + 2; k < i+6; k++ {
		if k >= len(d.data) {
			return 0, d.errAt(k, "unexpected end of input in \\u escape")
		}
		c := d.data[k]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			d.pos = k
			return 0, d.unexpected("a hex digit in \\u escape")
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// enter checks the depth limit before descending into the container whose
// opening bracket is at d.pos.
func (d *decoder) enter() error {
	if d.depth >= d.maxDepth {
		return d.errAt(d.pos, "nesting deeper than the limit of %d", d.maxDepth)
	}
	d.depth++
	return nil
}

func (d *decoder) array() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++
	d.skipWS()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return []any{}, nil
	}
	base := len(d.stack)
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		if d.discard == 0 {
			d.stack = append(d.stack, v)
		}
		more, ok := d.next(']')
		if !ok {
			return nil, d.unexpected("',' or ']'")
		}
		if more {
			continue
		}
		if d.discard > 0 {
			return nil, nil
		}
		// Copy out to an exactly sized slice; the shared stack keeps
		// its capacity for the next array.
		out := make([]any, len(d.stack)-base)
		copy(out, d.stack[base:])
		clear(d.stack[base:])
		d.stack = d.stack[:base]
		return out, nil
	}
}

// next reads what follows an element or member: ',' (another follows: more) or the container's
// close (it ends); ok is false for anything else, which the caller reports.
func (d *decoder) next(close byte) (more, ok bool) {
	d.skipWS()
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ',':
			d.pos++
			return true, true
		case close:
			d.pos++
			d.depth--
			return false, true
		}
	}
	return false, false
}

func (d *decoder) object() (any, error) {
	open := d.pos
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++
	// m holds the members, and finds a key written twice; an object checked and not built
	// (discard) keeps only its keys, in keys.
	var m map[string]any
	var keys keySet
	if d.discard == 0 {
		m = make(map[string]any)
	}
	var o *Object
	if d.ordered && m != nil {
		o = &Object{Keys: []string{}, Vals: []any{}}
	}
	// done is the object read: the map, or the ordered members (nil when not built).
	done := func() any {
		switch {
		case o != nil:
			return o
		case m != nil:
			return m
		}
		return nil
	}
	d.skipWS()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return done(), nil
	}
	for {
		d.skipWS()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.unexpected("a string to start an object key")
		}
		keyAt := d.pos
		b, err := d.str()
		if err != nil {
			return nil, err
		}
		k := d.intern(b)
		dup := false
		if m != nil {
			_, dup = m[k]
		} else {
			dup = keys.add(k)
		}
		if dup {
			line, col := d.lineCol(d.firstKey(open, k))
			return nil, d.errAt(keyAt, "duplicate key %q (first occurrence at %d:%d)",
				k, line, col)
		}
		d.skipWS()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.unexpected("':' after object key")
		}
		d.pos++
		spanned := d.depth == 1 && d.spanKey != "" && k == d.spanKey
		if spanned {
			d.skipWS()
			d.spanStart = d.pos
			if d.skipSpan {
				d.discard++
			}
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		if spanned {
			d.spanEnd = d.pos
			if d.skipSpan {
				d.discard--
				v = nil // a literal or an empty container, which cost nothing to make
			}
		}
		if m != nil {
			m[k] = v
		}
		if o != nil {
			o.Keys, o.Vals = append(o.Keys, k), append(o.Vals, v)
		}
		more, ok := d.next('}')
		if !ok {
			return nil, d.unexpected("',' or '}'")
		}
		if !more {
			return done(), nil
		}
	}
}

// keySet holds the keys of an object read without a map of its members (an object checked and
// not built, or read member by member by a Cursor), to find a key written twice: in place while
// there are few, as such objects mostly are, in a map beyond.
type keySet struct {
	seen [16]string
	n    int
	many map[string]bool
}

// add adds k, and reports whether it was there already.
func (s *keySet) add(k string) (dup bool) {
	switch {
	case s.many != nil:
		dup = s.many[k]
		s.many[k] = true
	case slices.Contains(s.seen[:s.n], k):
		dup = true
	case s.n < len(s.seen):
		s.seen[s.n] = k
		s.n++
	default:
		s.many = make(map[string]bool, 2*len(s.seen))
		for _, x := range s.seen {
			s.many[x] = true
		}
		s.many[k] = true
	}
	return dup
}

// firstKey returns the offset of the first occurrence of key in the object
// opening at open. It re-scans the object, which is already known to be
// well-formed up to the duplicate; this keeps per-key offsets off the happy
// path at the price of a second scan on the (rare) error path.
func (d *decoder) firstKey(open int, key string) int {
	r := decoder{data: d.data, pos: open + 1, maxDepth: d.maxDepth, maxExponent: d.maxExponent, maxDigits: d.maxDigits, depth: d.depth}
	for {
		r.skipWS()
		at := r.pos
		b, err := r.str()
		if err != nil || string(b) == key {
			return at
		}
		r.skipWS()
		r.pos++ // ':'
		if _, err := r.value(); err != nil {
			return at
		}
		r.skipWS()
		r.pos++ // ','
	}
}

// intern returns a shared string for short keys, since records repeat the
// same few keys many times; the lookup with string(b) does not allocate.
func (d *decoder) intern(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	if s, ok := d.keys[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.keys == nil {
		d.keys = make(map[string]string)
	}
	if len(d.keys) < 4096 {
		d.keys[s] = s
	}
	return s
}
