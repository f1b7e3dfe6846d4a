package main

// Python and pydantic behaviour the langchain-mcp-adapters and google-adk lanes rely on: ordered
// dicts, how Python reads JSON numbers, float repr, json.dumps and pydantic's AnyUrl. The names
// carry an lc prefix so they cannot collide with the general helpers of python.go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// lcDict is a Python dict: insertion-ordered, so a reconstructed carrier lists its keys in the
// order the framework builds them.
type lcDict struct {
	keys []string
	vals map[string]any
}

func newLCDict() *lcDict { return &lcDict{vals: map[string]any{}} }

// Set adds or replaces a key, keeping the first insertion position (Python dict semantics).
func (d *lcDict) Set(k string, v any) *lcDict {
	if _, ok := d.vals[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.vals[k] = v
	return d
}

// Get returns the value of k and whether k is present.
func (d *lcDict) Get(k string) (any, bool) {
	if d == nil {
		return nil, false
	}
	v, ok := d.vals[k]
	return v, ok
}

// Keys returns the keys in insertion order.
func (d *lcDict) Keys() []string { return d.keys }

// Len is len(dict).
func (d *lcDict) Len() int { return len(d.keys) }

// MarshalJSON writes the dict in insertion order.
func (d *lcDict) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range d.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(d.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// lcDecodeOrdered decodes JSON into lcDict objects, []any arrays, json.Number numbers, strings,
// bools and nil, keeping the source's key order (Python's json and pydantic keep it too).
func lcDecodeOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := lcDecodeValue(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func lcDecodeValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := newLCDict()
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := lcDecodeValue(d)
				if err != nil {
					return nil, err
				}
				m.Set(kt.(string), v)
			}
			_, err := d.Token()
			return m, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := lcDecodeValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	default:
		return t, nil
	}
}

// lcPyNumber is what a JSON number becomes in Python (json.loads, or pydantic's JSON parser for an
// Any field), written back as JSON: a literal without '.', 'e' or 'E' is an int, exact at any
// size; any other literal is a float, rounded to the nearest IEEE double and written by
// float.__repr__.
func lcPyNumber(n json.Number) json.Number {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return "0"
		}
		return n
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return n // out of double range: Python gives inf, which no fixture holds
	}
	return json.Number(lcPyFloatRepr(f))
}

// lcPyFloatRepr is Python's float.__repr__ (repr style "short"): the shortest digits that round
// back to f, in fixed notation for 1e-4 <= |f| < 1e16 (with ".0" for integral values) and in
// scientific notation otherwise, with a signed exponent of at least two digits.
func lcPyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	sign := ""
	if math.Signbit(f) {
		sign = "-"
		f = -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(exps)
	decpt := exp + 1 // digits[:decpt] is the integer part
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			return sign + "0." + strings.Repeat("0", -decpt) + digits
		case decpt < len(digits):
			return sign + digits[:decpt] + "." + digits[decpt:]
		default:
			return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
		}
	}
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if exp < 0 {
		es, exp = "-", -exp
	}
	return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
}

// lcPyValue is a JSON value as Python holds it after parsing: every number through lcPyNumber.
func lcPyValue(v any) any {
	switch v := v.(type) {
	case *lcDict:
		out := newLCDict()
		for _, k := range v.keys {
			out.Set(k, lcPyValue(v.vals[k]))
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = lcPyValue(x)
		}
		return out
	case json.Number:
		return lcPyNumber(v)
	default:
		return v
	}
}

// lcPyTruthy is Python's bool(x) for a parsed JSON value.
func lcPyTruthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case *lcDict:
		return v.Len() > 0
	case []any:
		return len(v) > 0
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return err != nil || f != 0
	}
	return true
}

// lcPyJSONDumps is json.dumps(v) with its defaults: ensure_ascii=True (every non-ASCII character
// as \uXXXX, astral characters as a surrogate pair), separators ", " and ": ", keys in dict order,
// numbers as Python holds them (call lcPyValue first).
func lcPyJSONDumps(v any) string {
	var b strings.Builder
	lcDump(&b, v)
	return b.String()
}

