package main

// The MCP 1.x result models the langchain-mcp-adapters and google-adk lanes validate and dump,
// built on the Python emulation of python.go.

import (
	"errors"
	"fmt"
	"strings"
)

// The MCP Python SDK's result models (mcp 1.29.0, src/mcp/types.py: pydantic v2 models with
// extra="allow"), as both Python lanes receive them from ClientSession.call_tool, and their
// model_dump(mode="json", exclude_none=True): declared fields in class order (base classes first),
// then extra fields in input order; a field holding None is left out (values inside a
// dict[str, Any] are not fields and keep their nulls); `_meta` is dumped under its field name
// `meta` (by_alias defaults to False and the models set no serialize_by_alias); AnyUrl fields
// become str(url); numbers in Any-typed values are Python ints or floats.

// mcp1Version is the mcp release whose types.py the model follows: the newest 1.x, which
// langchain-mcp-adapters 0.3.2 (mcp>=1.24.0,<2.0.0) and adk-python (which keeps resolving MCP 1.x
// by default) install.
const mcp1Version = "mcp v1.29.0"

var mcp1Basis = basisOf(mcp1Version)

// mcp1Field is one declared pydantic field: its Python name, the key it is read from, and how its
// value is validated and dumped.
type mcp1Field struct {
	name, alias string
	kind        string // str, str?, int?, float?, bool=false, dict?, url, icons?, annotations?, strlist?, resource, content
	required    bool
}

