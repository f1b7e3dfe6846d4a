package strictjson

import (
	"testing"
)

// TestLineValues: Values counts a line's JSON values without decoding it, exactly for values
// whose objects and arrays are not empty (a key is not a value; a separator or bracket inside a
// string counts nothing, an escaped quote does not end the string), and one too many per empty
// object or array; Size is the line's length.
func TestLineValues(t *testing.T) {
	tests := []struct {
		name string
		line string
		want int
	}{
		{name: "a scalar", line: `42`, want: 1},
		{name: "a string holding separators", line: `"a,b{c[d"`, want: 1},
		{name: "an escaped quote", line: `["a\",{[", 1]`, want: 3},
		{name: "an escaped backslash before the quote", line: `["a\\", 1]`, want: 3},
		{name: "an object", line: `{"a": 1, "b": [true, null, "x"]}`, want: 6},
		{name: "content blocks", line: `{"content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}`, want: 8},
		{name: "empty object and array", line: `{"a": {}, "b": []}`, want: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := readLine(t, tc.line)
			if got := l.Values(); got != tc.want {
				t.Errorf("Values(%s) = %d, want %d", tc.line, got, tc.want)
			}
			if l.Size() != len(tc.line) {
				t.Errorf("Size = %d, want %d", l.Size(), len(tc.line))
			}
		})
	}
}
