package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeValueCases are valid documents and what Decode makes of them (TestDecodeValues; the
// array reader's tests read each inside arrays too).
var decodeValueCases = []struct {
	name string
	in   string
	want any
}{
	{name: "null", in: "null", want: nil},
	{name: "true with whitespace", in: " \t\r\ntrue\n", want: true},
	{name: "false", in: "false", want: false},
	{name: "empty array is non-nil", in: "[ ]", want: []any{}},
	{name: "empty object", in: "{ }", want: map[string]any{}},
	{name: "big integer verbatim", in: "12345678901234567891", want: json.Number("12345678901234567891")},
	{name: "trailing zero fraction kept", in: "1.0", want: json.Number("1.0")},
	{name: "negative zero kept", in: "-0", want: json.Number("-0")},
	{name: "exponent spelling kept", in: "1E+02", want: json.Number("1E+02")},
	{name: "exponent at the limit kept", in: "1e10000", want: json.Number("1e10000")},
	{name: "zero fraction", in: "0.000", want: json.Number("0.000")},
	{name: "simple escapes", in: `"\"\\\/\b\f\n\r\t"`, want: "\"\\/\b\f\n\r\t"},
	{name: "unicode escape", in: `"\u00e9\u20AC"`, want: "é€"},
	{name: "NUL escape", in: `"a\u0000b"`, want: "a\x00b"},
	{name: "surrogate pair", in: `"\ud83d\ude00"`, want: "😀"},
	{name: "raw UTF-8", in: `"héllo 😀"`, want: "héllo 😀"},
	{name: "escape after raw UTF-8", in: `"é\n"`, want: "é\n"},
	{name: "DEL and U+2028 raw", in: "\"\x7f\u2028\"", want: "\x7f\u2028"},
	{
		name: "nested",
		in:   `{"a":[1,{"b":null}],"c":{"d":"e"},"é":-1.5e-3}`,
		want: map[string]any{
			"a": []any{json.Number("1"), map[string]any{"b": nil}},
			"c": map[string]any{"d": "e"},
			"é": json.Number("-1.5e-3"),
		},
	},
	{name: "escaped keys are distinct keys", in: `{"a\n":1,"a":2}`, want: map[string]any{"a\n": json.Number("1"), "a": json.Number("2")}},
}

func TestDecodeValues(t *testing.T) {
	for _, tt := range decodeValueCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode("in.json", []byte(tt.in), DefaultLimits)
			if err != nil {
				t.Fatalf("Decode(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Decode(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestDecodeBigNumbersFile(t *testing.T) {
	got, err := Decode("bignums.json", readTestdata(t, "bignums.json"), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"big":  json.Number("12345678901234567891"),
		"neg":  json.Number("-98765432109876543210987654321"),
		"exp":  json.Number("1.000E+400"),
		"tiny": json.Number("5e-400"),
		"zero": json.Number("-0.0"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

// deep is n arrays, each in the one before.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// decodeErrorCases are documents Decode refuses, and its error (TestDecodeErrors; the array
// reader's tests read each inside arrays too).
var decodeErrorCases = []struct {
	name   string
	in     string
	file   string // read the input from testdata instead
	lim    Limits
	want   string // the full Error() text
	offset int64  // checked when non-zero
}{
	// Structure.
	{name: "empty input", in: "", want: "in.json:1:1: unexpected end of input, expected a JSON value"},
	{name: "only whitespace", in: "  \n ", want: "in.json:2:2: unexpected end of input, expected a JSON value"},
	{name: "trailing garbage", in: "{} x", want: `in.json:1:4: unexpected 'x', expected end of input after the top-level value`},
	{name: "two values", in: "1 2", want: `in.json:1:3: unexpected '2', expected end of input after the top-level value`},
	{name: "trailing comma in array", in: "[1,]", want: `in.json:1:4: unexpected ']', expected a JSON value`},
	{name: "trailing comma in object", in: `{"a":1,}`, want: `in.json:1:8: unexpected '}', expected a string to start an object key`},
	{name: "missing comma", in: "[1 2]", want: `in.json:1:4: unexpected '2', expected ',' or ']'`},
	{name: "missing colon", in: `{"a" 1}`, want: `in.json:1:6: unexpected '1', expected ':' after object key`},
	{name: "non-string key", in: `{1:2}`, want: `in.json:1:2: unexpected '1', expected a string to start an object key`},
	{name: "single quotes", in: `['a']`, want: `in.json:1:2: unexpected '\'', expected a JSON value`},
	{name: "comment", in: "// x\n1", want: `in.json:1:1: unexpected '/', expected a JSON value`},
	{name: "unclosed array", in: "[1,", want: "in.json:1:4: unexpected end of input, expected a JSON value"},
	{name: "unclosed object", in: "{\"a\":1\n", want: "in.json:2:1: unexpected end of input, expected ',' or '}'"},
	{name: "NUL outside string", in: "\x00", want: `in.json:1:1: unexpected '\x00', expected a JSON value`},
	{name: "byte order mark", in: "\ufeff{}", want: "in.json:1:1: byte order mark (U+FEFF) is not allowed"},
	{name: "unexpected non-ASCII", in: "[é]", want: `in.json:1:2: unexpected 'é', expected a JSON value`},

	// Literals.
	{name: "truncated literal", in: "tru", want: "in.json:1:4: unexpected end of input, expected true"},
	{name: "wrong literal byte", in: "[nul1]", want: "in.json:1:5: unexpected '1', expected null"},
	{name: "capitalised literal", in: "True", want: "in.json:1:1: unexpected 'T', expected a JSON value"},

	// Numbers.
	{name: "leading zero", in: "01", want: "in.json:1:2: invalid number: leading zeros are not allowed"},
	{name: "negative leading zero", in: "[-007]", want: "in.json:1:4: invalid number: leading zeros are not allowed"},
	{name: "exponent beyond the limit", in: "[1, 2e10001]", want: "in.json:1:7: number exponent 10001 is beyond the limit of ±10000"},
	{name: "negative exponent beyond the limit", in: "{\"a\": 1E-99999999999999999999}", want: "in.json:1:9: number exponent -99999999999999999999 is beyond the limit of ±10000"},
	{name: "lone minus", in: "-", want: "in.json:1:2: invalid number: unexpected end of input, expected a digit"},
	{name: "minus letter", in: "-Infinity", want: "in.json:1:2: invalid number: expected a digit"},
	{name: "empty fraction", in: "1.", want: "in.json:1:3: invalid number: unexpected end of input, expected a digit after the decimal point"},
	{name: "fraction letter", in: "[1.e5]", want: "in.json:1:4: invalid number: expected a digit after the decimal point"},
	{name: "empty exponent", in: "1e", want: "in.json:1:3: invalid number: unexpected end of input, expected a digit in the exponent"},
	{name: "signed empty exponent", in: "[1e+]", want: "in.json:1:5: invalid number: expected a digit in the exponent"},
	{name: "leading dot", in: ".5", want: "in.json:1:1: unexpected '.', expected a JSON value"},
	{name: "leading plus", in: "+1", want: "in.json:1:1: unexpected '+', expected a JSON value"},
	{name: "hex", in: "0x10", want: "in.json:1:2: unexpected 'x', expected end of input after the top-level value"},
	{name: "two dots", in: "1.5.2", want: "in.json:1:4: unexpected '.', expected end of input after the top-level value"},
	{name: "NaN", in: "NaN", want: "in.json:1:1: unexpected 'N', expected a JSON value"},

	// Strings and escapes.
	{name: "unterminated string", in: "[\n  \"abc", want: "in.json:2:3: unterminated string"},
	{name: "unterminated after escape", in: `"ab\`, want: `in.json:1:4: unterminated escape sequence`},
	{name: "raw tab in string", in: "\"a\tb\"", want: "in.json:1:3: control character U+0009 in string must be escaped"},
	{name: "raw newline in string", in: "\"é\nb\"", want: "in.json:1:3: control character U+000A in string must be escaped"},
	{name: "invalid escape", in: `"a\x"`, want: `in.json:1:3: invalid escape sequence \x`},
	{name: "invalid escape after escape", in: `"\n\'"`, want: `in.json:1:4: invalid escape sequence \'`},
	{name: "bad hex digit", in: `"\u12G4"`, want: `in.json:1:6: unexpected 'G', expected a hex digit in \u escape`},
	{name: "short unicode escape", in: `"\u12`, want: `in.json:1:6: unexpected end of input in \u escape`},
	{name: "lone high surrogate", in: `"\ud800"`, want: `in.json:1:2: unpaired surrogate escape \ud800`},
	{name: "lone high surrogate at end", in: `"\uD800`, want: `in.json:1:2: unpaired surrogate escape \ud800`},
	{name: "high surrogate then letter", in: `"x\ud800\u0041"`, want: `in.json:1:3: unpaired surrogate escape \ud800`},
	{name: "high surrogate twice", in: `"\ud800\ud800"`, want: `in.json:1:2: unpaired surrogate escape \ud800`},
	{name: "lone low surrogate", in: `"\udc00"`, want: `in.json:1:2: unpaired surrogate escape \udc00`},
	{name: "low surrogate bad hex", in: `"\ud800\uZZZZ"`, want: `in.json:1:10: unexpected 'Z', expected a hex digit in \u escape`},

	// Invalid UTF-8.
	{name: "invalid UTF-8 in string file", file: "invalid_utf8_string.json", want: "invalid_utf8_string.json:1:9: invalid UTF-8 byte 0xff in string", offset: 8},
	{name: "invalid UTF-8 outside string file", file: "invalid_utf8_outside.json", want: "invalid_utf8_outside.json:3:3: invalid UTF-8 byte 0xfe", offset: 9},
	{name: "columns count runes", in: "[\"é\", \"\xff\"]", want: "in.json:1:8: invalid UTF-8 byte 0xff in string", offset: 8},
	{name: "invalid UTF-8 in escaped string", in: "\"\\n\xff\"", want: "in.json:1:4: invalid UTF-8 byte 0xff in string"},
	{name: "overlong encoding", in: "\"\xc0\xaf\"", want: "in.json:1:2: invalid UTF-8 byte 0xc0 in string"},
	{name: "UTF-8 encoded surrogate", in: "\"\xed\xa0\x80\"", want: "in.json:1:2: invalid UTF-8 byte 0xed in string"},
	{name: "truncated sequence", in: "\"\xe2\x82\"", want: "in.json:1:2: invalid UTF-8 byte 0xe2 in string"},
	{name: "invalid UTF-8 in key", in: "{\"\xff\":1}", want: "in.json:1:3: invalid UTF-8 byte 0xff in string"},
	{name: "invalid UTF-8 after value", in: "1\xff", want: "in.json:1:2: invalid UTF-8 byte 0xff"},
	{name: "invalid byte counts as one column", in: "[\"\xff\xfe\"]", want: "in.json:1:3: invalid UTF-8 byte 0xff in string"},

	// Duplicate keys.
	{name: "duplicate key", in: "{\n  \"a\": 1,\n  \"a\": 2\n}", want: `in.json:3:3: duplicate key "a" (first occurrence at 2:3)`, offset: 14},
	{name: "duplicate key via escape", in: `{"x":{"k":1,"\u006b":2}}`, want: `in.json:1:13: duplicate key "k" (first occurrence at 1:7)`},
	{name: "duplicate after nested values", in: `{"a":{"a":1,"b":[{"a":2}]},"b":3,"a":4}`, want: `in.json:1:34: duplicate key "a" (first occurrence at 1:2)`},
	{name: "duplicate with CRLF", in: "{\r\n\"a\":1,\r\n\"a\":2}", want: `in.json:3:1: duplicate key "a" (first occurrence at 2:1)`},
	{name: "duplicate empty key", in: `{"":1,"":2}`, want: `in.json:1:7: duplicate key "" (first occurrence at 1:2)`},
	{name: "duplicate among many keys", in: manyKeys(20, 3), want: `in.json:1:172: duplicate key "k03" (first occurrence at 1:26)`},

	// Limits.
	{name: "depth over custom limit", in: deep(4), lim: Limits{MaxDepth: 3}, want: "in.json:1:4: nesting deeper than the limit of 3"},
	{name: "depth over default limit", in: deep(257), want: "in.json:1:257: nesting deeper than the limit of 256"},
	{name: "depth counts objects", in: `{"a":{"b":[{}]}}`, lim: Limits{MaxDepth: 3}, want: "in.json:1:12: nesting deeper than the limit of 3"},
	{name: "size over limit", in: "12345", lim: Limits{MaxBytes: 4}, want: "in.json:1:1: input is 5 bytes, over the limit of 4 bytes"},
}

// manyKeys is an object of n distinct keys k00…, then key k<dup> again.
func manyKeys(n, dup int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, `"k%02d":%d,`, i, i)
	}
	fmt.Fprintf(&b, `"k%02d":0}`, dup)
	return b.String()
}

func TestDecodeErrors(t *testing.T) {
	for _, tt := range decodeErrorCases {
		t.Run(tt.name, func(t *testing.T) {
			data, file := []byte(tt.in), "in.json"
			if tt.file != "" {
				data, file = readTestdata(t, tt.file), tt.file
			}
			v, err := Decode(file, data, tt.lim)
			if err == nil {
				t.Fatalf("Decode(%q) = %#v, want error %q", data, v, tt.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *SyntaxError", err, err)
			}
			if got := err.Error(); got != tt.want {
				t.Fatalf("Decode(%q) error\n got  %s\n want %s", data, got, tt.want)
			}
			if tt.offset != 0 && se.Offset != tt.offset {
				t.Fatalf("Offset = %d, want %d", se.Offset, tt.offset)
			}
			if v != nil {
				t.Fatalf("value %#v returned with error", v)
			}
		})
	}
}

func TestDecodeLimitsBoundaries(t *testing.T) {
	tests := []struct {
		name string
		in   string
		lim  Limits
	}{
		{name: "depth exactly at limit", in: "[[[]]]", lim: Limits{MaxDepth: 3}},
		{name: "default depth exactly at limit", in: strings.Repeat("[", 256) + strings.Repeat("]", 256)},
		{name: "size exactly at limit", in: "1234", lim: Limits{MaxBytes: 4}},
		{name: "scalars have depth zero", in: "1", lim: Limits{MaxDepth: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode("in.json", []byte(tt.in), tt.lim); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSyntaxErrorWithoutFile(t *testing.T) {
	_, err := Decode("", []byte("["), DefaultLimits)
	if got, want := err.Error(), "1:2: unexpected end of input, expected a JSON value"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "scalars", in: []any{nil, true, false, "s", json.Number("1.0")}, want: `[null,true,false,"s",1.0]`},
		{name: "keys sorted by bytes", in: map[string]any{"b": 1, "a": 2, "B": 3, "é": 4, "aa": 5, "": 6}, want: `{"":6,"B":3,"a":2,"aa":5,"b":1,"é":4}`},
		{name: "no HTML escaping", in: "<a href='x'>&</a>", want: `"<a href='x'>&</a>"`},
		{name: "minimal escapes", in: "\"\\/\b\f\n\r\t\x00\x1f\x7f\u2028é", want: `"\"\\/\b\f\n\r\t\u0000\u001f` + "\x7f\u2028é\""},
		{name: "numbers verbatim", in: []any{json.Number("12345678901234567891"), json.Number("1E+02"), json.Number("-0")}, want: `[12345678901234567891,1E+02,-0]`},
		{name: "int and int64", in: []any{-3, int64(math.MaxInt64)}, want: `[-3,9223372036854775807]`},
		{name: "float64 shortest", in: []any{0.1, 1e21, 1e-7, 0.0, 100.0, 2.5}, want: `[0.1,1e+21,1e-07,0,100,2.5]`},
		{name: "negative zero float", in: math.Copysign(0, -1), want: `-0`},
		{name: "string slice and map", in: map[string]any{"l": []string{"x", "y"}, "m": map[string]string{"z": "1", "a": "2"}}, want: `{"l":["x","y"],"m":{"a":"2","z":"1"}}`},
		{name: "empty containers", in: []any{[]any{}, map[string]any{}, []string{}, map[string]string{}}, want: `[[],{},[],{}]`},
		{name: "nil slice is an empty array", in: []any(nil), want: `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("Marshal = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMarshalErrors(t *testing.T) {
	cyclic := []any{nil}
	cyclic[0] = cyclic
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "unsupported type", in: map[string]any{"a": []any{1, make(chan int)}}, want: `strictjson: cannot marshal value at /a/1: unsupported type chan int`},
		{name: "pointer escaping", in: map[string]any{"a/b~c": int8(1)}, want: `strictjson: cannot marshal value at /a~1b~0c: unsupported type int8`},
		{name: "top level", in: struct{}{}, want: `strictjson: cannot marshal value at "": unsupported type struct {}`},
		{name: "NaN", in: []any{math.NaN()}, want: `strictjson: cannot marshal value at /0: NaN is not a JSON number`},
		{name: "infinity", in: math.Inf(-1), want: `strictjson: cannot marshal value at "": -Inf is not a JSON number`},
		{name: "invalid json.Number", in: json.Number("01"), want: `strictjson: cannot marshal value at "": invalid json.Number "01"`},
		{name: "empty json.Number", in: json.Number(""), want: `strictjson: cannot marshal value at "": invalid json.Number ""`},
		{name: "invalid UTF-8 string", in: []string{"ok", "a\xffb"}, want: `strictjson: cannot marshal value at /1: string "a\xffb" is not valid UTF-8`},
		{name: "invalid UTF-8 key", in: map[string]string{"\xff": "x"}, want: `strictjson: cannot marshal value at "": object key "\xff" is not valid UTF-8`},
		{name: "cyclic", in: cyclic, want: "nesting deeper than 10000 (cyclic value?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err == nil {
				t.Fatalf("Marshal = %s, want error", got)
			}
			if !strings.Contains(err.Error(), tt.want) || (tt.name != "cyclic" && err.Error() != tt.want) {
				t.Fatalf("error\n got  %s\n want %s", err, tt.want)
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "compact and sorted", in: "{ \"b\" : 1.0 ,\n \"a\" : [ true , null , \"x\" ] }", want: `{"a":[true,null,"x"],"b":1.0}`},
		{name: "escapes normalised", in: `"\u0041\/\u00e9\ud83d\ude00\u001F\u007f"`, want: "\"A/é😀\\u001f\x7f\""},
		{name: "big numbers verbatim", in: `[12345678901234567891, -1.50E-400]`, want: `[12345678901234567891,-1.50E-400]`},
		{name: "nested sorting", in: `{"z":{"y":1,"x":2},"a":[{"c":3,"b":4}]}`, want: `{"a":[{"b":4,"c":3}],"z":{"x":2,"y":1}}`},
		{name: "bignums file", in: string(readTestdata(t, "bignums.json")), want: `{"big":12345678901234567891,"exp":1.000E+400,"neg":-98765432109876543210987654321,"tiny":5e-400,"zero":-0.0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Decode("in.json", []byte(tt.in), DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Fatalf("Marshal = %s, want %s", out, tt.want)
			}
			v2, err := Decode("out.json", out, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v, v2) {
				t.Fatalf("round trip changed the tree: %#v vs %#v", v, v2)
			}
		})
	}
}

type record struct {
	line int
	v    any
	err  string
}

// readLine is line as a LineReader reads it (the line of a file holding only it); t fails at once
// when the reader refuses it.
func readLine(t *testing.T, line string) Line {
	t.Helper()
	l, err := NewLineReader("in.jsonl", strings.NewReader(line+"\n"), DefaultLimits).NextLine()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func readAll(t *testing.T, lr *LineReader) []record {
	t.Helper()
	var got []record
	for i := 0; i < 100; i++ {
		line, v, err := lr.Next()
		if err == io.EOF {
			if line != 0 || v != nil {
				t.Fatalf("EOF with line %d value %#v", line, v)
			}
			return got
		}
		r := record{line: line, v: v}
		if err != nil {
			r.err = err.Error()
		}
		got = append(got, r)
	}
	t.Fatal("reader does not reach EOF")
	return nil
}

// readAllLines is readAll through NextLine, each line decoded by dec.
func readAllLines(t *testing.T, lr *LineReader, dec *LineDecoder) []record {
	t.Helper()
	var got []record
	for i := 0; i < 100; i++ {
		l, err := lr.NextLine()
		if err == io.EOF {
			return got
		}
		r := record{line: l.Number}
		if err == nil {
			r.v, err = dec.Decode(l)
		}
		if err != nil {
			r.err = err.Error()
		}
		got = append(got, r)
	}
	t.Fatal("reader does not reach EOF")
	return nil
}

func TestLineReader(t *testing.T) {
	long := `["` + strings.Repeat("x", 200<<10) + `"]` // longer than bufio's buffer
	tests := []struct {
		name string
		in   string // used when file is empty
		file string
		lim  Limits
		want []record
	}{
		{
			name: "records file with blank lines",
			file: "records.jsonl",
			want: []record{
				{line: 1, v: map[string]any{"id": json.Number("1")}},
				{line: 4, v: map[string]any{"id": json.Number("2"), "n": json.Number("12345678901234567891")}},
				{line: 5, err: `records.jsonl:5:9: duplicate key "id" (first occurrence at 5:2)`},
				{line: 6, err: `records.jsonl:6:5: unexpected end of input, expected ',' or ']'`},
				{line: 8, v: "last"},
			},
		},
		{name: "empty input", in: "", want: nil},
		{name: "only blank lines", in: "\n \n\t\r\n", want: nil},
		{
			name: "line over the limit is skipped",
			in:   "[1]\n[11111111111111111111]\n[2]\n",
			lim:  Limits{MaxBytes: 10},
			want: []record{
				{line: 1, v: []any{json.Number("1")}},
				{line: 2, err: "in.jsonl:2:1: line 2 is 22 bytes, over the limit of 10 bytes"},
				{line: 3, v: []any{json.Number("2")}},
			},
		},
		{
			name: "line exactly at the limit",
			in:   "[123456]\n[1234567]",
			lim:  Limits{MaxBytes: 8},
			want: []record{
				{line: 1, v: []any{json.Number("123456")}},
				{line: 2, err: "in.jsonl:2:1: line 2 is 9 bytes, over the limit of 8 bytes"},
			},
		},
		{
			name: "long line over bufio's buffer within the limit",
			in:   "1\n" + long + "\n2",
			want: []record{
				{line: 1, v: json.Number("1")},
				{line: 2, v: []any{strings.Repeat("x", 200<<10)}},
				{line: 3, v: json.Number("2")},
			},
		},
		{
			name: "long line over bufio's buffer and the limit",
			in:   "1\n" + long + "\n2\n",
			lim:  Limits{MaxBytes: 100 << 10},
			want: []record{
				{line: 1, v: json.Number("1")},
				{line: 2, err: "in.jsonl:2:1: line 2 is 204804 bytes, over the limit of 102400 bytes"},
				{line: 3, v: json.Number("2")},
			},
		},
		{
			name: "depth limit per line",
			in:   "[[1]]\n[[[1]]]\n",
			lim:  Limits{MaxDepth: 2},
			want: []record{
				{line: 1, v: []any{[]any{json.Number("1")}}},
				{line: 2, err: "in.jsonl:2:3: nesting deeper than the limit of 2"},
			},
		},
		{
			name: "two values on one line",
			in:   "1 2\n",
			want: []record{{line: 1, err: "in.jsonl:1:3: unexpected '2', expected end of input after the top-level value"}},
		},
		{
			name: "invalid UTF-8 with rune columns",
			in:   "\"ok\"\n[\"é\",\"\xff\"]\n",
			want: []record{
				{line: 1, v: "ok"},
				{line: 2, err: "in.jsonl:2:7: invalid UTF-8 byte 0xff in string"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.in)
			file := "in.jsonl"
			if tt.file != "" {
				r, file = strings.NewReader(string(readTestdata(t, tt.file))), tt.file
			}
			got := readAll(t, NewLineReader(file, r, tt.lim))
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
			// Reading lines on one goroutine and decoding them with a LineDecoder
			// gives the same values and the same errors, positions included.
			r = strings.NewReader(tt.in)
			if tt.file != "" {
				r = strings.NewReader(string(readTestdata(t, tt.file)))
			}
			if got := readAllLines(t, NewLineReader(file, r, tt.lim), NewLineDecoder(tt.lim)); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("NextLine and LineDecoder: got %#v\nwant %#v", got, tt.want)
			}
			// Chunking of the underlying reader must not matter.
			if tt.file == "" {
				got = readAll(t, NewLineReader(file, iotest.OneByteReader(strings.NewReader(tt.in)), tt.lim))
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("one byte reader: got %#v\nwant %#v", got, tt.want)
				}
			}
		})
	}
}

func TestLineReaderOffsets(t *testing.T) {
	lr := NewLineReader("records.jsonl", strings.NewReader(string(readTestdata(t, "records.jsonl"))), DefaultLimits)
	var offsets []int64
	for {
		_, _, err := lr.Next()
		if err == io.EOF {
			break
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			offsets = append(offsets, se.Offset)
		}
	}
	// Line 5 starts at byte 49 ("id" at column 9), line 6 at byte 65 (end at column 5).
	if want := []int64{57, 69}; !reflect.DeepEqual(offsets, want) {
		t.Fatalf("offsets %v, want %v", offsets, want)
	}
}

func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader("in.jsonl", io.MultiReader(strings.NewReader("1\n"), iotest.ErrReader(boom)), DefaultLimits)
	if line, v, err := lr.Next(); err != nil || line != 1 || !Equal(v, 1) {
		t.Fatalf("first record: %d %v %v", line, v, err)
	}
	for range 2 { // sticky
		_, _, err := lr.Next()
		if !errors.Is(err, boom) || err.Error() != "in.jsonl: reading line 2: boom" {
			t.Fatalf("got %v, want wrapped boom", err)
		}
	}
}

func TestEqual(t *testing.T) {
	num := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{name: "nulls", a: nil, b: nil, want: true},
		{name: "null is not false", a: nil, b: false, want: false},
		{name: "bools", a: true, b: true, want: true},
		{name: "different bools", a: true, b: false, want: false},
		{name: "strings", a: "é", b: "é", want: true},
		{name: "string is not number", a: "1", b: num("1"), want: false},
		{name: "exponent equals integer", a: num("1e2"), b: num("100"), want: true},
		{name: "trailing fraction zeros", a: num("1.0"), b: num("1"), want: true},
		{name: "negative exponent", a: num("0.01"), b: num("1E-2"), want: true},
		{name: "positive signed exponent", a: num("1.5e+3"), b: num("1500"), want: true},
		{name: "big integers differ", a: num("12345678901234567891"), b: num("12345678901234567000"), want: false},
		{name: "big integers equal", a: num("12345678901234567891"), b: num("1234567890123456789.1e1"), want: true},
		{name: "negative zero", a: num("-0"), b: num("0.0e5"), want: true},
		{name: "sign matters", a: num("-1"), b: num("1"), want: false},
		{name: "huge exponents", a: num("1e999999999999999999999"), b: num("10e999999999999999999998"), want: true},
		{name: "huge exponents differ", a: num("1e999999999999999999999"), b: num("1e999999999999999999998"), want: false},
		{name: "tiny numbers differ", a: num("1e-400"), b: num("0"), want: false},
		{name: "int vs number", a: 100, b: num("1e2"), want: true},
		{name: "int64 vs number", a: int64(-7), b: num("-7.000"), want: true},
		{name: "float64 vs number", a: 0.1, b: num("0.1"), want: true},
		{name: "float64 is not rounded", a: 0.1, b: num("0.1000000000000000055511151231257827"), want: false},
		{name: "invalid number equals nothing", a: num("abc"), b: num("abc"), want: false},
		{name: "NaN equals nothing", a: math.NaN(), b: math.NaN(), want: false},
		{name: "arrays ordered", a: []any{num("1"), num("2")}, b: []any{num("2"), num("1")}, want: false},
		{name: "arrays equal", a: []any{num("1"), "x"}, b: []any{num("1.0"), "x"}, want: true},
		{name: "array lengths", a: []any{num("1")}, b: []any{num("1"), nil}, want: false},
		{name: "empty array is not empty object", a: []any{}, b: map[string]any{}, want: false},
		{name: "key order irrelevant", a: map[string]any{"a": num("1"), "b": nil}, b: map[string]any{"b": nil, "a": num("1e0")}, want: true},
		{name: "missing vs null key", a: map[string]any{"a": nil}, b: map[string]any{"b": nil}, want: false},
		{name: "object sizes", a: map[string]any{"a": nil}, b: map[string]any{"a": nil, "b": nil}, want: false},
		{name: "nested difference", a: map[string]any{"a": []any{map[string]any{"b": num("1")}}}, b: map[string]any{"a": []any{map[string]any{"b": num("2")}}}, want: false},
		{name: "string slice vs tree", a: []string{"a", "b"}, b: []any{"a", "b"}, want: true},
		{name: "string map vs tree", a: map[string]string{"k": "v"}, b: map[string]any{"k": "v"}, want: true},
		{name: "unsupported type", a: struct{}{}, b: struct{}{}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Equal(tt.a, tt.b); got != tt.want {
				t.Fatalf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Equal(tt.b, tt.a); got != tt.want {
				t.Fatalf("Equal is not symmetric for %#v, %#v", tt.a, tt.b)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	seeds := []string{
		``, `null`, `[1,2,{"a":"b"}]`, `{"a":1,"a":2}`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xff\"",
		`12345678901234567891`, `-0.0e-0`, `1E+400`, `[[[[[[]]]]]]`, `{"k":{"k":[true,false,null]}}`,
		"\ufeff1", `"\u0000\n\t<>&"`, `{"":""}`, "[1,]", "01", "1.", `"\x"`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add(readTestdata(f, "bignums.json"))
	f.Add(readTestdata(f, "records.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode("fuzz.json", data, Limits{MaxDepth: 64})
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 || se.Offset < 0 || se.Offset > int64(len(data)) {
				t.Fatalf("bad error %#v", err)
			}
			return
		}
		// Whatever strict reading accepts, encoding/json must accept too.
		if !json.Valid(data) {
			t.Fatalf("Decode accepted %q, which encoding/json rejects", data)
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("Marshal(Decode(%q)): %v", data, err)
		}
		v2, err := Decode("out.json", out, Limits{MaxDepth: 64})
		if err != nil {
			t.Fatalf("Decode(Marshal(Decode(%q))) = %q: %v", data, out, err)
		}
		if !Equal(v, v2) {
			t.Fatalf("round trip of %q gave %q, not Equal", data, out)
		}
		// The encoding is canonical: a second round gives the same bytes.
		out2, err := Marshal(v2)
		if err != nil || string(out2) != string(out) {
			t.Fatalf("Marshal not canonical: %q vs %q (%v)", out, out2, err)
		}
	})
}

// benchDoc builds a deterministic ~50 KB document shaped like the checker's
// inputs: objects with repeated keys, strings with escapes and non-ASCII,
// integers, decimals and nesting.
func benchDoc() []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"content":[`)
	for i := 0; b.Len() < 50<<10; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"type":"text","text":"line ` + strconv.Itoa(i) + ` with \"quotes\", é and \u00e9\n",`)
		b.WriteString(`"annotations":{"priority":0.` + strconv.Itoa(i%10) + `,"audience":["user","assistant"]},`)
		b.WriteString(`"size":` + strconv.Itoa(i*7919) + `,"_meta":{"seq":12345678901234567` + strconv.Itoa(i%10) + `,"ok":true,"nil":null}}`)
	}
	b.WriteString(`],"isError":false}}`)
	return []byte(b.String())
}

func BenchmarkDecode(b *testing.B) {
	data := benchDoc()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode("bench.json", data, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTypeName(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "null", in: nil, want: "null"},
		{name: "boolean", in: false, want: "boolean"},
		{name: "string", in: "", want: "string"},
		{name: "array", in: []any{}, want: "array"},
		{name: "object", in: map[string]any{}, want: "object"},
		{name: "number", in: json.Number("1e2"), want: "number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TypeName(tc.in); got != tc.want {
				t.Errorf("TypeName(%v) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// DecodeSpan returns the bytes of one member of the top-level object as written, and only of
// the top-level object; the value decodes as Decode would.
func TestDecodeSpan(t *testing.T) {
	tests := []struct {
		name, line, key, want string
		found                 bool
	}{
		{name: "object member", line: `{"a": 1, "carrier": {"x": [1, 2.50]} , "b": 2}`, key: "carrier", want: `{"x": [1, 2.50]}`, found: true},
		{name: "scalar member", line: `{"carrier":"s"}`, key: "carrier", want: `"s"`, found: true},
		{name: "null member", line: `{"carrier": null}`, key: "carrier", want: `null`, found: true},
		{name: "nested only", line: `{"a": {"carrier": 1}}`, key: "carrier"},
		{name: "missing", line: `{"a": 1}`, key: "carrier"},
		{name: "not an object", line: `[{"carrier": 1}]`, key: "carrier"},
		{name: "no key asked", line: `{"carrier": 1}`, key: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, span, err := NewLineDecoder(DefaultLimits).DecodeSpan(readLine(t, tc.line), tc.key)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := Decode("in.jsonl", []byte(tc.line), DefaultLimits)
			if !reflect.DeepEqual(v, want) {
				t.Errorf("value %#v, want %#v", v, want)
			}
			if (span != nil) != tc.found || string(span) != tc.want {
				t.Errorf("span %q (found %v), want %q (found %v)", span, span != nil, tc.want, tc.found)
			}
		})
	}
}
