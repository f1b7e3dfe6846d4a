package result

import "testing"

// A group's summary names the exact category first, then a lossy category when it differs and
// what the error results show when the category does not give it.
func TestVisibilitySummary(t *testing.T) {
	tests := []struct {
		name string
		v    Visibility
		want string
	}{
		{"category alone", Visibility{Category: "content-only"}, "content-only"},
		{"on error the category's shape", Visibility{Category: "content-only", OnError: "content"}, "content-only"},
		{"on error rendered", Visibility{Category: "structured-first", OnError: "rendered"}, "structured-first, on error rendered"},
		{"rendered apart", Visibility{Category: "neither", Rendered: "both"}, "neither, rendered both"},
		{"rendered the same is not said", Visibility{Category: "both", Rendered: "both"}, "both"},
		{"rendered and on error", Visibility{Category: "content-only", Rendered: "both", OnError: "rewritten"}, "content-only, rendered both, on error rewritten"},
		{"mixed, rendered", Visibility{Category: "mixed", Nearest: "both", Disagree: []string{"V02"}, Rendered: "both"}, "mixed (nearest both; V02 differs), rendered both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.Summary(); got != tt.want {
				t.Errorf("Summary() = %q, want %q", got, tt.want)
			}
		})
	}
}

// A group carries nothing of what was served when every fixture read shows nothing of it (a
// text of the agent's own counts as nothing); a fixture not captured does not count either way.
func TestVisibilityNothingServed(t *testing.T) {
	f := func(state, shape string) VisibilityFixture {
		return VisibilityFixture{Fixture: "V01", State: state, Shape: shape}
	}
	tests := []struct {
		name     string
		fixtures []VisibilityFixture
		want     bool
	}{
		{"nothing and rewritten", []VisibilityFixture{f("captured", "nothing"), f("captured", "rewritten")}, true},
		{"one content", []VisibilityFixture{f("captured", "nothing"), f("captured", "content")}, false},
		{"rendered is something", []VisibilityFixture{f("captured", "rendered"), f("captured", "nothing")}, false},
		{"structured", []VisibilityFixture{f("captured", "structured")}, false},
		{"not captured only", []VisibilityFixture{f("execution_failed", ""), f("unstable", "")}, false},
		{"not captured beside nothing", []VisibilityFixture{f("not_reached", ""), f("captured", "nothing")}, true},
		{"no fixtures", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Visibility{Category: "neither", Fixtures: tt.fixtures}).NothingServed(); got != tt.want {
				t.Errorf("NothingServed() = %v, want %v", got, tt.want)
			}
		})
	}
}
