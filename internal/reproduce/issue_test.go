package reproduce

import "testing"

// TestQuoteEscapes pins what quote writes for each character that is not graphic: its JSON
// escape, \uXXXX in lower-case hex, a UTF-16 surrogate pair beyond the basic plane; a graphic
// character, a space and a line feed as they are.
func TestQuoteEscapes(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{name: "graphic characters stay, beyond the basic plane too", doc: `{"a":"é😀"}`, want: "{\n  \"a\": \"é😀\"\n}"},
		{name: "a control character in a document that is not JSON", doc: "{\"a\":\"x\x01y\x1f\"}", want: `{"a":"x\u0001y\u001f"}`},
		{name: "delete and a C1 control", doc: "[\"\x7f\u0085\"]", want: "[\n  \"\\u007f\\u0085\"\n]"},
		{name: "line separator and bidi override", doc: "[\"\u2028\u202e\"]", want: "[\n  \"\\u2028\\u202e\"\n]"},
		{name: "a format character beyond the basic plane", doc: "[\"\U000e0001\U0001d173\"]", want: "[\n  \"\\udb40\\udc01\\ud834\\udd73\"\n]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := quote([]byte(tc.doc)); got != tc.want {
				t.Errorf("quote(%q)\n got %q\nwant %q", tc.doc, got, tc.want)
			}
		})
	}
}
