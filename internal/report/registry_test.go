package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestJSONFormat: the json format of a verb whose result is its own JSON document writes it as
// WriteJSON does: indented, keys sorted, no HTML escaping.
func TestJSONFormat(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{name: "sorted and indented", in: map[string]any{"b": 1, "a": "x"}, want: "{\n  \"a\": \"x\",\n  \"b\": 1\n}\n"},
		{name: "no HTML escaping", in: map[string]any{"s": "<script>&"}, want: "{\n  \"s\": \"<script>&\"\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (JSONFormat[map[string]any]{}).Output(&buf, tc.in); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("got %q, want %q", buf.String(), tc.want)
			}
		})
	}
}

// TestTextFormat: a text format's text goes out whole through WriteLog, but no line of it starts
// a CI workflow command (neutralized), also the last one without a line break; nothing is written
// when building it fails.
func TestTextFormat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "written", in: "a\nb\n", want: "a\nb\n"},
		{name: "neutralized", in: "ok\n::error::x\n", want: "ok\n\\u003a:error::x\n"},
		{name: "last line unterminated", in: "  ::warning::y", want: "  \\u003a:warning::y"},
		{name: "failed", in: "", wantErr: true},
	}
	f := TextFormat[string](func(b *strings.Builder, s string) error {
		if s == "" {
			return errors.New("nothing to write")
		}
		b.WriteString(s)
		return nil
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := f.Output(&buf, tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if buf.String() != tc.want {
				t.Errorf("got %q, want %q", buf.String(), tc.want)
			}
		})
	}
}