func lcDump(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(v))
	case string:
		lcDumpString(b, v)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			lcDump(b, x)
		}
		b.WriteByte(']')
	case *lcDict:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			lcDumpString(b, k)
			b.WriteString(": ")
			lcDump(b, v.vals[k])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("lcPyJSONDumps: unsupported %T", v))
	}
}

// lcDumpString follows CPython's py_encode_basestring_ascii.
func lcDumpString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (r >= 0x7f && r < 0x10000):
				fmt.Fprintf(b, `\u%04x`, r)
			case r >= 0x10000:
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// lcSpecialSchemes are the WHATWG "special" schemes, for which pydantic's URL type (the Rust url
// crate) always has a path: a bare authority gets "/".
var lcSpecialSchemes = map[string]bool{"http": true, "https": true, "ws": true, "wss": true, "ftp": true, "file": true}

// lcPydanticURL is str(AnyUrl(s)) for the URIs the fixtures hold: the scheme and host are
// lowercased and a special-scheme URL with an empty path gets the trailing "/". Percent-encoding
// and IDNA normalisation, which no fixture exercises, are not modelled.
func lcPydanticURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return s
	}
	scheme := strings.ToLower(u.Scheme)
	rest := s[len(u.Scheme):] // ":..." as written
	if !lcSpecialSchemes[scheme] || u.Opaque != "" {
		return scheme + rest
	}
	u.Scheme = scheme
	u.Host = strings.ToLower(u.Host)
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u.String()
}

// The MCP Python SDK's result models (mcp 1.29.0, src/mcp/types.py: pydantic v2 models with
// extra="allow"), as both Python lanes receive them from ClientSession.call_tool, and their
// model_dump(mode="json", exclude_none=True): declared fields in class order (base classes first),
// then extra fields in input order; a field holding None is left out (values inside a
// dict[str, Any] are not fields and keep their nulls); `_meta` is dumped under its field name
// `meta` (by_alias defaults to False and the models set no serialize_by_alias); AnyUrl fields
// become str(url); numbers in Any-typed values are Python ints or floats.

// lcMCPVersion is the mcp release whose types.py the model follows: the newest 1.x, which
// langchain-mcp-adapters 0.3.2 (mcp>=1.24.0,<2.0.0) and adk-python (which keeps resolving MCP 1.x
// by default) install.
const lcMCPVersion = "mcp v1.29.0"

// lcValidationError is a pydantic ValidationError as str() shows it (input_value omitted).
type lcValidationError struct {
	model, loc, msg, typ, inputType string
}

func (e *lcValidationError) Error() string {
	return fmt.Sprintf("1 validation error for %s\n%s\n  %s [type=%s, input_type=%s]", e.model, e.loc, e.msg, e.typ, e.inputType)
}

// lcPyTypeName is type(x).__name__ of a parsed JSON value.
func lcPyTypeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case *lcDict:
		return "dict"
	case []any:
		return "list"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "float"
		}
		return "int"
	}
	return fmt.Sprintf("%T", v)
}

// lcField is one declared pydantic field: its Python name, the key it is read from, and how its
// value is validated and dumped.
type lcField struct {
	name, alias string
	kind        string // str, str?, int?, float?, bool=false, dict?, url, icons?, annotations?, strlist?, resource, content
	required    bool
}

