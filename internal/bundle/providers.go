package bundle

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// MaxSchemaDepth is how many subschemas deep (properties, anyOf branches, $ref targets) the
// bundle's provider-acceptance validator follows a provider schema (rego/accept.rego, max_depth);
// Build refuses a deeper schema.
const MaxSchemaDepth = 16

// schemaKeywords are the keywords of a provider schema the bundle's validator reads and words as
// check does (rego/accept.rego): validation keywords with the value each may take.
var schemaKeywords = map[string]bool{
	"type": true, "enum": true, "required": true, "properties": true, "anyOf": true, "$ref": true,
	"minLength": true, "maxLength": true, "format": true,
}

// annotations are the keywords that do not take part in validation; x-… extensions are too.
var annotations = map[string]bool{
	"$schema": true, "$comment": true, "$defs": true, "title": true, "description": true,
	"default": true, "examples": true, "example": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "discriminator": true,
}

// providerSchemas reads the provider request schemas the model's block mappings name (accepts):
// the pinned files under the built-in schemas directory, which is where check reads them from
// (internal/inputs: NewValidator). Each must be one the bundle's validator reads exactly.
func providerSchemas(m *contract.Model) (map[string]any, error) {
	names := map[string]bool{}
	var kinds func(ks map[string]contract.BlockMapping)
	kinds = func(ks map[string]contract.BlockMapping) {
		for _, bm := range ks {
			if bm.Accepts != "" {
				names[bm.Accepts] = true
			}
			if bm.Embedded != nil {
				kinds(bm.Embedded.Kinds)
			}
		}
	}
	for _, l := range m.Lanes {
		for _, sd := range l.Stages {
			for _, c := range sd.Compartments {
				if c.Content != nil {
					kinds(c.Content.Kinds)
				}
			}
		}
	}
	out := make(map[string]any, len(names))
	for _, name := range contract.SortedKeys(names) {
		p := "schemas/" + name
		if !fs.ValidPath(p) {
			return nil, fmt.Errorf("bundle: accepts %q is not a path under schemas/", name)
		}
		data, err := safeio.ReadFile(contractcheck.Builtin, p, safeio.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("bundle: accepts %s: %w", name, err)
		}
		doc, err := strictjson.Decode(p, data, strictjson.DefaultLimits)
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		if err := checkProviderSchema(doc); err != nil {
			return nil, fmt.Errorf("bundle: %s: %w", p, err)
		}
		out[name] = doc
	}
	return out, nil
}

// checkProviderSchema refuses a provider schema the bundle's validator would not judge and word
// as check does: a keyword it does not read, a format other than "uri", a boolean subschema, a
// reference that is not local or beside other validation keywords (stock OPA's json.match_schema
// then ignores those), a reference cycle, or more than MaxSchemaDepth subschemas deep.
func checkProviderSchema(doc any) error {
	root, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("a provider schema is an object, not %s", strictjson.TypeName(doc))
	}
	var errs []string
	add := func(at, format string, args ...any) {
		if at == "" {
			at = "(document)"
		}
		errs = append(errs, at+": "+fmt.Sprintf(format, args...))
	}
	if defs, ok := root["$defs"]; ok {
		if _, isObj := defs.(map[string]any); !isObj {
			add("/$defs", "$defs is an object of subschemas")
		}
	}
	// depth[p] is how deep the validator may follow from the schema at p; visiting holds the
	// references being followed, to find a cycle.
	depth := map[string]int{}
	visiting := map[string]bool{}
	var visit func(at string, v any) int
	visit = func(at string, v any) int {
		if d, ok := depth[at]; ok {
			return d
		}
		s, ok := v.(map[string]any)
		if !ok {
			add(at, "a subschema is an object here, not %s", strictjson.TypeName(v))
			return 0
		}
		if visiting[at] {
			add(at, "a reference cycle: the bundle's validator follows a schema a bounded depth")
			return MaxSchemaDepth
		}
		visiting[at] = true
		defer delete(visiting, at)
		deepest := 0
		child := func(p string, c any) {
			deepest = max(deepest, 1+visit(p, c))
		}
		validation := 0
		for _, k := range contract.SortedKeys(s) {
			val := s[k]
			switch {
			case annotations[k] || strings.HasPrefix(k, "x-"):
				if k == "$defs" && at != "" {
					add(at+"/$defs", "$defs only at the schema's root")
				}
				continue
			case !schemaKeywords[k]:
				add(at, "keyword %q is not one the bundle's provider-acceptance validator reads (it reads %s)", k, strings.Join(contract.SortedKeys(schemaKeywords), ", "))
				continue
			}
			if k != "$ref" {
				validation++
			}
			switch k {
			case "type":
				if !validTypes(val) {
					add(at+"/type", "type is one type name or a list of them")
				}
			case "enum", "required":
				if _, ok := val.([]any); !ok {
					add(at+"/"+k, "%s is a list", k)
				}
			case "format":
				if val != "uri" {
					add(at+"/format", "format %v is not one the bundle's validator asserts as check does (only \"uri\")", val)
				}
			case "minLength", "maxLength":
				if strictjson.TypeName(val) != "number" {
					add(at+"/"+k, "%s is a number", k)
				}
			case "properties":
				props, ok := val.(map[string]any)
				if !ok {
					add(at+"/properties", "properties is an object of subschemas")
					continue
				}
				for _, name := range contract.SortedKeys(props) {
					child(at+"/properties/"+strictjson.EscapeToken(name), props[name])
				}
			case "anyOf":
				alts, ok := val.([]any)
				if !ok || len(alts) == 0 {
					add(at+"/anyOf", "anyOf is a non-empty list of subschemas")
					continue
				}
				for i, a := range alts {
					child(fmt.Sprintf("%s/anyOf/%d", at, i), a)
				}
			case "$ref":
				ref, _ := val.(string)
				target, ok := resolve(root, ref)
				if !ok {
					add(at+"/$ref", "reference %v is not a local one to a definition (\"#/$defs/…\")", val)
					continue
				}
				child(strings.TrimPrefix(ref, "#"), target)
			}
		}
		if _, ok := s["$ref"]; ok && validation > 0 {
			add(at, "a reference beside validation keywords (stock OPA's json.match_schema would ignore them)")
		}
		depth[at] = deepest
		return deepest
	}
	if d := visit("", root); d >= MaxSchemaDepth {
		add("", "%d subschemas deep; the bundle's validator follows at most %d", d+1, MaxSchemaDepth)
	}
	sort.Strings(errs)
	errs = slices.Compact(errs)
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

func validTypes(v any) bool {
	names := map[string]bool{"null": true, "boolean": true, "number": true, "integer": true, "string": true, "array": true, "object": true}
	switch t := v.(type) {
	case string:
		return names[t]
	case []any:
		for _, x := range t {
			if s, ok := x.(string); !ok || !names[s] {
				return false
			}
		}
		return len(t) > 0
	}
	return false
}

// resolve follows a local reference to a definition ("#/$defs/…", a JSON pointer into the file)
// to an object: the bundle's validator gives a subschema the root's $defs and nothing else.
func resolve(root map[string]any, ref string) (map[string]any, bool) {
	if !strings.HasPrefix(ref, "#/$defs/") {
		return nil, false
	}
	var cur any = root
	for _, tok := range strings.Split(ref[2:], "/") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[strictjson.UnescapeToken(tok)]; !ok {
			return nil, false
		}
	}
	obj, ok := cur.(map[string]any)
	return obj, ok
}
