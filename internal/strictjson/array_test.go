package strictjson

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// chunks are the read sizes the array reader's tests read with: one byte at a time (every
// element cut at every byte), a few odd sizes, and the real one.
var chunks = []int64{1, 2, 3, 7, 64, arrayChunk}

// readArray reads an array through an ArrayReader reading chunk bytes at a time: its elements,
// and the error that ended it (nil for io.EOF).
func readArray(data []byte, lim Limits, chunk int64) ([]any, error) {
	a := NewArrayReader("in.json", bytes.NewReader(data), lim)
	a.chunk = chunk
	var out []any
	for i := 0; ; i++ {
		index, v, err := a.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			if _, _, again := a.Next(); again != err {
				return out, errors.New("the error is not sticky: " + again.Error())
			}
			return out, err
		}
		if index != i {
			return out, errors.New("element " + strconv.Itoa(i) + " returned as index " + strconv.Itoa(index))
		}
		out = append(out, v)
	}
}

// sameAsDecode fails unless the array reader, at every read size, takes data as Decode does:
// Decode's array element for element, then io.EOF; Decode's error, message and offset, for an
// input Decode refuses; ErrNotArray for a value that is not an array.
func sameAsDecode(t *testing.T, data []byte, lim Limits) {
	t.Helper()
	want, werr := Decode("in.json", data, lim)
	for _, chunk := range chunks {
		got, err := readArray(data, lim, chunk)
		switch arr, isArray := want.([]any); {
		case werr != nil:
			var se, wse *SyntaxError
			errors.As(werr, &wse)
			if !errors.As(err, &se) || se.Error() != wse.Error() || se.Offset != wse.Offset {
				t.Fatalf("%q read %d bytes at a time: error %v, want Decode's %v (offset %d)", data, chunk, err, werr, wse.Offset)
			}
		case !isArray:
			if !errors.Is(err, ErrNotArray) || got != nil {
				t.Fatalf("%q read %d bytes at a time: %v, %v, want ErrNotArray (Decode: %#v)", data, chunk, got, err, want)
			}
		default:
			if err != nil {
				t.Fatalf("%q read %d bytes at a time: %v, want Decode's %#v", data, chunk, err, want)
			}
			if len(arr) == 0 {
				arr = nil
			}
			if !reflect.DeepEqual(got, arr) {
				t.Fatalf("%q read %d bytes at a time:\n got  %#v\n want %#v", data, chunk, got, arr)
			}
		}
	}
}

// arrayed is a document as itself and as the elements of arrays: alone, twice, after another
// element, on lines of its own and after multi-byte characters, so that every error lies inside an
// element at another line, column and offset.
func arrayed(doc string) []string {
	return []string{
		doc,
		"[" + doc + "]",
		"[" + doc + "," + doc + "]",
		`[{"é":"日本"}, ` + doc + "]",
		"[\n  1,\n  " + doc + "\n]\n",
		" [ \"é\" ,\r\n" + doc + " , true ] ",
	}
}

