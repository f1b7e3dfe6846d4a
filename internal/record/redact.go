package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// Redacted is what --redact puts in place of a value.
const Redacted = "[redacted]"

// pointer is one --redact JSON pointer: as given, and its unescaped reference tokens.
type pointer struct {
	text   string
	tokens []string
}

// parsePointer parses an RFC 6901 JSON pointer ("" is the whole document, else "/"-separated
// tokens with ~0 for ~ and ~1 for /).
func parsePointer(s string) (pointer, error) {
	p := pointer{text: s}
	if s == "" {
		return p, nil
	}
	if s[0] != '/' {
		return p, fmt.Errorf("--redact %s: a JSON pointer starts with / (RFC 6901)", strconv.Quote(s))
	}
	for _, t := range strings.Split(s[1:], "/") {
		for i := 0; i < len(t); i++ {
			if t[i] == '~' && (i+1 == len(t) || t[i+1] != '0' && t[i+1] != '1') {
				return p, fmt.Errorf("--redact %s: ~ must be followed by 0 or 1 (RFC 6901)", strconv.Quote(s))
			}
		}
		p.tokens = append(p.tokens, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return p, nil
}

// redact applies the pointers to a tools/call result: the value at each is replaced by the
// string "[redacted]", and the text of every string in the values replaced is then blanked
// ("[redacted]") wherever it occurs in the result (a text block's copy of structuredContent, say)
// and in the provider item, as JSON string content escaped once (or with HTML escapes) or twice
// (JSON inside a JSON string). Numbers, booleans and null replaced by a pointer are not searched
// for elsewhere (their text would blank unrelated text). applied lists the pointers that
// selected a value. Both outputs are checked to still be JSON.
func redact(ps []pointer, src, item []byte) (outSrc, outItem []byte, applied []string, err error) {
	if len(ps) == 0 {
		return src, item, nil, nil
	}
	outSrc, outItem = src, item
	var texts []string
	for _, p := range ps {
		s, e, ok, err := fakeprovider.ValueAt(outSrc, p.tokens)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--redact %s: the result: %v", p.text, err)
		}
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(outSrc[s:e], &v) == nil {
			texts = append(texts, stringsOf(v)...)
		}
		outSrc = slices.Concat(outSrc[:s:s], []byte(`"`+Redacted+`"`), outSrc[e:])
		applied = append(applied, p.text)
	}
	if len(applied) == 0 {
		return src, item, nil, nil
	}
	var forms [][]byte
	for _, t := range texts {
		if t == "" || t == Redacted {
			continue
		}
		once := escape(t, false)
		html := escape(t, true)
		for _, f := range [][]byte{once, html, asciiEscape(once), asciiEscape(html)} {
			forms = append(forms, f, escape(string(f), false))
		}
	}
	// The longest first, so that a shorter form never splits a longer one's occurrence.
	slices.SortFunc(forms, func(a, b []byte) int { return len(b) - len(a) })
	for _, f := range forms {
		outSrc = bytes.ReplaceAll(outSrc, f, []byte(Redacted))
		outItem = bytes.ReplaceAll(outItem, f, []byte(Redacted))
	}
	if !json.Valid(outSrc) || !json.Valid(outItem) {
		return nil, nil, nil, fmt.Errorf("--redact %s: blanking the value's text left the result or the provider item not JSON", strings.Join(applied, ", "))
	}
	return outSrc, outItem, applied, nil
}

// escape is s as the content of a JSON string, with or without HTML escapes.
func escape(s string, html bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(s)
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return out[1 : len(out)-1]
}

// stringsOf lists the strings of a decoded value: itself, or its members' and elements'.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, stringsOf(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringsOf(e)...)
		}
		return out
	}
	return nil
}

// asciiEscape writes every non-ASCII character of JSON string content as \uXXXX (lower-case
// hex, surrogate pairs beyond the BMP), as Python's json.dumps does by default.
func asciiEscape(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&out, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&out, "\\u%04x", r)
		}
	}
	return out.Bytes()
}
