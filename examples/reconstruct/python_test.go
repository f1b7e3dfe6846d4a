package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func mustLoad(t *testing.T, s string) any {
	t.Helper()
	v, err := pyLoads([]byte(s))
	if err != nil {
		t.Fatalf("pyLoads(%q): %v", s, err)
	}
	return v
}

func TestPyJSONDumps(t *testing.T) {
	cases := []struct {
		name        string
		in          string
		ensureASCII bool
		sep         pySeparators
		want        string
	}{
		// Expected values are what CPython 3.12 prints for json.dumps(json.loads(in), ...).
		{name: "default separators keep key order", in: `{"b":1,"a":[1,2]}`, ensureASCII: true, sep: pyDefaultSeparators, want: `{"b": 1, "a": [1, 2]}`},
		{name: "compact separators", in: `{"b":1,"a":[1,2]}`, ensureASCII: false, sep: pyCompactSeparators, want: `{"b":1,"a":[1,2]}`},
		{name: "ensure_ascii escapes BMP lowercase", in: `"Café — ok"`, ensureASCII: true, sep: pyDefaultSeparators, want: `"Caf\u00e9 \u2014 ok"`},
		{name: "ensure_ascii escapes astral as surrogate pair", in: `"📦"`, ensureASCII: true, sep: pyDefaultSeparators, want: `"\ud83d\udce6"`},
		{name: "ensure_ascii escapes DEL", in: "\"a\u007fb\"", ensureASCII: true, sep: pyDefaultSeparators, want: `"a\u007fb"`},
		{name: "no ensure_ascii keeps UTF-8 and DEL", in: "\"Zoë 👩🏽‍💼\u007f\"", ensureASCII: false, sep: pyDefaultSeparators, want: "\"Zoë 👩🏽‍💼\u007f\""},
		{name: "short escapes and control characters", in: `"q\" b\\ n\n t\t r\r f\f bs\b c\u0001"`, ensureASCII: true, sep: pyDefaultSeparators, want: `"q\" b\\ n\n t\t r\r f\f bs\b c\u0001"`},
		{name: "slash is not escaped", in: `"\/express\/"`, ensureASCII: true, sep: pyDefaultSeparators, want: `"/express/"`},
		{name: "big ints exact", in: `[12345678901234567891,-9223372036854775809,-0]`, ensureASCII: true, sep: pyDefaultSeparators, want: `[12345678901234567891, -9223372036854775809, 0]`},
		{name: "floats through double and repr", in: `[0.1000000000000000055511151231257827,2.5E-7,18250.5,1E16,1e15,6.4,1.0,-0.0]`, ensureASCII: true, sep: pyDefaultSeparators, want: `[0.1, 2.5e-07, 18250.5, 1e+16, 1000000000000000.0, 6.4, 1.0, -0.0]`},
		{name: "literals", in: `[true,false,null]`, ensureASCII: true, sep: pyDefaultSeparators, want: `[true, false, null]`},
		{name: "empty containers", in: `[{},[]]`, ensureASCII: true, sep: pyDefaultSeparators, want: `[{}, []]`},
		{name: "separators with nested literals", in: `{"a":1,"b":[true,null]}`, ensureASCII: true, sep: pyDefaultSeparators, want: `{"a": 1, "b": [true, null]}`},
		{name: "key order kept", in: `{"z":1,"a":2}`, ensureASCII: true, sep: pyDefaultSeparators, want: `{"z": 1, "a": 2}`},
		{name: "ensure_ascii in a dict", in: `{"s":"Café — 📦"}`, ensureASCII: true, sep: pyDefaultSeparators, want: `{"s": "Caf\u00e9 \u2014 \ud83d\udce6"}`},
		{name: "escapes in a dict", in: `{"s":"a\"b\\c\n\t\u0001/"}`, ensureASCII: true, sep: pyDefaultSeparators, want: `{"s": "a\"b\\c\n\t\u0001/"}`},
		{name: "floats by repr, big ints exact", in: `{"x":2.5E-7,"y":0.1000000000000000055511151231257827,"n":12345678901234567891}`, ensureASCII: true, sep: pyDefaultSeparators, want: `{"x": 2.5e-07, "y": 0.1, "n": 12345678901234567891}`},
		{name: "no ensure_ascii escapes control characters only", in: `"é\u0001\u001f"`, ensureASCII: false, sep: pyCompactSeparators, want: "\"é\\u0001\\u001f\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pyJSONDumps(mustLoad(t, c.in), c.ensureASCII, c.sep); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestPyFloatRepr(t *testing.T) {
	cases := []struct {
		name string
		in   float64
		want string
	}{
		// Expected values are CPython's repr(float).
		{name: "short", in: 0.1, want: "0.1"},
		{name: "integral gets .0", in: 2, want: "2.0"},
		{name: "zero", in: 0, want: "0.0"},
		{name: "negative zero", in: math.Copysign(0, -1), want: "-0.0"},
		{name: "1e-4 positional", in: 0.0001, want: "0.0001"},
		{name: "1e-5 exponent with two digits", in: 0.00001, want: "1e-05"},
		{name: "2.5e-07", in: 2.5e-7, want: "2.5e-07"},
		{name: "1e15 positional", in: 1e15, want: "1000000000000000.0"},
		{name: "1e16 exponent with sign", in: 1e16, want: "1e+16"},
		{name: "1.5e16", in: 1.5e16, want: "1.5e+16"},
		{name: "2^53+1 rounds to 2^53", in: 9007199254740993, want: "9007199254740992.0"},
		{name: "large exponent", in: 1.7976931348623157e308, want: "1.7976931348623157e+308"},
		{name: "tiny", in: 5e-324, want: "5e-324"},
		{name: "negative", in: -18250.5, want: "-18250.5"},
		{name: "shortest digits", in: 0.35, want: "0.35"},
		{name: "1/3", in: 1.0 / 3, want: "0.3333333333333333"},
		{name: "integral float keeps .0", in: 18250.0, want: "18250.0"},
		{name: "large with digits", in: 123456789012345678901.0, want: "1.2345678901234568e+20"},
		{name: "negative zero keeps its sign", in: math.Copysign(0, -1), want: "-0.0"},
		{name: "negative with fraction", in: -412.8, want: "-412.8"},
		{name: "nan and infinities", in: math.Inf(-1), want: "-inf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pyFloatRepr(c.in); got != c.want {
				t.Errorf("pyFloatRepr(%v) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}

func TestPyNumber(t *testing.T) {
	cases := []struct{ name, in, want string }{
		// Expected values are repr(json.loads(in)).
		{name: "int beyond 2^53 stays exact", in: "9007199254740993", want: "9007199254740993"},
		{name: "int beyond int64 stays exact", in: "-9223372036854775809", want: "-9223372036854775809"},
		{name: "negative zero int", in: "-0", want: "0"},
		{name: "float rounds through a double", in: "0.1000000000000000055511151231257827", want: "0.1"},
		{name: "exponent literal is a float", in: "2.5E-7", want: "2.5e-07"},
		{name: "exponent without a point is a float", in: "1E2", want: "100.0"},
		{name: "float with zero fraction", in: "6.0", want: "6.0"},
		{name: "negative zero float", in: "-0.0", want: "-0.0"},
		{name: "out of range is inf", in: "1e400", want: "inf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pyRepr(pyNumber(c.in)); got != c.want {
				t.Errorf("pyNumber(%s) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}

func TestPyLoadsExtraData(t *testing.T) {
	for _, in := range []string{`{} x`, `{}{}`, `1 2`} {
		if _, err := pyLoads([]byte(in)); err == nil || err.Error() != "Extra data" {
			t.Errorf("pyLoads(%q) error = %v, want Extra data", in, err)
		}
	}
	if _, err := pyLoads([]byte(" {} \n")); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}

func TestPyTruthy(t *testing.T) {
	for in, want := range map[string]bool{`0`: false, `-0`: false, `0.0`: false, `-0.0`: false, `""`: false, `{}`: false, `[]`: false,
		`null`: false, `false`: false, `1`: true, `0.5`: true, `"x"`: true, `{"a":null}`: true, `[0]`: true, `true`: true} {
		if got := pyTruthy(mustLoad(t, in)); got != want {
			t.Errorf("bool(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestPyValuesMarshalJSON(t *testing.T) {
	v := mustLoad(t, `{"z":[1,2.5E-7,-0.0,12345678901234567891],"a":{"s":"é"}}`)
	b, err := json.Marshal([]any{v, pyInt("7"), pyFloat(1)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"z":[1,2.5e-07,-0.0,12345678901234567891],"a":{"s":"é"}},7,1.0]`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if _, err := json.Marshal(pyFloat(math.NaN())); err == nil {
		t.Error("NaN marshalled")
	}
}

func TestPydanticFloatJSON(t *testing.T) {
	cases := []struct {
		name string
		in   float64
		want string
	}{
		// Expected values are what serde_json/ryu (pydantic-core's model_dump_json) writes.
		{name: "short", in: 0.8, want: "0.8"},
		{name: "integral", in: 1, want: "1.0"},
		{name: "1e-5 positional", in: 0.00001, want: "0.00001"},
		{name: "1e-7 exponent", in: 1e-7, want: "1e-7"},
		{name: "2.5e-7", in: 2.5e-7, want: "2.5e-7"},
		{name: "1e15 integral", in: 1e15, want: "1000000000000000.0"},
		{name: "1e16 exponent", in: 1e16, want: "1e16"},
		{name: "1e17 exponent", in: 1e17, want: "1e17"},
		{name: "1.5e17", in: 1.5e17, want: "1.5e17"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pydanticFloatJSON(c.in); got != c.want {
				t.Errorf("pydanticFloatJSON(%v) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}

func TestPydanticURL(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		// Expected values are str(pydantic.AnyUrl(in)).
		{name: "empty path gains a slash", in: "https://example.com", want: "https://example.com/"},
		{name: "path kept", in: "https://files.example.com/manifests/NWF-4471-KX.pdf", want: "https://files.example.com/manifests/NWF-4471-KX.pdf"},
		{name: "scheme and host lowercased", in: "HTTPS://Docs.Example.COM/A/b", want: "https://docs.example.com/A/b"},
		{name: "default port dropped", in: "https://example.com:443", want: "https://example.com/"},
		{name: "other port kept", in: "http://example.com:8080", want: "http://example.com:8080/"},
		{name: "query without path", in: "https://example.com?x=1", want: "https://example.com/?x=1"},
		{name: "non-special scheme unchanged", in: "urn:isbn:0451450523", want: "urn:isbn:0451450523"},
		{name: "custom scheme unchanged", in: "mcp://server", want: "mcp://server"},
		{name: "bare host gets a slash", in: "https://example.com", want: "https://example.com/"},
		{name: "path unchanged", in: "https://files.example.com/a/b.pdf", want: "https://files.example.com/a/b.pdf"},
		{name: "scheme and host lowercased, path kept", in: "HTTPS://Docs.Example.COM/x", want: "https://docs.example.com/x"},
		{name: "query on bare host", in: "https://example.com?q=1", want: "https://example.com/?q=1"},
		{name: "default port of another special scheme dropped", in: "ws://Example.com:80/a", want: "ws://example.com/a"},
		{name: "empty port dropped", in: "https://example.com:/a", want: "https://example.com/a"},
		{name: "IPv6 host keeps its brackets", in: "http://[::1]:8080", want: "http://[::1]:8080/"},
		{name: "IPv6 host, default port dropped", in: "https://[2001:DB8::1]:443/x", want: "https://[2001:db8::1]/x"},
		{name: "non-special scheme lowercased only", in: "URN:isbn:0451450523", want: "urn:isbn:0451450523"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := pydanticURL(c.in)
			if err != nil || got != c.want {
				t.Errorf("pydanticURL(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}

func TestPydanticURLInvalid(t *testing.T) {
	for _, in := range []string{"no-scheme", "/relative/path", "http://[::1"} {
		if got, err := pydanticURL(in); err == nil {
			t.Errorf("pydanticURL(%q) = %q, want an error", in, got)
		} else if !strings.HasPrefix(err.Error(), "Input should be a valid URL") {
			t.Errorf("pydanticURL(%q) error %q", in, err)
		}
	}
}

func TestPyRepr(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{name: "dict and list", in: `{"sku":"A","onHand":128,"ok":true,"x":null,"f":0.5}`, want: `{'sku': 'A', 'onHand': 128, 'ok': True, 'x': None, 'f': 0.5}`},
		{name: "single quote switches to double quotes", in: `"Failed to call tool 'x'."`, want: `"Failed to call tool 'x'."`},
		{name: "both quotes escape the single", in: `"it's \"q\""`, want: `'it\'s "q"'`},
		{name: "newline and tab escaped, non-ASCII kept", in: `"é\n\t"`, want: `'é\n\t'`},
		{name: "format character escaped", in: `"a\u200db"`, want: `'a\u200db'`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pyRepr(mustLoad(t, c.in)); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestPydanticValidationErrorTruncates(t *testing.T) {
	in := mustLoad(t, `[{"sku":"BRK-PAD-0412","onHand":128,"bin":"A-14-03"},{"sku":"OIL-FLT-0077","onHand":0,"bin":"C-02-11"}]`)
	got := pydanticValidationError("CallToolResult", "2.12", pydanticError{loc: "structuredContent", msg: "Input should be a valid dictionary", typ: "dict_type", input: in})
	want := "1 validation error for CallToolResult\nstructuredContent\n  Input should be a valid dictionary [type=dict_type, input_value=[{'sku': 'BRK-PAD-0412', ...': 0, 'bin': 'C-02-11'}], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.12/v/dict_type"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
