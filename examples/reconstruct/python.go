package main

// Python emulation shared by the reconstructed lanes: Python values as json.loads builds them,
// json.dumps, repr, truthiness, pydantic's URL normalisation, pydantic-core's JSON float spelling
// and the text of a pydantic ValidationError. Each helper follows CPython or pydantic behaviour
// closely enough for the fixtures' values; where it is an approximation the comment says so.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python values: nil (None), bool, string (str), pyInt (int, exact digits), pyFloat (float, an
// IEEE double), []any (list) and *pyDict (dict, insertion-ordered).

// pyInt is a Python int: arbitrary precision, kept as its canonical decimal digits.
type pyInt string

// pyFloat is a Python float: an IEEE 754 double.
type pyFloat float64

// pyDict is a Python dict: keys in insertion order.
type pyDict struct {
	keys []string
	m    map[string]any
}

func newPyDict() *pyDict { return &pyDict{m: map[string]any{}} }

// set inserts or replaces a key; a replaced key keeps its position, as in CPython.
func (d *pyDict) set(k string, v any) *pyDict {
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
	return d
}

func (d *pyDict) get(k string) (any, bool) {
	if d == nil {
		return nil, false
	}
	v, ok := d.m[k]
	return v, ok
}

// pyD builds a dict from key, value pairs.
func pyD(kv ...any) *pyDict {
	d := newPyDict()
	for i := 0; i+1 < len(kv); i += 2 {
		d.set(kv[i].(string), kv[i+1])
	}
	return d
}

// MarshalJSON writes the dict as pyRaw does, keys in insertion order, so a *pyDict carrier or a
// value holding one marshals as the Python object it stands for.
func (d *pyDict) MarshalJSON() ([]byte, error) { return pyRaw(d), nil }

// MarshalJSON writes the int's exact digits.
func (i pyInt) MarshalJSON() ([]byte, error) { return []byte(i), nil }

// MarshalJSON writes the float as float.__repr__ (NaN and infinities are not JSON: an error).
func (f pyFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return nil, fmt.Errorf("pyFloat %v has no JSON spelling", float64(f))
	}
	return []byte(pyFloatRepr(float64(f))), nil
}

// pyGet is d.get(k): the value, or nil (None) when k is absent or d is nil.
func pyGet(d *pyDict, k string) any {
	v, _ := d.get(k)
	return v
}

// pyString reads a str value: the string, and whether k is present and holds a str.
func pyString(d *pyDict, k string) (string, bool) {
	v, ok := d.get(k)
	s, isStr := v.(string)
	return s, ok && isStr
}

// copy is dict(d): a shallow copy.
func (d *pyDict) copy() *pyDict {
	c := newPyDict()
	for _, k := range d.keys {
		c.set(k, d.m[k])
	}
	return c
}

// pyLoads is json.loads: objects become insertion-ordered dicts (a repeated key keeps its first
// position and its last value), a number with a fraction or an exponent becomes a float (rounded
// to the nearest double, as float() does; strconv.ParseFloat rounds the same way; out of range it
// is ±inf, as float() gives), any other number an exact int ("-0" is 0). Anything but whitespace
// after the value is an error, as json.loads raises "Extra data".
func pyLoads(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := pyLoadValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("Extra data")
	}
	return v, nil
}

func pyLoadValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '{':
			d := newPyDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := pyLoadValue(dec)
				if err != nil {
					return nil, err
				}
				d.set(kt.(string), v)
			}
			_, err := dec.Token()
			return d, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := pyLoadValue(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", x)
	case json.Number:
		return pyNumber(string(x)), nil
	default:
		return x, nil // string, bool, nil
	}
}

// pyNumber is json.loads' reading of one JSON number.
func pyNumber(s string) any {
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			panic(err)
		}
		return pyFloat(f) // out of range: ±inf, as float() gives
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("bad int " + s)
	}
	return pyInt(n.String())
}

// pySeparators is json.dumps' separators argument.
type pySeparators struct{ item, key string }

var (
	pyDefaultSeparators = pySeparators{", ", ": "} // json.dumps with indent=None
	pyCompactSeparators = pySeparators{",", ":"}
)

// pyJSONDumps is json.dumps(v, ensure_ascii=ensureASCII, separators=sep) for JSON-shaped Python
// values: dict order kept, floats as float.__repr__ (NaN and Infinity spelt as json.dumps does),
// ints exact, and strings escaped as the C encoder does (ensure_ascii=True: everything outside
// printable ASCII as lowercase \uXXXX, astral characters as surrogate pairs; ensure_ascii=False:
// only '"', '\\' and control characters below 0x20).
func pyJSONDumps(v any, ensureASCII bool, sep pySeparators) string {
	var b strings.Builder
	pyDumpTo(&b, v, ensureASCII, sep)
	return b.String()
}