// lcMCPModels lists each model's fields in dump order.
var lcMCPModels = map[string][]lcField{
	"CallToolResult": {
		{name: "meta", alias: "_meta", kind: "dict?"},
		{name: "content", alias: "content", kind: "content", required: true},
		{name: "structuredContent", alias: "structuredContent", kind: "dict?"},
		{name: "isError", alias: "isError", kind: "bool=false"},
	},
	"TextContent": {
		{name: "type", alias: "type", kind: "str", required: true},
		{name: "text", alias: "text", kind: "str", required: true},
		{name: "annotations", alias: "annotations", kind: "annotations?"},
		{name: "meta", alias: "_meta", kind: "dict?"},
	},
	"ImageContent": {
		{name: "type", alias: "type", kind: "str", required: true},
		{name: "data", alias: "data", kind: "str", required: true},
		{name: "mimeType", alias: "mimeType", kind: "str", required: true},
		{name: "annotations", alias: "annotations", kind: "annotations?"},
		{name: "meta", alias: "_meta", kind: "dict?"},
	},
	"ResourceLink": { // BaseMetadata (name, title), Resource (uri … meta), ResourceLink (type)
		{name: "name", alias: "name", kind: "str", required: true},
		{name: "title", alias: "title", kind: "str?"},
		{name: "uri", alias: "uri", kind: "url", required: true},
		{name: "description", alias: "description", kind: "str?"},
		{name: "mimeType", alias: "mimeType", kind: "str?"},
		{name: "size", alias: "size", kind: "int?"},
		{name: "icons", alias: "icons", kind: "icons?"},
		{name: "annotations", alias: "annotations", kind: "annotations?"},
		{name: "meta", alias: "_meta", kind: "dict?"},
		{name: "type", alias: "type", kind: "str", required: true},
	},
	"EmbeddedResource": {
		{name: "type", alias: "type", kind: "str", required: true},
		{name: "resource", alias: "resource", kind: "resource", required: true},
		{name: "annotations", alias: "annotations", kind: "annotations?"},
		{name: "meta", alias: "_meta", kind: "dict?"},
	},
	"TextResourceContents": {
		{name: "uri", alias: "uri", kind: "url", required: true},
		{name: "mimeType", alias: "mimeType", kind: "str?"},
		{name: "meta", alias: "_meta", kind: "dict?"},
		{name: "text", alias: "text", kind: "str", required: true},
	},
	"BlobResourceContents": {
		{name: "uri", alias: "uri", kind: "url", required: true},
		{name: "mimeType", alias: "mimeType", kind: "str?"},
		{name: "meta", alias: "_meta", kind: "dict?"},
		{name: "blob", alias: "blob", kind: "str", required: true},
	},
	"Annotations": {
		{name: "audience", alias: "audience", kind: "strlist?"},
		{name: "priority", alias: "priority", kind: "float?"},
	},
	"Icon": {
		{name: "src", alias: "src", kind: "str", required: true},
		{name: "mimeType", alias: "mimeType", kind: "str?"},
		{name: "sizes", alias: "sizes", kind: "strlist?"},
	},
}

// lcBlockModels selects the content-block model by its type (the ContentBlock union resolves on
// the Literal type field).
var lcBlockModels = map[string]string{
	"text": "TextContent", "image": "ImageContent", "audio": "ImageContent",
	"resource_link": "ResourceLink", "resource": "EmbeddedResource",
}

// lcMCPCallToolResult validates a result as mcp's CallToolResult.model_validate does and returns
// its model_dump(mode="json", exclude_none=True), or the ValidationError ClientSession.call_tool
// raises.
func lcMCPCallToolResult(result any) (*lcDict, error) {
	return lcMCPModelDump("CallToolResult", "CallToolResult", "", result)
}

func lcMCPModelDump(root, model, loc string, v any) (*lcDict, error) {
	in, ok := v.(*lcDict)
	if !ok {
		return nil, &lcValidationError{root, strings.TrimPrefix(loc, "."), "Input should be a valid dictionary or instance of " + model, "model_type", lcPyTypeName(v)}
	}
	out := newLCDict()
	declared := map[string]bool{}
	for _, f := range lcMCPModels[model] {
		declared[f.alias] = true
		raw, present := in.Get(f.alias)
		floc := strings.TrimPrefix(loc+"."+f.alias, ".")
		if !present {
			if f.required {
				return nil, &lcValidationError{root, floc, "Field required", "missing", "dict"}
			}
			if f.kind == "bool=false" {
				out.Set(f.name, false)
			}
			continue
		}
		val, err := lcMCPField(root, floc, f, raw)
		if err != nil {
			return nil, err
		}
		if val != nil {
			out.Set(f.name, val)
		}
	}
	for _, k := range in.Keys() { // extra="allow": kept after the declared fields
		if declared[k] {
			continue
		}
		if x, _ := in.Get(k); x != nil {
			out.Set(k, lcPyValue(x))
		}
	}
	return out, nil
}