// mcp1Models lists each model's fields in dump order.
var mcp1Models = map[string][]mcp1Field{
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

// mcp1BlockModels selects the content-block model by its type (the ContentBlock union resolves on
// the Literal type field).
var mcp1BlockModels = map[string]string{
	"text": "TextContent", "image": "ImageContent", "audio": "ImageContent",
	"resource_link": "ResourceLink", "resource": "EmbeddedResource",
}

// mcp1CallToolResult validates a result as mcp's CallToolResult.model_validate does and returns
// its model_dump(mode="json", exclude_none=True), or the ValidationError ClientSession.call_tool
// raises, as str() shows it. Validation stops at the first error (pydantic reports every error of
// the input: the fixtures' invalid results have one).
func mcp1CallToolResult(result any) (*pyDict, error) {
	return mcp1ExcludeNone.callToolResult(result)
}

// mcp1PydanticMinor names the pydantic in a ValidationError's documentation URL: a fresh install
// of mcp 1.29.0 resolves the newest pydantic, 2.13 (langchain-mcp-adapters 0.3.2's uv.lock pins
// 2.13.4 for Python 3.14 and later).
const mcp1PydanticMinor = "2.13"

// mcp1Dump says how the models are dumped and which pydantic a ValidationError names.
type mcp1Dump struct {
	// excludeNone is model_dump(exclude_none=True): a field holding None is left out. Without it
	// every declared field is dumped, None included (an absent optional field reads None), and
	// extra fields are kept as given, None included.
	excludeNone bool
	// pydanticMinor is the pydantic minor version in a ValidationError's documentation URL.
	pydanticMinor string
}

// mcp1ExcludeNone is the dump the langchain-mcp-adapters and google-adk lanes read.
var mcp1ExcludeNone = mcp1Dump{excludeNone: true, pydanticMinor: mcp1PydanticMinor}

// callToolResult validates a result as CallToolResult.model_validate does and returns its dump,
// or the ValidationError, as str() shows it.
func (o mcp1Dump) callToolResult(result any) (*pyDict, error) {
	return o.model("CallToolResult", "", result)
}

// invalid is the ValidationError for one error of CallToolResult.
func (o mcp1Dump) invalid(loc, msg, typ string, input any) error {
	return errors.New(pydanticValidationError("CallToolResult", o.pydanticMinor,
		pydanticError{loc: strings.TrimPrefix(loc, "."), msg: msg, typ: typ, input: input}))
}

func (o mcp1Dump) model(model, loc string, v any) (*pyDict, error) {
	in, ok := v.(*pyDict)
	if !ok {
		return nil, o.invalid(loc, "Input should be a valid dictionary or instance of "+model, "model_type", v)
	}
	out := newPyDict()
	declared := map[string]bool{}
	for _, f := range mcp1Models[model] {
		declared[f.alias] = true
		raw, present := in.get(f.alias)
		floc := strings.TrimPrefix(loc+"."+f.alias, ".")
		if !present {
			if f.required {
				return nil, o.invalid(floc, "Field required", "missing", in)
			}
			if f.kind == "bool=false" {
				out.set(f.name, false)
			} else if !o.excludeNone {
				out.set(f.name, nil)
			}
			continue
		}
		val, err := o.fieldValue(floc, f, raw)
		if err != nil {
			return nil, err
		}
		if val != nil || !o.excludeNone {
			out.set(f.name, val)
		}
	}
	for _, k := range in.keys { // extra="allow": kept after the declared fields
		if declared[k] {
			continue
		}
		if x := pyGet(in, k); x != nil || !o.excludeNone {
			out.set(k, x)
		}
	}
	return out, nil
}

func (o mcp1Dump) fieldValue(loc string, f mcp1Field, raw any) (any, error) {
	bad := func(msg, typ string) (any, error) {
		return nil, o.invalid(loc, msg, typ, raw)
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
		s, ok := raw.(string)
		if !ok {
			return bad("URL input should be a string or URL", "url_type")
		}
		u, err := pydanticURL(s)
		if err != nil {
			return bad(err.Error(), "url_parsing")
		}
		return u, nil
	case "int?":
		switch raw.(type) {
		case pyInt, pyFloat:
			return raw, nil
		}
		return bad("Input should be a valid integer", "int_type")
	case "float?":
		switch n := raw.(type) {
		case pyFloat:
			return n, nil
		case pyInt:
			return pyNumber(string(n) + ".0"), nil
		}
		return bad("Input should be a valid number", "float_type")
	case "bool=false":
		if b, ok := raw.(bool); ok {
			return b, nil
		}
		return bad("Input should be a valid boolean", "bool_type")
	case "dict?":
		if d, ok := raw.(*pyDict); ok {
			return d, nil
		}
		return bad("Input should be a valid dictionary", "dict_type")
	case "strlist?":
		a, ok := raw.([]any)
		if !ok {
			return bad("Input should be a valid list", "list_type")
		}
		return a, nil
	case "annotations?":
		return o.model("Annotations", loc, raw)
	case "icons?":
		a, ok := raw.([]any)
		if !ok {
			return bad("Input should be a valid list", "list_type")
		}
		out := make([]any, len(a))
		for i, x := range a {
			d, err := o.model("Icon", fmt.Sprintf("%s.%d", loc, i), x)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case "resource":
		d, ok := raw.(*pyDict)
		if !ok {
			return bad("Input should be a valid dictionary", "model_type")
		}
		if _, text := d.get("text"); text {
			return o.model("TextResourceContents", loc, d)
		}
		return o.model("BlobResourceContents", loc, d)
	case "content":
		a, ok := raw.([]any)
		if !ok {
			return bad("Input should be a valid list", "list_type")
		}
		out := make([]any, len(a))
		for i, x := range a {
			bloc := fmt.Sprintf("%s.%d", loc, i)
			d, ok := x.(*pyDict)
			if !ok {
				return nil, o.invalid(bloc, "Input should be a valid dictionary", "model_type", x)
			}
			ts, _ := pyString(d, "type")
			model, known := mcp1BlockModels[ts]
			if !known {
				return nil, o.invalid(bloc, "Input does not match any ContentBlock member (unknown type)", "union_tag_invalid", d)
			}
			blk, err := o.model(model, bloc, d)
			if err != nil {
				return nil, err
			}
			out[i] = blk
		}
		return out, nil
	}
	return nil, fmt.Errorf("mcp1Dump.fieldValue: unknown kind %q", f.kind)
}
