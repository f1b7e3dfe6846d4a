package strictjson

import (
	"reflect"
	"testing"
)

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

// TestLookup: a pointer given as text reads a decoded value as the projector does; an array index
// is decimal without a leading zero, a sign taken as strconv.Atoi and the Rego projector
// (internal/bundle/rego/pointer.rego) take it, and anything that is not a pointer reads as absent.
func TestLookup(t *testing.T) {
	doc := map[string]any{"a/b": []any{nil, map[string]any{"~": true}}, "": "empty key", "1": "one"}
	tests := []struct {
		name  string
		ptr   string
		want  any
		found bool
	}{
		{name: "the whole value", ptr: "", want: doc, found: true},
		{name: "escaped slash, a null", ptr: "/a~1b/0", want: nil, found: true},
		{name: "escaped tilde", ptr: "/a~1b/1/~0", want: true, found: true},
		{name: "the empty key", ptr: "/", want: "empty key", found: true},
		{name: "a digit as an object key", ptr: "/1", want: "one", found: true},
		{name: "past the end", ptr: "/a~1b/2", found: false},
		{name: "a leading zero", ptr: "/a~1b/01", found: false},
		{name: "a plus sign, as Atoi reads it", ptr: "/a~1b/+1", want: map[string]any{"~": true}, found: true},
		{name: "a minus zero, as Atoi reads it", ptr: "/a~1b/-0", want: nil, found: true},
		{name: "a negative index", ptr: "/a~1b/-1", found: false},
		{name: "a space", ptr: "/a~1b/ 1", found: false},
		{name: "the end marker", ptr: "/a~1b/-", found: false},
		{name: "an empty index", ptr: "/a~1b/", found: false},
		{name: "a huge index", ptr: "/a~1b/99999999999999999999999", found: false},
		{name: "absent key", ptr: "/x", found: false},
		{name: "below a null", ptr: "/a~1b/0/x", found: false},
		{name: "not a pointer", ptr: "a~1b", found: false},
		{name: "a bad escape", ptr: "/a~2b", found: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, found := Lookup(doc, tc.ptr)
			if found != tc.found || (found && !reflect.DeepEqual(got, tc.want)) {
				t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tc.ptr, got, found, tc.want, tc.found)
			}
		})
	}
}
