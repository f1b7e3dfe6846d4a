package strictjson

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// FuzzLineReader: the line reader never panics and never loops; it returns every record or
// error in line order, each error a *SyntaxError on its own line, then io.EOF for good. Seeds:
// testdata/fuzz/FuzzLineReader.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n\n{\"b\":[2]}\n", "{\"a\":1}\r\n{\"a\":", "\n\n  \t\n", "[1]\n" + strings.Repeat("x", 200) + "\n[2]"} {
		f.Add([]byte(s))
	}
	lim := Limits{MaxBytes: 128, MaxDepth: 32, MaxExponent: 400, MaxDigits: 100}
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := NewLineReader("f.jsonl", strings.NewReader(string(data)), lim)
		lines := strings.Count(string(data), "\n") + 1
		last := 0
		for i := 0; ; i++ {
			if i > lines+1 {
				t.Fatalf("more than %d results from %d lines", i, lines)
			}
			line, _, err := lr.Next()
			if errors.Is(err, io.EOF) {
				if _, _, again := lr.Next(); !errors.Is(again, io.EOF) {
					t.Fatalf("after io.EOF: %v", again)
				}
				return
			}
			if line <= last || line > lines {
				t.Fatalf("line %d after line %d (of %d)", line, last, lines)
			}
			last = line
			if err != nil {
				var se *SyntaxError
				if !errors.As(err, &se) || se.Line != line || se.Col < 1 {
					t.Fatalf("line %d: error %v is not a *SyntaxError on that line", line, err)
				}
			}
		}
	})
}

// FuzzCursor: a line read member by member (Cursor) gives what Decode gives: the same tree, or
// the same *SyntaxError.
func FuzzCursor(f *testing.F) {
	addDocumentSeeds(f)
	lim := Limits{MaxBytes: 1 << 20, MaxDepth: 32, MaxExponent: 400, MaxDigits: 100}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := Decode("in.json", data, lim)
		got, err := cursorDecode(data, lim)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: Cursor's error %v, Decode's %v", data, err, werr)
		}
		if err != nil {
			if err.Error() != werr.Error() {
				t.Fatalf("%q: Cursor's error %v, Decode's %v", data, err, werr)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: Cursor read %#v, Decode %#v", data, got, want)
		}
	})
}
