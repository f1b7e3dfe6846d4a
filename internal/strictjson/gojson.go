package strictjson

import (
	"bytes"
	"encoding/json"
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

// MarshalGo is EncodeLine without the final newline: v as encoding/json marshals it, HTML
// escaping off.
func MarshalGo(v any) ([]byte, error) {
	b, err := EncodeLine(v)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}
