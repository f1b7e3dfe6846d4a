package strictjson

import (
	"bytes"
	"math"
	"testing"
)

func TestEncodeLineAndMarshalGo(t *testing.T) {
	type rec struct {
		Name string `json:"name"`
		Skip string `json:"skip,omitempty"`
		N    int    `json:"n"`
	}
	tests := []struct {
		name     string
		in       any
		wantLine string
		wantErr  bool
	}{
		{name: "struct in tag order", in: rec{Name: "a", N: 1}, wantLine: `{"name":"a","n":1}` + "\n"},
		{name: "no HTML escaping", in: "<stdin> & </script>", wantLine: `"<stdin> & </script>"` + "\n"},
		{name: "map keys sorted", in: map[string]int{"b": 2, "a": 1}, wantLine: `{"a":1,"b":2}` + "\n"},
		{name: "U+2028 escaped as encoding/json does", in: "a\u2028b", wantLine: `"a\u2028b"` + "\n"},
		{name: "unencodable", in: math.Inf(1), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, err := EncodeLine(tc.in)
			compact, cerr := MarshalGo(tc.in)
			if tc.wantErr {
				if err == nil || cerr == nil {
					t.Fatalf("EncodeLine: %v, MarshalGo: %v; want errors", err, cerr)
				}
				return
			}
			if err != nil || cerr != nil {
				t.Fatalf("EncodeLine: %v, MarshalGo: %v", err, cerr)
			}
			if string(line) != tc.wantLine {
				t.Errorf("EncodeLine = %q, want %q", line, tc.wantLine)
			}
			if want := tc.wantLine[:len(tc.wantLine)-1]; string(compact) != want {
				t.Errorf("MarshalGo = %q, want %q", compact, want)
			}
		})
	}
}

func TestEncodeIndented(t *testing.T) {
	type rec struct {
		Name string         `json:"name"`
		Tags []string       `json:"tags"`
		M    map[string]int `json:"m"`
	}
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr bool
	}{
		{name: "struct in tag order, map keys sorted", in: rec{Name: "a", Tags: []string{"x"}, M: map[string]int{"b": 2, "a": 1}},
			want: "{\n  \"name\": \"a\",\n  \"tags\": [\n    \"x\"\n  ],\n  \"m\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n"},
		{name: "no HTML escaping", in: []string{"<stdin> & </script>"}, want: "[\n  \"<stdin> & </script>\"\n]\n"},
		{name: "unencodable", in: math.NaN(), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := EncodeIndented(&b, tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("EncodeIndented: %v, want an error %v", err, tc.wantErr)
			}
			if got := b.String(); !tc.wantErr && got != tc.want {
				t.Errorf("EncodeIndented = %q, want %q", got, tc.want)
			}
		})
	}
}