func pyDumpTo(b *strings.Builder, v any, ensureASCII bool, sep pySeparators) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case pyInt:
		b.WriteString(string(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case pyFloat:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			b.WriteString("NaN")
		case math.IsInf(f, 1):
			b.WriteString("Infinity")
		case math.IsInf(f, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(pyFloatRepr(f))
		}
	case string:
		b.WriteString(pyJSONString(x, ensureASCII))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(sep.item)
			}
			pyDumpTo(b, e, ensureASCII, sep)
		}
		b.WriteByte(']')
	case *pyDict:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(sep.item)
			}
			b.WriteString(pyJSONString(k, ensureASCII))
			b.WriteString(sep.key)
			pyDumpTo(b, x.m[k], ensureASCII, sep)
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("pyJSONDumps: unsupported %T", v))
	}
}

// pyJSONString is the C encoder's string escaping (Modules/_json.c ascii_escape_unicode and
// escape_unicode).
func pyJSONString(s string, ensureASCII bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(&b, `\u%04x`, r)
			case !ensureASCII || (r >= 0x20 && r <= 0x7e):
				b.WriteRune(r)
			case r > 0xffff:
				hi, lo := utf16Surrogates(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func utf16Surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// pyFloatDigits returns the shortest round-tripping decimal digits of |f| (no leading or
// trailing zeros) and decpt, the position of the decimal point: |f| = 0.d1d2… × 10^decpt. Python's
// repr and Rust's ryu both start from these digits (David Gay's mode 0 and Ryū agree on them).
func pyFloatDigits(f float64) (digits string, decpt int) {
	s := strconv.FormatFloat(math.Abs(f), 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	digits = strings.Replace(mant, ".", "", 1)
	return digits, e + 1
}

// pyFiniteFloat is a finite f as Python's repr and pydantic-core's JSON both write it: a minus
// sign when f is negative (-0.0 included), "0.0" for zero, otherwise what layout makes of the
// shortest digits of |f| and their decimal point (pyFloatDigits); the two differ only there.
func pyFiniteFloat(f float64, layout func(digits string, decpt int) string) string {
	sign := ""
	if math.Signbit(f) {
		sign = "-"
	}
	if f == 0 {
		return sign + "0.0"
	}
	return sign + layout(pyFloatDigits(f))
}

// pyFloatRepr is float.__repr__ (Python/pystrtod.c format_float_short with mode 'r'): the shortest
// digits that round-trip; exponent notation when decpt <= -4 or decpt > 16, with a sign and at
// least two exponent digits (1e-05, 1e+16); otherwise positional with at least one fractional
// digit (1.0, 0.0001).
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return pyFiniteFloat(f, func(digits string, decpt int) string {
		switch {
		case decpt <= -4 || decpt > 16:
			m := digits[:1]
			if len(digits) > 1 {
				m += "." + digits[1:]
			}
			e := decpt - 1
			es := "+"
			if e < 0 {
				es, e = "-", -e
			}
			return fmt.Sprintf("%se%s%02d", m, es, e)
		case decpt <= 0:
			return "0." + strings.Repeat("0", -decpt) + digits
		case decpt >= len(digits):
			return digits + strings.Repeat("0", decpt-len(digits)) + ".0"
		default:
			return digits[:decpt] + "." + digits[decpt:]
		}
	})
}

// pydanticFloatJSON is how pydantic-core writes a float in model_dump_json (serde_json through
// the ryu crate's format64): positional for -5 < decpt <= 16 ("1.0", "0.0001"), otherwise an
// exponent without sign padding ("1e16", "1e-7", "2.5e-7").
func pydanticFloatJSON(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null" // pydantic-core's default ser_json_inf_nan="null"
	}
	return pyFiniteFloat(f, func(digits string, kk int) string {
		k := kk - len(digits)
		switch {
		case k >= 0 && kk <= 16:
			return digits + strings.Repeat("0", k) + ".0"
		case kk > 0 && kk <= 16:
			return digits[:kk] + "." + digits[kk:]
		case kk > -5 && kk <= 0:
			return "0." + strings.Repeat("0", -kk) + digits
		case len(digits) == 1:
			return digits + "e" + strconv.Itoa(kk-1)
		default:
			return digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(kk-1)
		}
	})
}

// pydanticDumpJSON is BaseModel.model_dump_json() for an already dumped value: compact separators,
// non-ASCII characters written as UTF-8 (pydantic-core never escapes them), floats as
// pydanticFloatJSON.
func pydanticDumpJSON(v any) string {
	var b strings.Builder
	pydanticDumpTo(&b, v)
	return b.String()
}

func pydanticDumpTo(b *strings.Builder, v any) {
	switch x := v.(type) {
	case pyFloat:
		b.WriteString(pydanticFloatJSON(float64(x)))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			pydanticDumpTo(b, e)
		}
		b.WriteByte(']')
	case *pyDict:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(pyJSONString(k, false))
			b.WriteByte(':')
			pydanticDumpTo(b, x.m[k])
		}
		b.WriteByte('}')
	default:
		pyDumpTo(b, v, false, pyCompactSeparators)
	}
}

