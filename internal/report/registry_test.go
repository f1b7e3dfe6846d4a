package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestSharedFormats: the formats every verb shares. JSONFormat writes a result as WriteJSON does
// (indented, keys sorted, no HTML escaping). TextFormat writes the text it builds whole through
// WriteLog, but no line of it starts a CI workflow command (neutralized), also the last one
// without a line break; nothing is written when building it fails.
func TestSharedFormats(t *testing.T) {
	text := TextFormat[any](func(b *strings.Builder, v any) error {
		s, _ := v.(string)
		if s == "" {
			return errors.New("nothing to write")
		}
		b.WriteString(s)
		return nil
	})
	tests := []struct {
		name    string
		format  Formatter[any]
		in      any
		want    string
		wantErr bool
	}{
		{name: "json sorted and indented", format: JSONFormat[any]{}, in: map[string]any{"b": 1, "a": "x"}, want: "{\n  \"a\": \"x\",\n  \"b\": 1\n}\n"},
		{name: "json without HTML escaping", format: JSONFormat[any]{}, in: map[string]any{"s": "<script>&"}, want: "{\n  \"s\": \"<script>&\"\n}\n"},
		{name: "text written", format: text, in: "a\nb\n", want: "a\nb\n"},
		{name: "text neutralized", format: text, in: "ok\n::error::x\n", want: "ok\n\\u003a:error::x\n"},
		{name: "text last line unterminated", format: text, in: "  ::warning::y", want: "  \\u003a:warning::y"},
		{name: "text failed", format: text, in: "", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tc.format.Output(&buf, tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if buf.String() != tc.want {
				t.Errorf("got %q, want %q", buf.String(), tc.want)
			}
		})
	}
}
