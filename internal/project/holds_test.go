package project

import (
	"slices"
	"testing"
)

// TestHoldsAndTargets holds what a source view holds, and its decoder targets, to the view.
func TestHoldsAndTargets(t *testing.T) {
	tests := []struct {
		name        string
		view        View
		holds       []string
		wantTargets []string
	}{
		{name: "text content", view: View{"content": []any{map[string]any{"kind": "text", "text": "x"}}},
			holds: []string{"content"}, wantTargets: []string{}},
		{name: "structured object, its members escaped and sorted", view: View{"structured": map[string]any{"b/c": 1, "a~": 2}, "content": []any{}},
			holds: []string{"structured", "content"}, wantTargets: []string{"", "/a~0", "/b~1c"}},
		{name: "null structured", view: View{"structured": nil}, holds: []string{"structured"}, wantTargets: []string{}},
		{name: "an error flag and a rich block", view: View{"isError": true, "content": []any{map[string]any{"kind": "image"}}, "meta": map[string]any{}},
			holds: []string{"error", "rich", "meta", "content"}, wantTargets: []string{}},
		{name: "a raised error", view: View{"raised": map[string]any{"message": "x"}}, holds: []string{"error"}, wantTargets: []string{}},
		{name: "a text block with annotations", view: View{"content": []any{map[string]any{"kind": "text", "annotations": map[string]any{}}}},
			holds: []string{"rich", "content"}, wantTargets: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Holds(tc.view); !slices.Equal(got, tc.holds) {
				t.Errorf("Holds = %v, want %v", got, tc.holds)
			}
			if got := Targets(tc.view); !slices.Equal(got, tc.wantTargets) {
				t.Errorf("Targets = %v, want %v", got, tc.wantTargets)
			}
		})
	}
}
