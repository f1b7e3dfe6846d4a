package strictjson

import (
	"slices"
	"testing"
)

// eachStringCases are JSON texts and the string values EachString visits in them, sorted.
var eachStringCases = []struct {
	name, json string
	want       []string
}{
	{name: "scalar string", json: `"a"`, want: []string{"a"}},
	{name: "no string", json: `[1, true, null, {"k": 2}]`},
	{name: "keys left out", json: `{"key": "value", "other": ["x", {"deep": "y"}]}`, want: []string{"value", "x", "y"}},
	{name: "repeats and empty kept", json: `["", "a", "a"]`, want: []string{"", "a", "a"}},
}

// TestEachString: every string value of a decoded tree is visited, at any depth, and nothing
// else: not object keys, not numbers, booleans or null.
func TestEachString(t *testing.T) {
	for _, c := range eachStringCases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Decode("test.json", []byte(c.json), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			EachString(v, func(s string) { got = append(got, s) })
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("EachString(%s) = %q, want %q", c.json, got, c.want)
			}
		})
	}
}