func lcMCPField(root, loc string, f lcField, raw any) (any, error) {
	bad := func(msg, typ string) (any, error) {
		return nil, &lcValidationError{root, loc, msg, typ, lcPyTypeName(raw)}
	}
	if raw == nil {
		if f.kind == "str" || f.kind == "url" || f.kind == "bool=false" || f.kind == "content" || f.kind == "resource" {
			return bad("Input should be a valid "+map[string]string{"str": "string", "url": "URL", "bool=false": "boolean", "content": "list", "resource": "dictionary"}[f.kind], map[string]string{"str": "string_type", "url": "url_type", "bool=false": "bool_type", "content": "list_type", "resource": "model_type"}[f.kind])
		}
		return nil, nil
	}
	switch f.kind {
	case "str", "str?":
		if s, ok := raw.(string); ok {
			return s, nil
		}
		return bad("Input should be a valid string", "string_type")
	case "url":
		if s, ok := raw.(string); ok {
			return lcPydanticURL(s), nil
		}
		return bad("URL input should be a string or URL", "url_type")
	case "int?":
		if n, ok := raw.(json.Number); ok {
			return lcPyNumber(n), nil
		}
		return bad("Input should be a valid integer", "int_type")
	case "float?":
		if n, ok := raw.(json.Number); ok {
			fl, _ := strconv.ParseFloat(string(n), 64)
			return json.Number(lcPyFloatRepr(fl)), nil
		}
		return bad("Input should be a valid number", "float_type")
	case "bool=false":
		if b, ok := raw.(bool); ok {
			return b, nil
		}
		return bad("Input should be a valid boolean", "bool_type")
	case "dict?":
		if d, ok := raw.(*lcDict); ok {
			return lcPyValue(d), nil
		}
		return bad("Input should be a valid dictionary", "dict_type")
	case "strlist?":
		a, ok := raw.([]any)
		if !ok {
			return bad("Input should be a valid list", "list_type")
		}
		return lcPyValue(a), nil
	case "annotations?":
		return lcMCPModelDump(root, "Annotations", loc, raw)
	case "icons?":
		a, ok := raw.([]any)
		if !ok {
			return bad("Input should be a valid list", "list_type")
		}
		out := make([]any, len(a))
		for i, x := range a {
			d, err := lcMCPModelDump(root, "Icon", fmt.Sprintf("%s.%d", loc, i), x)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case "resource":
		d, ok := raw.(*lcDict)
		if !ok {
			return bad("Input should be a valid dictionary", "model_type")
		}
		if _, text := d.Get("text"); text {
			return lcMCPModelDump(root, "TextResourceContents", loc, d)
		}
		return lcMCPModelDump(root, "BlobResourceContents", loc, d)
	case "content":
		a, ok := raw.([]any)
		if !ok {
			return bad("Input should be a valid list", "list_type")
		}
		out := make([]any, len(a))
		for i, x := range a {
			bloc := fmt.Sprintf("%s.%d", loc, i)
			d, ok := x.(*lcDict)
			if !ok {
				return nil, &lcValidationError{root, bloc, "Input should be a valid dictionary", "model_type", lcPyTypeName(x)}
			}
			t, _ := d.Get("type")
			ts, _ := t.(string)
			model, known := lcBlockModels[ts]
			if !known {
				return nil, &lcValidationError{root, bloc, "Input does not match any ContentBlock member (unknown type)", "union_tag_invalid", "dict"}
			}
			blk, err := lcMCPModelDump(root, model, bloc, d)
			if err != nil {
				return nil, err
			}
			out[i] = blk
		}
		return out, nil
	}
	return nil, fmt.Errorf("lcMCPField: unknown kind %q", f.kind)
}

// lcString reads a string field of a dumped model.
func lcString(d *lcDict, k string) (string, bool) {
	v, ok := d.Get(k)
	s, isStr := v.(string)
	return s, ok && isStr
}
