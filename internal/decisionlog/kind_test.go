package decisionlog

import (
	"encoding/json"
	"testing"
)

func TestKind(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{name: "null", v: nil, want: "absent or null"},
		{name: "string", v: "x", want: "a string"},
		{name: "number", v: json.Number("1.50"), want: "a number"},
		{name: "boolean", v: true, want: "a boolean"},
		{name: "array", v: []any{}, want: "an array"},
		{name: "object", v: map[string]any{}, want: "an object"},
		{name: "a Go value no decoder makes", v: 1.5, want: "float64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kind(tc.v); got != tc.want {
				t.Errorf("kind(%#v) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}
