package schema

import (
	"encoding/json"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestUnderOwnPlace: a user revision's schema is compiled without its root $id, a $ref naming a
// user revision's $id made a reference to that revision's schema.json, and nothing else changed:
// relative references, a "$ref" that is data (const, enum, default, examples), an embedded
// resource's own references.
func TestUnderOwnPlace(t *testing.T) {
	ids := revisionIDs{"urn:x:a": "mcp/DRAFT-a/schema.json", "urn:x:b": "mcp/DRAFT-b/schema.json"}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{name: "the root $id left out", doc: `{"$id": "urn:x:a", "type": "object"}`, want: `{"type":"object"}`},
		{name: "a relative reference kept", doc: `{"$id": "urn:x:a", "$ref": "../2025-11-25/schema.json#/$defs/X"}`,
			want: `{"$ref":"../2025-11-25/schema.json#/$defs/X"}`},
		{name: "a reference to its own $id", doc: `{"$id": "urn:x:a", "items": {"$ref": "urn:x:a#/$defs/X"}}`,
			want: `{"items":{"$ref":"contractcheck-schemas:///mcp/DRAFT-a/schema.json#/$defs/X"}}`},
		{name: "a reference to another revision's $id", doc: `{"$id": "urn:x:a", "allOf": [{"$ref": "urn:x:b"}, {"$ref": "urn:x:b#"}]}`,
			want: `{"allOf":[{"$ref":"contractcheck-schemas:///mcp/DRAFT-b/schema.json"},{"$ref":"contractcheck-schemas:///mcp/DRAFT-b/schema.json#"}]}`},
		{name: "data is not a reference", doc: `{"$id": "urn:x:a", "const": {"$ref": "urn:x:a#/x"}, "enum": [{"$ref": "urn:x:b"}]}`,
			want: `{"const":{"$ref":"urn:x:a#/x"},"enum":[{"$ref":"urn:x:b"}]}`},
		{name: "an embedded resource resolves against its own $id", doc: `{"$id": "urn:x:a", "$defs": {"E": {"$id": "urn:y:e", "$ref": "#/$defs/F"}}}`,
			want: `{"$defs":{"E":{"$id":"urn:y:e","$ref":"#/$defs/F"}}}`},
		{name: "no $id", doc: `{"$ref": "urn:x:b#/$defs/X"}`, want: `{"$ref":"contractcheck-schemas:///mcp/DRAFT-b/schema.json#/$defs/X"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := strictjson.Decode("s.json", []byte(tc.doc), strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(doc)
			got, _ := json.Marshal(ids.underOwnPlace("mcp/DRAFT-a/schema.json", doc))
			if string(got) != tc.want {
				t.Errorf("underOwnPlace = %s, want %s", got, tc.want)
			}
			if after, _ := json.Marshal(doc); string(after) != string(before) {
				t.Errorf("the decoded document changed: %s", after)
			}
		})
	}
}
