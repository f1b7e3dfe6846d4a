package mcpserve

import (
	"fmt"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// SchemaValidator is a Server.Validate that checks a tools/call response against the pinned MCP
// schema of the revision it is sent under, as `contractcheck validate --revision` checks a
// source: a result response as the revision's JSON-RPC result response and its result as a
// CallToolResult, an error response as its JSON-RPC error response. A revision v does not hold is
// refused too: the server never sends what it cannot check.
func SchemaValidator(v *schema.Validator) func(revision string, response []byte) error {
	return func(revision string, response []byte) error {
		doc, err := strictjson.Decode("response", response, strictjson.Limits{MaxBytes: safeio.MaxFileBytes})
		if err != nil {
			return fmt.Errorf("the response is not strict JSON: %w", err)
		}
		if _, err := v.ValidateSource("response", revision, doc); err != nil {
			return fmt.Errorf("the %s schema refuses it: %w", revision, err)
		}
		return nil
	}
}
