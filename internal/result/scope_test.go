package result

import "testing"

// TestScopeText: Text and Join list every selector of a scope in one order, each selector's
// values joined by the separator; a nil or zero scope is "".
func TestScopeText(t *testing.T) {
	full := &Scope{Lanes: []string{"a", "b"}, Versions: []string{"v1"}, Configurations: []string{"default"}, Stages: []string{"A2", "H4"},
		Suites: []string{"paper"}, Fixtures: []string{"C*"}, Tasks: []string{"T1"}}
	tests := []struct {
		name     string
		scope    *Scope
		text     string
		joinedBy string // Join(", ")
	}{
		{name: "nil", scope: nil},
		{name: "zero", scope: &Scope{}},
		{name: "one selector", scope: &Scope{Stages: []string{"A2"}}, text: "stages A2", joinedBy: "stages A2"},
		{name: "every selector", scope: full,
			text:     "lanes a,b; versions v1; configurations default; stages A2,H4; suites paper; fixtures C*; tasks T1",
			joinedBy: "lanes a, b; versions v1; configurations default; stages A2, H4; suites paper; fixtures C*; tasks T1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.scope.Text(); got != tc.text {
				t.Errorf("Text() = %q, want %q", got, tc.text)
			}
			if got := tc.scope.Join(", "); got != tc.joinedBy {
				t.Errorf("Join(\", \") = %q, want %q", got, tc.joinedBy)
			}
		})
	}
}