// pyRaw renders a Python value as the JSON bytes a record carries: json.dumps(v,
// ensure_ascii=False, separators=(",", ":")), floats as float.__repr__ (what the Python object
// holds, written the way Python writes it).
func pyRaw(v any) json.RawMessage {
	return json.RawMessage(pyJSONDumps(v, false, pyCompactSeparators))
}

// pyReprStr is str.__repr__: single quotes unless the text holds a single quote and no double
// quote; backslash, the quote, \n, \r and \t escaped; other non-printable characters as \xNN,
// \uNNNN or \UNNNNNNNN (str.isprintable, approximated by unicode.IsPrint, which excludes the same
// categories Cc, Cf, Co, Cs, Cn, Zl, Zp and Zs other than the space).
func pyReprStr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyRepr is repr() of a JSON-shaped Python value.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case pyInt:
		return string(x)
	case int:
		return strconv.Itoa(x)
	case pyFloat:
		return pyFloatRepr(float64(x))
	case string:
		return pyReprStr(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *pyDict:
		parts := make([]string, len(x.keys))
		for i, k := range x.keys {
			parts[i] = pyReprStr(k) + ": " + pyRepr(x.m[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%v", v)
}

// pyTypeName is type(v).__name__.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case pyInt, int:
		return "int"
	case pyFloat:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case *pyDict:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// pyTruthy is bool(v) for JSON-shaped values.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case pyInt:
		return x != "0"
	case pyFloat:
		return x != 0
	case []any:
		return len(x) > 0
	case *pyDict:
		return len(x.keys) > 0
	}
	return true
}

// pydanticError is one line error of a pydantic ValidationError.
type pydanticError struct {
	loc   string // dotted location, by alias
	msg   string
	typ   string
	input any
}

// pydanticValidationError is str(ValidationError) as pydantic-core renders it: a title line,
// then per error the location, the message with [type=…, input_value=…, input_type=…] and the
// documentation URL for the pydantic minor version. input_value is repr(input) truncated to
// its first 25 and last 24 characters around "..." when longer than 50 (pydantic-core's
// truncation, reproduced here by characters: an approximation where it cuts inside a multi-byte
// character).
func pydanticValidationError(title, pydanticMinor string, errs ...pydanticError) string {
	var b strings.Builder
	noun := "errors"
	if len(errs) == 1 {
		noun = "error"
	}
	fmt.Fprintf(&b, "%d validation %s for %s", len(errs), noun, title)
	for _, e := range errs {
		r := []rune(pyRepr(e.input))
		iv := string(r)
		if len(r) > 50 {
			iv = string(r[:25]) + "..." + string(r[len(r)-24:])
		}
		fmt.Fprintf(&b, "\n%s\n  %s [type=%s, input_value=%s, input_type=%s]\n    For further information visit https://errors.pydantic.dev/%s/v/%s",
			e.loc, e.msg, e.typ, iv, pyTypeName(e.input), pydanticMinor, e.typ)
	}
	return b.String()
}

// pydanticURL is str(pydantic.AnyUrl(s)) (pydantic-core's Url, built on the WHATWG parser of the
// Rust url crate) for the URLs a tool result carries: scheme and host lowercased, a default port
// (or an empty one) dropped, and an empty path of a special scheme (http, https, ws, wss, ftp,
// file) written as "/" — the trailing slash that "https://example.com" gains. Other URLs are
// returned with only the scheme lowercased; an unparseable one is reported as an error with
// pydantic's url_parsing message. Percent-encoding and IDNA normalisation are not modelled.
func pydanticURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("Input should be a valid URL, relative URL without a base")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	special := map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21", "file": ""}
	port, isSpecial := special[u.Scheme]
	if !isSpecial || u.Opaque != "" {
		return u.Scheme + s[len(u.Scheme):], nil
	}
	host := strings.ToLower(u.Host) // keeps an IPv6 literal's brackets
	if p := u.Port(); p == port {
		host = strings.TrimSuffix(host, ":"+p)
	}
	u.Host = strings.TrimSuffix(host, ":")
	if u.Path == "" {
		u.Path = "/"
		u.RawPath = ""
	}
	return u.String(), nil
}

// pyB64Decode is base64.b64decode(s) (validate=False): characters outside the base64 alphabet are
// discarded, then the padding must be right ("Incorrect padding" otherwise).
func pyB64Decode(s string) ([]byte, error) {
	var clean strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=') {
			clean.WriteRune(r)
		}
	}
	b, err := base64.StdEncoding.DecodeString(clean.String())
	if err != nil {
		return nil, errors.New("Incorrect padding")
	}
	return b, nil
}

// pyB64Encode is base64.b64encode(b).decode(): standard alphabet, padded.
func pyB64Encode(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
