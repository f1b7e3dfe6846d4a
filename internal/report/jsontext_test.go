package report

import (
	"math"
	"strings"
	"testing"
)

// TestJSONText: a value is compact JSON, whole when cols is 0, else cut to cols columns ending in
// the tail with a JSON escape kept whole; a value JSON cannot hold is written as fmt's %v.
func TestJSONText(t *testing.T) {
	long := strings.Repeat("x", 200)
	tests := []struct {
		name string
		v    any
		cols int
		tail string
		want string
	}{
		{name: "object whole", v: map[string]any{"b": []any{1.5, nil}, "a": "<&>"}, want: `{"a":"<&>","b":[1.5,null]}`},
		{name: "long string whole", v: long, want: `"` + long + `"`},
		{name: "long string cut", v: long, cols: 10, tail: "...", want: `"xxxxxx...`},
		{name: "short value not cut", v: "é", cols: 10, tail: "…", want: `"é"`},
		{name: "escape kept whole", v: "ab\ncd", cols: 5, tail: "…", want: `"ab…`},
		{name: "not JSON", v: math.Inf(1), cols: 10, tail: "…", want: "+Inf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := JSONText(tc.v, tc.cols, tc.tail)
			if got != tc.want {
				t.Errorf("JSONText = %q, want %q", got, tc.want)
			}
		})
	}
}