// corpus is every input of strictjson's tests: Decode's valid and invalid documents, the
// testdata files and the fuzz corpora.
func corpus(t *testing.T) []struct {
	name string
	in   []byte
	lim  Limits
} {
	t.Helper()
	type input = struct {
		name string
		in   []byte
		lim  Limits
	}
	var out []input
	for _, c := range decodeValueCases {
		out = append(out, input{name: c.name, in: []byte(c.in)})
	}
	for _, c := range decodeErrorCases {
		in := []byte(c.in)
		if c.file != "" {
			in = readTestdata(t, c.file)
		}
		if c.name == "size over limit" {
			continue // TestArrayReaderLimits: the reader cannot know the whole size
		}
		out = append(out, input{name: c.name, in: in, lim: c.lim})
	}
	for _, f := range []string{"bignums.json", "invalid_utf8_outside.json", "invalid_utf8_string.json", "records.jsonl"} {
		out = append(out, input{name: f, in: readTestdata(t, f)})
	}
	for _, dir := range []string{"FuzzDecode", "FuzzLineReader"} {
		files, err := filepath.Glob(filepath.Join("testdata", "fuzz", dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("fuzz corpus %s: %v, %d files", dir, err, len(files))
		}
		for _, f := range files {
			out = append(out, input{name: dir + "/" + filepath.Base(f), in: fuzzInput(t, f)})
		}
	}
	return out
}

// fuzzInput is the []byte of a fuzz corpus file ("go test fuzz v1" and one []byte("…") line).
func fuzzInput(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, line, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return []byte(s)
}

// TestArrayReaderIsDecode: on every input of strictjson's tests, alone and as elements of
// arrays, read at every chunk size, the array reader gives Decode's elements or Decode's error.
func TestArrayReaderIsDecode(t *testing.T) {
	for _, c := range corpus(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, doc := range arrayed(string(c.in)) {
				lim := c.lim
				if lim.MaxDepth > 0 && doc != string(c.in) {
					lim.MaxDepth++ // the array is one level more
				}
				sameAsDecode(t, []byte(doc), lim)
			}
		})
	}
}

// TestArrayReader holds the reader's own cases: where its elements and errors are, and the
// errors of arrays themselves.
func TestArrayReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		lim  Limits
		want []any
		err  string // the error, "" for none
		at   int    // the index Next returns with the error
	}{
		{name: "empty array", in: " [ ] \n", want: nil},
		{name: "big numbers kept", in: `[12345678901234567891, {"n": -1.000E+400}]`,
			want: []any{jsonNumber("12345678901234567891"), map[string]any{"n": jsonNumber("-1.000E+400")}}},
		{name: "a bad event names its place", in: "[{\"a\":1},\n {\"a\":1,\"a\":2}]", at: 1,
			err: `in.json:2:9: duplicate key "a" (first occurrence at 2:3)`},
		{name: "invalid UTF-8 in the third event", in: "[\"é\",\"ü\",\"\xff\"]", at: 2,
			err: "in.json:1:11: invalid UTF-8 byte 0xff in string"},
		{name: "between elements", in: "[1 2]", at: -1, err: `in.json:1:4: unexpected '2', expected ',' or ']'`},
		{name: "after the array", in: "[1] [2]", at: -1, err: `in.json:1:5: unexpected '[', expected end of input after the top-level value`},
		{name: "not an array", in: `{"a":1}`, at: -1, err: "in.json: not a JSON array"},
		{name: "a number at the end of a read", in: "[1234567890123456789012345678901234567890]",
			want: []any{jsonNumber("1234567890123456789012345678901234567890")}},
		{name: "depth counts the array", in: "[[[1]]]", lim: Limits{MaxDepth: 2}, at: 0, err: "in.json:1:3: nesting deeper than the limit of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunk := range chunks {
				a := NewArrayReader("in.json", strings.NewReader(tt.in), tt.lim)
				a.chunk = chunk
				var got []any
				for {
					i, v, err := a.Next()
					if errors.Is(err, io.EOF) {
						if tt.err != "" {
							t.Fatalf("chunk %d: no error, want %s", chunk, tt.err)
						}
						break
					}
					if err != nil {
						if err.Error() != tt.err || i != tt.at {
							t.Fatalf("chunk %d: error %v at %d, want %s at %d", chunk, err, i, tt.err, tt.at)
						}
						break
					}
					got = append(got, v)
				}
				if tt.err == "" && !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("chunk %d: %#v, want %#v", chunk, got, tt.want)
				}
			}
		})
	}
}

// jsonNumber is a number as Decode keeps it.
func jsonNumber(s string) any { v, _ := Decode("", []byte(s), DefaultLimits); return v }

