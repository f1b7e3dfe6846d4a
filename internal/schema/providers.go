package schema

import "strings"

// ProviderSchemaDir is where the providers' published request schemas live inside the schemas
// directory (pinned copies with their provenance, like the MCP schemas): one part of a request
// body per file.
const ProviderSchemaDir = "providers/"

// Accepts compiles a provider request schema (a path inside the schemas directory, e.g.
// "providers/openai-responses-input-image.schema.json") into a validator of one carried item: it
// returns nil when the provider's schema accepts the item, else an error naming the pointer into
// the item and what is wrong there.
func (v *Validator) Accepts(schemaPath string) (func(any) error, error) {
	if !strings.HasPrefix(schemaPath, ProviderSchemaDir) {
		return nil, &ValidationError{Msg: "a provider schema is under " + ProviderSchemaDir + ", not " + schemaPath}
	}
	s, err := lazyIn(&v.providers, schemaPath).get(v, schemaPath)
	if err != nil {
		return nil, err
	}
	return func(item any) error { return validateDoc(s, "", item) }, nil
}
