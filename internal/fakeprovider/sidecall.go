package fakeprovider

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Side calls are the generation requests an agent makes that are not its turn: a model router
// or classifier, a title or summary generation. They list no tools, or ask for JSON with tools
// that do not include the probe tool. Each gets a plausible answer in the API's ordinary final
// text shape: SideText, or when the request asks for JSON a small value valid against the
// schema it gives, so that a client parsing it goes on to its real turn. An example is
// @google/gemini-cli's model router (packages/core/src/routing/strategies/classifierStrategy.ts
// at 5411f113), which calls generateContent with no tools and generationConfig
// {responseMimeType: "application/json", responseJsonSchema: {type: "OBJECT", properties:
// {reasoning: {type: "STRING"}, model_choice: {type: "STRING", enum: ["flash", "pro"]}},
// required: ["reasoning", "model_choice"]}} and zod-parses the text of the answer.

// SideText is the answer to a side call that does not ask for JSON.
const SideText = "OK"

// sideAnswer is the text a side call gets: SideText, or when asked for JSON a value valid
// against schema (any JSON object when schema is empty).
func sideAnswer(asked bool, schema []byte) string {
	if !asked {
		return SideText
	}
	return string(mustMarshal(SampleJSON(schema)))
}

// jsonAsked reports whether a generation request asks for a JSON answer, and the JSON schema
// it gives for it (nil when none):
//
//   - OpenAI Responses: text.format {type: "json_schema", schema} or {type: "json_object"};
//   - OpenAI Chat Completions: response_format {type: "json_schema", json_schema: {schema}} or
//     {type: "json_object"};
//   - Gemini: generationConfig.responseMimeType "application/json" with responseJsonSchema or
//     responseSchema (snake_case spellings too);
//   - Anthropic Messages: never (the API has no JSON mode: a side call gets text).
func jsonAsked(api API, body []byte, ms []member) (bool, []byte, error) {
	raw := func(ms []member, key string) []byte {
		if m, ok := lookup(ms, key); ok {
			return body[m.start:m.end]
		}
		return nil
	}
	switch api {
	case OpenAIResponses, OpenAIChat:
		var format []member
		var ok bool
		var err error
		if api == OpenAIResponses {
			var text []member
			if text, ok, err = field(body, ms, "text"); err != nil || !ok {
				return false, nil, err
			}
			format, ok, err = field(body, text, "format")
		} else {
			format, ok, err = field(body, ms, "response_format")
		}
		if err != nil || !ok {
			return false, nil, err
		}
		switch typ, _ := str(body, format, "type"); typ {
		case "json_object":
			return true, nil, nil
		case "json_schema":
			if api == OpenAIResponses {
				return true, raw(format, "schema"), nil
			}
			js, ok, err := field(body, format, "json_schema")
			if err != nil || !ok {
				return true, nil, err
			}
			return true, raw(js, "schema"), nil
		}
	case Gemini:
		for _, key := range []string{"generationConfig", "generation_config"} {
			gc, ok, err := field(body, ms, key)
			if err != nil {
				return false, nil, err
			}
			if !ok {
				continue
			}
			mime, ok := str(body, gc, "responseMimeType")
			if !ok {
				mime, _ = str(body, gc, "response_mime_type")
			}
			if !strings.EqualFold(strings.TrimSpace(mime), "application/json") {
				return false, nil, nil
			}
			for _, k := range []string{"responseJsonSchema", "response_json_schema", "responseSchema", "response_schema"} {
				if s := raw(gc, k); s != nil {
					return true, s, nil
				}
			}
			return true, nil, nil
		}
	}
	return false, nil, nil
}

// maxSampleDepth bounds the nesting SampleJSON follows (through $ref too).
const maxSampleDepth = 24

// SampleJSON returns a small JSON value valid against the JSON schema text schema (JSON Schema,
// or the OpenAPI subset Gemini takes, whose type names are upper case), deterministically: for
// a const its value, for an enum its first value, else by type an object with its required
// properties (all listed properties when none is required), an array of minItems items, a
// string that satisfies length and common formats, the least number within the bounds, false
// or null. Local $ref ("#/…") are followed, anyOf and oneOf take the first branch that is not
// null, allOf merges its object branches. A schema it cannot read yields an empty object.
func SampleJSON(schema []byte) any {
	if len(bytes.TrimSpace(schema)) == 0 {
		return map[string]any{}
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return map[string]any{}
	}
	return sample(root, root, 0)
}

