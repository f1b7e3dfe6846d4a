package schema

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// The MCP schemas mark image and audio "data" and blob resource "blob" with
// "format": "byte" (the OpenAPI name for base64 text), and URIs with
// "format": "uri". JSON Schema 2020-12 only annotates formats by default and
// the library does not know "byte" at all (unknown formats are ignored), so
// New asserts formats and registers both checkers below.

// base64Std maps a byte to its value in the standard base64 alphabet
// (RFC 4648 §4), or 0xFF.
var base64Std = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// validateByte accepts exactly the canonical standard base64 of RFC 4648 §4:
// the "+/" alphabet (not the URL-safe one of §5), "=" padding to a multiple
// of four characters, no line breaks or other whitespace (§3.1, §3.3), and
// zero pad bits (§3.5). It is this strict because the checker compares
// decoded payload bytes (task T4) and re-encodes them canonically: a source
// whose payload only some decoders accept (encoding/base64 silently skips
// "\r" and "\n", many decoders accept missing padding or "-_") would make the
// source's own bytes ambiguous, and that is an input error, not an outcome.
// It decodes nothing and allocates nothing on success.
func validateByte(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	n := len(s)
	if n%4 != 0 {
		return fmt.Errorf("length %d is not a multiple of 4 (standard base64 is padded with \"=\")", n)
	}
	pad := 0
	if n > 0 && s[n-1] == '=' {
		pad = 1
		if s[n-2] == '=' {
			pad = 2
		}
	}
	for i := 0; i < n-pad; i++ {
		if base64Std[s[i]] == 0xFF {
			return fmt.Errorf("character %q at offset %d is not in the standard base64 alphabet", s[i], i)
		}
	}
	switch pad {
	case 1:
		if base64Std[s[n-2]]&0x03 != 0 {
			return errors.New("non-zero pad bits before \"=\" (not canonical base64)")
		}
	case 2:
		if base64Std[s[n-3]]&0x0F != 0 {
			return errors.New("non-zero pad bits before \"==\" (not canonical base64)")
		}
	}
	return nil
}

// validateURI accepts an RFC 3986 URI (§3: scheme ":" hier-part, optional
// query and fragment) — absolute, as JSON Schema's "uri" requires. The
// library's own "uri" check only asks net/url for a scheme, and net/url is
// lenient: it accepts spaces, non-ASCII characters, "%" not followed by two
// hex digits in the query and "#" twice. Here every character must be one
// RFC 3986 allows (§2: unreserved, reserved or a percent-encoded octet), "["
// and "]" only in the authority (an IP literal), "#" at most once; net/url
// then checks the authority (IPv6 brackets, port digits). Relative
// references and IRIs are rejected.
func validateURI(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return errors.New("no scheme (not an absolute URI)")
	}
	if colon == 0 || !isAlpha(s[0]) {
		return errors.New("the scheme must start with a letter")
	}
	for i := 1; i < colon; i++ {
		if c := s[i]; !isAlpha(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return fmt.Errorf("character %q at offset %d is not allowed in a scheme", c, i)
		}
	}
	// The authority, if any, runs from "//" to the next "/", "?" or "#".
	authStart, authEnd := -1, -1
	if strings.HasPrefix(s[colon+1:], "//") {
		authStart = colon + 3
		authEnd = len(s)
		if i := strings.IndexAny(s[authStart:], "/?#"); i >= 0 {
			authEnd = authStart + i
		}
	}
	hashes := 0
	for i := colon + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case isAlpha(c) || isDigit(c) || strings.IndexByte("-._~:/?@!$&'()*+,;=", c) >= 0:
		case c == '#':
			hashes++
			if hashes > 1 {
				return fmt.Errorf("a second \"#\" at offset %d", i)
			}
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Errorf("\"%%\" at offset %d is not followed by two hex digits", i)
			}
			i += 2
		case c == '[' || c == ']':
			if i < authStart || i >= authEnd {
				return fmt.Errorf("%q at offset %d outside the authority", c, i)
			}
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return fmt.Errorf("character %q at offset %d is not allowed in a URI (RFC 3986 §2; percent-encode it)", r, i)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if h := u.Hostname(); strings.Contains(h, ":") && !strings.HasPrefix(u.Host, "[") {
		return errors.New("an IPv6 address must be enclosed in brackets")
	}
	return nil
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