// TestArrayReaderLimits: an input over MaxBytes is refused, whatever it holds, and a read error
// comes before the syntax errors after it.
func TestArrayReaderLimits(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		r    io.Reader
		lim  Limits
		want string
		is   error
	}{
		{name: "over MaxBytes", r: strings.NewReader("[1,2,3]"), lim: Limits{MaxBytes: 6}, want: "in.json:1:1: input is over the limit of 6 bytes"},
		{name: "over MaxBytes before a syntax error", r: strings.NewReader("[1,x,3]"), lim: Limits{MaxBytes: 6}, want: "in.json:1:1: input is over the limit of 6 bytes"},
		{name: "at MaxBytes", r: strings.NewReader("[1,2,3"), lim: Limits{MaxBytes: 6}, want: "in.json:1:7: unexpected end of input, expected ',' or ']'"},
		{name: "a source cut short is a read error, not the end", r: io.MultiReader(strings.NewReader("[1"), iotest.ErrReader(io.ErrUnexpectedEOF)),
			want: "in.json: reading: unexpected EOF", is: io.ErrUnexpectedEOF},
		{name: "a read error before a syntax error", r: io.MultiReader(strings.NewReader("[1,x"), iotest.ErrReader(boom)), want: "in.json: reading: boom", is: boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewArrayReader("in.json", tt.r, tt.lim)
			var err error
			for err == nil {
				_, _, err = a.Next()
			}
			if err.Error() != tt.want || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Fatalf("error %v, want %s", err, tt.want)
			}
		})
	}
}

// TestArrayReaderHoldsOneElement: reading a 16 MiB array of 1 KiB elements keeps a buffer of
// the read size, not the array.
func TestArrayReaderHoldsOneElement(t *testing.T) {
	elem := `{"input":{"carrier":"` + strings.Repeat("x", 1000) + `"},"n":12345678901234567891}`
	n := (16 << 20) / (len(elem) + 1)
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("["))
		for i := 0; i < n; i++ {
			if i > 0 {
				pw.Write([]byte(","))
			}
			pw.Write([]byte(elem))
		}
		pw.Write([]byte("]"))
		pw.Close()
	}()
	a := NewArrayReader("big.json", pr, Limits{MaxBytes: 32 << 20})
	most := 0
	count := 0
	for {
		_, _, err := a.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count++
		most = max(most, cap(a.buf))
	}
	if count != n {
		t.Fatalf("%d elements, want %d", count, n)
	}
	if most > 4*arrayChunk {
		t.Fatalf("the buffer grew to %d bytes reading %d elements of %d bytes: more than the read size", most, n, len(elem))
	}
}

// FuzzArrayReader: on any input, at any read size, the array reader is Decode.
func FuzzArrayReader(f *testing.F) {
	for _, s := range []string{`[]`, `[1,2,{"a":"b"}]`, `[{"a":1,"a":2}]`, "[\"\xff\"]", `[1e400, 12345678901234567891]`,
		"[1 2]", "[1,]", `{"a":[1]}`, "\ufeff[1]", "[\n\"é\",\n\"\\ud800\"]", "[1]]", "[[[[[[]]]]]]"} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		lim := Limits{MaxDepth: 16, MaxExponent: 400, MaxDigits: 100}
		want, werr := Decode("in.json", data, lim)
		got, err := readArray(data, lim, int64(chunk%64)+1)
		arr, isArray := want.([]any)
		switch {
		case werr != nil:
			if err == nil || err.Error() != werr.Error() {
				t.Fatalf("error %v, want Decode's %v", err, werr)
			}
		case !isArray:
			if !errors.Is(err, ErrNotArray) {
				t.Fatalf("%v, want ErrNotArray", err)
			}
		default:
			if len(arr) == 0 {
				arr = nil
			}
			if err != nil || !reflect.DeepEqual(got, arr) {
				t.Fatalf("%#v, %v; want %#v", got, err, arr)
			}
		}
	})
}