// sample is SampleJSON for the schema s inside the document root.
func sample(root, s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > maxSampleDepth {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		if target, ok := resolveRef(root, ref); ok {
			return sample(root, target, depth+1)
		}
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if branches, ok := m[key].([]any); ok && len(branches) > 0 {
			for _, b := range branches {
				if bm, ok := b.(map[string]any); ok && schemaType(bm) != "null" {
					return sample(root, b, depth+1)
				}
			}
			return sample(root, branches[0], depth+1)
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		merged := map[string]any{}
		for _, b := range all {
			v, ok := sample(root, b, depth+1).(map[string]any)
			if !ok {
				return sample(root, all[0], depth+1)
			}
			for k, x := range v {
				merged[k] = x
			}
		}
		return merged
	}
	switch schemaType(m) {
	case "object":
		props, _ := m["properties"].(map[string]any)
		var keys []string
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if k, ok := r.(string); ok && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		if len(keys) == 0 && depth < maxSampleDepth/2 {
			for k := range props {
				keys = append(keys, k)
			}
			sort.Strings(keys)
		}
		out := map[string]any{}
		for _, k := range keys {
			ps, ok := props[k]
			if !ok {
				ps = map[string]any{"type": "string"}
			}
			out[k] = sample(root, ps, depth+1)
		}
		return out
	case "array":
		n := min(int(number(m, "minItems", 0)), 8)
		out := make([]any, 0, n)
		prefix, _ := m["prefixItems"].([]any)
		for i := range n {
			var item any = m["items"]
			if i < len(prefix) {
				item = prefix[i]
			}
			if list, ok := item.([]any); ok { // draft 4 tuple items
				item = nil
				if i < len(list) {
					item = list[i]
				}
			}
			out = append(out, sample(root, item, depth+1))
		}
		return out
	case "string":
		return sampleString(m)
	case "integer":
		lo := number(m, "minimum", math.Inf(-1))
		if x := number(m, "exclusiveMinimum", math.Inf(-1)); x >= lo {
			lo = math.Floor(x) + 1
		}
		v := math.Max(0, math.Ceil(lo))
		if hi := number(m, "maximum", math.Inf(1)); v > hi {
			v = math.Floor(hi)
		}
		return json.Number(strconv.FormatInt(int64(v), 10))
	case "number":
		lo := number(m, "minimum", math.Inf(-1))
		if x := number(m, "exclusiveMinimum", math.Inf(-1)); x >= lo {
			lo = x + 1
		}
		v := math.Max(0, lo)
		if hi := number(m, "maximum", math.Inf(1)); v > hi {
			v = hi
		}
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
	case "boolean":
		return false
	case "null":
		return nil
	}
	return map[string]any{}
}

// schemaType is the type a schema asks for, lower case (Gemini's OpenAPI schemas say
// "OBJECT"): the first of a list that is not "null", else inferred from properties or items;
// "" when the schema says nothing.
func schemaType(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && !strings.EqualFold(s, "null") {
				return strings.ToLower(s)
			}
		}
		if len(t) > 0 {
			return "null"
		}
	}
	switch {
	case m["properties"] != nil || m["required"] != nil:
		return "object"
	case m["items"] != nil || m["prefixItems"] != nil:
		return "array"
	}
	return ""
}

// sampleString is a string that satisfies the schema's length bounds and common formats.
func sampleString(m map[string]any) string {
	s := "probe"
	switch f, _ := m["format"].(string); f {
	case "date-time":
		s = createdRFC3339
	case "date":
		s = createdRFC3339[:10]
	case "time":
		s = createdRFC3339[11:]
	case "email":
		s = "probe@example.com"
	case "uri", "url", "iri":
		s = "https://example.com/"
	case "uuid":
		s = "00000000-0000-4000-8000-000000000000"
	}
	if lo := int(number(m, "minLength", 0)); len(s) < lo {
		s += strings.Repeat("x", min(lo, 1<<16)-len(s))
	}
	if hi := number(m, "maxLength", math.Inf(1)); float64(len(s)) > hi {
		s = s[:max(int(hi), 0)]
	}
	return s
}

// number reads a numeric keyword of a schema, def when absent or not a number.
func number(m map[string]any, key string, def float64) float64 {
	n, ok := m[key].(json.Number)
	if !ok {
		return def
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) {
		return def
	}
	return f
}

// resolveRef follows a local JSON pointer reference ("#", "#/$defs/x") within root.
func resolveRef(root any, ref string) (any, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	return strictjson.Lookup(root, ptr)
}
