package project

import (
	"encoding/json"
	"testing"
)

// TestHash holds Hash to the canonical encoding: member order does not matter, a number as
// written and a member's presence do.
func TestHash(t *testing.T) {
	tests := []struct {
		name string
		a, b View
		same bool
	}{
		{name: "member order", a: View{"content": []any{}, "isError": false}, b: View{"isError": false, "content": []any{}}, same: true},
		{name: "a null member is not an absent one", a: View{"structured": nil}, b: View{}},
		{name: "numbers as written", a: View{"structured": json.Number("1")}, b: View{"structured": json.Number("1.0")}},
		{name: "nested values", a: View{"meta": map[string]any{"a": "x", "b": []any{true}}}, b: View{"meta": map[string]any{"b": []any{true}, "a": "x"}}, same: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Hash(tc.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Hash(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if (a == b) != tc.same {
				t.Errorf("same hash = %v, want %v", a == b, tc.same)
			}
		})
	}
}
