package strictjson

import (
	"errors"
	"reflect"
	"testing"
)

// cursorTree reads the value at c with the Cursor alone — objects member by member, strings and
// numbers typed, anything else whole — into the tree Decode would make.
func cursorTree(c *Cursor) (any, error) {
	switch c.Kind() {
	case "object":
		m := map[string]any{}
		err := c.Object(func(k string) error {
			v, err := cursorTree(c)
			m[k] = v
			return err
		})
		return m, err
	case "string":
		return c.String()
	case "number":
		return c.Number()
	}
	return c.Value()
}

// cursorDecode reads a whole line with a Cursor, as Decode reads a document.
func cursorDecode(data []byte, lim Limits) (any, error) {
	c := NewLineDecoder(lim).Cursor(Line{Number: 1, file: "in.json", text: data})
	v, err := cursorTree(c)
	if err == nil {
		err = c.End()
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// TestCursorReadsAsDecode: a line read member by member gives Decode's tree for every valid
// document of decodeValueCases, and Decode's error — the same message, line, column and offset,
// a *SyntaxError — for every invalid one of decodeErrorCases (duplicate keys, among many too,
// bad UTF-8, surrogates, numbers, depth) but the size limit, which LineReader applies before a
// line is decoded.
func TestCursorReadsAsDecode(t *testing.T) {
	forEachDocument(t, func(t *testing.T, data []byte, lim Limits) {
		want, werr := Decode("in.json", data, lim)
		got, err := cursorDecode(data, lim)
		if werr == nil {
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: %#v (error %v), want %#v", data, got, err, want)
			}
			return
		}
		var se, wse *SyntaxError
		if !errors.As(err, &se) || !errors.As(werr, &wse) {
			t.Fatalf("%q: error %v (%T), want a *SyntaxError as Decode's %v", data, err, err, werr)
		}
		if *se != *wse || got != nil {
			t.Fatalf("%q: error %+v, Decode's %+v", data, *se, *wse)
		}
	})
}

// forEachDocument runs check, as a subtest, on every document of decodeValueCases (with the
// default limits) and of decodeErrorCases (with its limits) but those over the size limit, which
// LineReader applies before a line is decoded.
func forEachDocument(t *testing.T, check func(t *testing.T, data []byte, lim Limits)) {
	for _, tt := range decodeValueCases {
		t.Run(tt.name, func(t *testing.T) { check(t, []byte(tt.in), DefaultLimits) })
	}
	for _, tt := range decodeErrorCases {
		if tt.lim.MaxBytes != 0 {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.in)
			if tt.file != "" {
				data = readTestdata(t, tt.file)
			}
			check(t, data, tt.lim)
		})
	}
}

// addDocumentSeeds seeds a fuzz target with the documents of decodeValueCases and
// decodeErrorCases.
func addDocumentSeeds(f *testing.F) {
	for _, c := range decodeValueCases {
		f.Add([]byte(c.in))
	}
	for _, c := range decodeErrorCases {
		f.Add([]byte(c.in))
	}
}

// TestCursorKeepsNumbers: a number read by Number or inside a Value keeps every digit, past
// float64 and int64.
func TestCursorKeepsNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, in string
	}{
		{name: "past int64", in: "123456789012345678901234567890"},
		{name: "past float64's digits", in: "0.1000000000000000055511151231257827021181583404541015625"},
		{name: "exponent kept as written", in: "1E+2"},
		{name: "negative zero", in: "-0.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLineDecoder(DefaultLimits).Cursor(Line{Number: 1, file: "n.json", text: []byte(`{"n":` + tc.in + `,"in":[` + tc.in + `]}`)})
			var n, in any
			err := c.Object(func(k string) error {
				var err error
				if k == "n" {
					n, err = c.Number()
				} else {
					in, err = c.Value()
				}
				return err
			})
			if err == nil {
				err = c.End()
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(n.(interface{ String() string }).String()) != tc.in || in.([]any)[0].(interface{ String() string }).String() != tc.in {
				t.Fatalf("read %v and %v, want %s", n, in, tc.in)
			}
		})
	}
}

// TestCursorRefuses: what the caller asks for and the line does not hold is a *SyntaxError at the
// byte, and an error the caller's member function returns stops the reading as it is.
func TestCursorRefuses(t *testing.T) {
	stop := errors.New("stop")
	for _, tc := range []struct {
		name string
		in   string
		read func(c *Cursor) error
		want string
	}{
		{name: "an object wanted", in: `[1]`, read: func(c *Cursor) error { return c.Object(func(string) error { return nil }) },
			want: "l.json:7:1: unexpected '[', expected '{'"},
		{name: "a string wanted", in: `{"a":1}`, read: func(c *Cursor) error { _, err := c.String(); return err },
			want: "l.json:7:1: unexpected '{', expected a string"},
		{name: "a number wanted", in: ` "1"`, read: func(c *Cursor) error { _, err := c.Number(); return err },
			want: `l.json:7:2: unexpected '"', expected a number`},
		{name: "a byte order mark", in: "\xef\xbb\xbf{}", read: func(c *Cursor) error { return c.Object(func(string) error { return nil }) },
			want: "l.json:7:1: byte order mark (U+FEFF) is not allowed"},
		{name: "more after the value", in: `{} {}`, read: func(c *Cursor) error {
			if err := c.Object(func(string) error { return nil }); err != nil {
				return err
			}
			return c.End()
		}, want: "l.json:7:4: unexpected '{', expected end of input after the top-level value"},
		{name: "a member left unread", in: `{"a":1}`, read: func(c *Cursor) error { return c.Object(func(string) error { return nil }) },
			want: "l.json:7:6: unexpected '1', expected ',' or '}'"},
		{name: "the member function's error", in: `{"a":1,"b":x}`, read: func(c *Cursor) error {
			return c.Object(func(string) error { return stop })
		}, want: "stop"},
		{name: "a syntax error after the members read", in: `{"a":1,"b":x}`, read: func(c *Cursor) error {
			return c.Object(func(string) error { return c.Skip() })
		}, want: "l.json:7:12: unexpected 'x', expected a JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLineDecoder(DefaultLimits).Cursor(Line{Number: 7, file: "l.json", text: []byte(tc.in)})
			err := tc.read(c)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %s", err, tc.want)
			}
			if tc.want == "stop" && !errors.Is(err, stop) {
				t.Fatalf("error %v is not the member function's", err)
			}
		})
	}
	if Kind := NewLineDecoder(DefaultLimits).Cursor(Line{text: []byte("  x")}).Kind(); Kind != "" {
		t.Errorf("Kind of x: %q, want none", Kind)
	}
	for in, want := range map[string]string{`{}`: "object", ` []`: "array", `"s"`: "string", `-1`: "number", `true`: "boolean", `false`: "boolean", `null`: "null"} {
		if got := NewLineDecoder(DefaultLimits).Cursor(Line{text: []byte(in)}).Kind(); got != want {
			t.Errorf("Kind of %s: %q, want %q", in, got, want)
		}
	}
}
