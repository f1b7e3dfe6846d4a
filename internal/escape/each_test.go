package escape

import (
	"slices"
	"testing"
)

// TestEach: every string goes through the escaper, in order, into a new slice.
func TestEach(t *testing.T) {
	tests := []struct {
		name string
		f    func(string) string
		in   []string
		want []string
	}{
		{name: "terminal", f: Terminal, in: []string{"a\x1b[31m", "b\u2028c"}, want: []string{Terminal("a\x1b[31m"), Terminal("b\u2028c")}},
		{name: "markdown code", f: MarkdownCode, in: []string{"x`y"}, want: []string{MarkdownCode("x`y")}},
		{name: "empty", f: Terminal, in: nil, want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got := Each(tc.f, in)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Each = %q, want %q", got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Errorf("Each changed its input: %q", in)
			}
		})
	}
}
