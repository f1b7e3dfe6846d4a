package strictjson

import (
	"bytes"
	"encoding/json"
	"io"
)

// EncodeLine is v as encoding/json encodes it (struct tags, Marshaler methods, map keys sorted)
// but with HTML escaping off, so "<stdin>" and "a && b" keep their characters: compact, ending in
// a newline. It is for Go values (structs) that Marshal, which takes only decoded trees, does
// not accept.
func EncodeLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// EncodeIndented writes v to w as EncodeLine encodes it (encoding/json, HTML escaping off) but
// indented by two spaces, ending in a newline: the form of every JSON document contractcheck
// writes for people and tools to read (reports, OPA's capabilities file, reproduce's checks).
func EncodeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// MarshalGo is EncodeLine without the final newline: v as encoding/json marshals it, HTML
// escaping off.
func MarshalGo(v any) ([]byte, error) {
	b, err := EncodeLine(v)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}
