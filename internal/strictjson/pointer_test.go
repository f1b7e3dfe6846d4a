package strictjson

import "testing"

func TestReferenceTokens(t *testing.T) {
	tests := []struct {
		name, key, token string
	}{
		{name: "plain", key: "content", token: "content"},
		{name: "slash", key: "a/b", token: "a~1b"},
		{name: "tilde", key: "m~n", token: "m~0n"},
		{name: "tilde before one", key: "~1", token: "~01"},
		{name: "slash then tilde", key: "/~", token: "~1~0"},
		{name: "empty", key: "", token: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EscapeToken(tc.key); got != tc.token {
				t.Errorf("EscapeToken(%q) = %q, want %q", tc.key, got, tc.token)
			}
			if got := UnescapeToken(tc.token); got != tc.key {
				t.Errorf("UnescapeToken(%q) = %q, want %q", tc.token, got, tc.key)
			}
		})
	}
}
