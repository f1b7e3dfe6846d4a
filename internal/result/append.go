package result

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// An Appender is Results or Changes that write element i as compact JSON themselves, byte for
// byte what encoding/json writes for At(i) with HTML escaping off, without making it. The census
// keeps readouts and diagnostics in their canonical encoding: decoding them into maps to have
// encoding/json walk the maps back was most of writing a 1M-binding report. The JSON format uses
// AppendJSON when its Results or an upgrade's Changes have it; it must be safe for concurrent use.
type Appender interface {
	AppendJSON(dst []byte, i int) ([]byte, error)
}

// AppendResult appends r as encoding/json writes it with HTML escaping off, with its readout and
// diagnostics given in their canonical encoding (strictjson.Marshal: compact, members sorted,
// numbers as written; nil for none) instead of r.Readout and r.Diagnostics, which it does not
// read. TestAppendResultIsJSON and FuzzAppendResult hold it to encoding/json.
func AppendResult(dst []byte, r *Result, readout, diagnostics []byte) ([]byte, error) {
	dst = openObject(dst, []stringMember{
		{"fixture", r.Fixture}, {"suite", r.Suite}, {"family", r.Family}, {"lane", r.Lane},
		{"laneVersion", r.LaneVersion}, {"configuration", r.Configuration}, {"stage", r.Stage},
		{"task", r.Task}, {"role", r.Role}, {"compartment", r.Compartment}, {"outcome", r.Outcome},
		{"origin", r.Origin},
	})
	dst = appendMember(append(dst, ','), "repetitions")
	dst = strconv.AppendInt(dst, int64(r.Repetitions), 10)
	dst = appendMember(append(dst, ','), "required")
	dst = strconv.AppendBool(dst, r.Required)
	if len(r.RequiredBy) > 0 {
		dst = appendMember(append(dst, ','), "requiredBy")
		for i, s := range r.RequiredBy {
			dst = append(dst, "[,"[min(i, 1)])
			dst = appendString(dst, s)
		}
		dst = append(dst, ']')
	}
	dst = appendTree(dst, "readout", readout, "{}")
	dst = appendTree(dst, "diagnostics", diagnostics, "[]")
	if r.Error != "" {
		dst = appendMember(append(dst, ','), "error")
		dst = appendString(dst, r.Error)
	}
	if len(r.Variants) > 0 { // an unstable binding: rare, and written as encoding/json writes it
		b, err := strictjson.MarshalGo(r.Variants)
		if err != nil {
			return nil, err
		}
		dst = append(appendMember(append(dst, ','), "variants"), b...)
	}
	if len(r.Records) > 0 {
		dst = appendMember(append(dst, ','), "records")
		for i, rec := range r.Records {
			dst = append(dst, "[,"[min(i, 1)])
			dst = appendMember(append(dst, '{'), "file")
			dst = appendString(dst, rec.File)
			dst = appendMember(append(dst, ','), "line")
			dst = strconv.AppendInt(dst, int64(rec.Line), 10)
			dst = appendMember(append(dst, ','), "repetition")
			dst = strconv.AppendInt(dst, int64(rec.Repetition), 10)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

// AppendChange appends c as encoding/json writes it with HTML escaping off, with the diagnostics
// before and after given in their canonical encoding (nil for none) instead of
// c.DiagnosticsBefore and c.DiagnosticsAfter, as AppendResult does.
func AppendChange(dst []byte, c *Change, before, after []byte) []byte {
	dst = openObject(dst, []stringMember{
		{"fixture", c.Fixture}, {"stage", c.Stage}, {"task", c.Task}, {"before", c.Before}, {"after", c.After},
	})
	dst = appendTree(dst, "diagnosticsBefore", before, "[]")
	dst = appendTree(dst, "diagnosticsAfter", after, "[]")
	return append(dst, '}')
}

// stringMember is a member whose value is a string.
type stringMember struct{ name, v string }

// openObject appends the opening brace of an object and its first members, strings all.
func openObject(dst []byte, members []stringMember) []byte {
	for i, m := range members {
		dst = append(dst, "{,"[min(i, 1)])
		dst = appendMember(dst, m.name)
		dst = appendString(dst, m.v)
	}
	return dst
}

// appendMember appends a member's name and colon (names are plain ASCII).
func appendMember(dst []byte, name string) []byte {
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// appendTree appends ,"name":tree for a tree in canonical encoding, unless omitempty leaves it out
// (none, or empty: the canonical encoding of an empty map or list).
func appendTree(dst []byte, name string, tree []byte, empty string) []byte {
	if tree == nil || string(tree) == empty {
		return dst
	}
	dst = appendMember(append(dst, ','), name)
	// The canonical encoding escapes what encoding/json escapes, with HTML escaping off, but for
	// U+2028 and U+2029, which encoding/json always escapes (their UTF-8 bytes occur only inside
	// strings, and only as those characters).
	if !bytes.Contains(tree, lineSep[:2]) {
		return append(dst, tree...)
	}
	for len(tree) > 0 {
		i := bytes.Index(tree, lineSep[:2])
		if i < 0 || i+2 >= len(tree) {
			return append(dst, tree...)
		}
		dst = append(dst, tree[:i]...)
		if c := tree[i+2]; c == lineSep[2] || c == paraSep[2] {
			dst = append(dst, `\u202`...)
			dst = append(dst, "89"[c-lineSep[2]])
		} else {
			dst = append(dst, tree[i:i+3]...)
		}
		tree = tree[i+3:]
	}
	return dst
}

// The UTF-8 encodings of U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR.
var lineSep, paraSep = [3]byte{0xe2, 0x80, 0xa8}, [3]byte{0xe2, 0x80, 0xa9}

// appendString appends s quoted as encoding/json quotes it with HTML escaping off: '"', '\\' and
// control characters escaped (\b \f \n \r \t, else \u00xx), U+2028 and U+2029 escaped, invalid
// UTF-8 replaced by \ufffd.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
