package strictjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestDecodeOrdered: objects keep their members in the order written, numbers their spelling, and
// the strict reader's errors are Decode's, word for word.
func TestDecodeOrdered(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{name: "members in the order written", in: `{"z":1,"a":{"y":true,"b":null},"m":[{"k":"v"},"s"]}`,
			want: &Object{Keys: []string{"z", "a", "m"}, Vals: []any{json.Number("1"),
				&Object{Keys: []string{"y", "b"}, Vals: []any{true, nil}},
				[]any{&Object{Keys: []string{"k"}, Vals: []any{"v"}}, "s"}}}},
		{name: "an empty object", in: `{}`, want: &Object{Keys: []string{}, Vals: []any{}}},
		{name: "numbers as written", in: `[1.0,1E2,-0]`, want: []any{json.Number("1.0"), json.Number("1E2"), json.Number("-0")}},
		{name: "duplicate key", in: `{"a":1,"b":2,"a":3}`},
		{name: "invalid UTF-8", in: "{\"a\":\"\xff\"}"},
		{name: "trailing comma", in: `{"a":1,}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeOrdered("f.json", []byte(tc.in), DefaultLimits)
			_, plainErr := Decode("f.json", []byte(tc.in), DefaultLimits)
			if tc.want == nil {
				if err == nil || plainErr == nil || err.Error() != plainErr.Error() {
					t.Fatalf("error %v, want Decode's %v", err, plainErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}
