package policy

import (
	"bytes"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/open-policy-agent/opa/v1/ast"
)

// CapabilitiesFile is where the repository ships the sandbox's capabilities, beside the policies
// (the policy loader reads only .rego files, so it is not a policy).
const CapabilitiesFile = "policies/capabilities.json"

// CapabilitiesJSON is the sandbox's capabilities (Capabilities) as OPA's capabilities JSON,
// builtins sorted by name, indented, with a final newline: the file `opa check --capabilities`,
// `opa test`'s and Regal's capabilities settings and editors read, so that they know
// contractcheck.json_text and contractcheck.diff and refuse what the sandbox refuses.
func CapabilitiesJSON() ([]byte, error) {
	caps := Capabilities()
	slices.SortStableFunc(caps.Builtins, func(a, b *ast.Builtin) int { return strings.Compare(a.Name, b.Name) })
	var buf bytes.Buffer
	if err := strictjson.EncodeIndented(&buf, caps); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
