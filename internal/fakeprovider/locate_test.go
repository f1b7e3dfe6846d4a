package fakeprovider

import "testing"

// TestValueAt: a pointer's value as the exact bytes of the text; nothing for a pointer that
// selects nothing; an error for text that is not JSON.
func TestValueAt(t *testing.T) {
	t.Parallel()
	doc := ` {"a": {"b~/": [1, {"c" : "x\"y"}], "d": null}, "a2": 1.50} `
	tests := []struct {
		name   string
		tokens []string
		want   string
		ok     bool
	}{
		{name: "the whole", tokens: nil, want: `{"a": {"b~/": [1, {"c" : "x\"y"}], "d": null}, "a2": 1.50}`, ok: true},
		{name: "a member", tokens: []string{"a2"}, want: "1.50", ok: true},
		{name: "nested, through an array", tokens: []string{"a", "b~/", "1", "c"}, want: `"x\"y"`, ok: true},
		{name: "null", tokens: []string{"a", "d"}, want: "null", ok: true},
		{name: "absent", tokens: []string{"nope"}},
		{name: "past an array", tokens: []string{"a", "b~/", "2"}},
		{name: "a leading zero", tokens: []string{"a", "b~/", "01"}},
		{name: "into a scalar", tokens: []string{"a2", "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, e, ok, err := ValueAt([]byte(doc), tc.tokens)
			if err != nil || ok != tc.ok || (ok && doc[s:e] != tc.want) {
				t.Errorf("got %q %v %v, want %q %v", doc[s:e], ok, err, tc.want, tc.ok)
			}
		})
	}
	if _, _, _, err := ValueAt([]byte(`{"a":`), nil); err == nil {
		t.Error("no error for text that is not JSON")
	}
}
