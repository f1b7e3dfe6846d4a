package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// diagnosticKinds are the kinds a diagnostic may have.
var diagnosticKinds = []string{"missing", "added", "altered"}

// CheckDiagnostics holds a verdict's diagnostics to the policy interface (docs/design.md): each
// has a string atom among atoms, a JSON pointer path and a kind of missing, added or altered; it
// may have expected, observed and a non-negative integer block, and nothing else. A policy that
// breaks it is a broken instrument, not an unmet contract.
func CheckDiagnostics(ds []map[string]any, atoms []string) error {
	for i, d := range ds {
		at := func(format string, args ...any) error {
			return fmt.Errorf("diagnostic %d %s: %s", i, diagnosticText(d), fmt.Sprintf(format, args...))
		}
		atom, ok := d["atom"].(string)
		if !ok {
			return at("atom must be a string")
		}
		if !slices.Contains(atoms, atom) {
			return at("atom %q is not among the task's atoms (%s)", atom, strings.Join(atoms, ", "))
		}
		if p, ok := d["path"].(string); !ok || (p != "" && !strings.HasPrefix(p, "/")) {
			return at("path must be a JSON pointer string (\"\" or starting with /)")
		}
		if k, ok := d["kind"].(string); !ok || !slices.Contains(diagnosticKinds, k) {
			return at("kind must be one of %s", strings.Join(diagnosticKinds, ", "))
		}
		if b, has := d["block"]; has {
			n, ok := b.(json.Number)
			if i, err := n.Int64(); !ok || err != nil || i < 0 {
				return at("block must be a non-negative integer")
			}
		}
		for k := range d {
			switch k {
			case "atom", "path", "kind", "expected", "observed", "block":
			default:
				return at("unknown member %q (a diagnostic has atom, path, kind, expected, observed, block)", k)
			}
		}
	}
	return nil
}

// diagnosticText is a diagnostic in compact JSON for a message, cut at 200 bytes.
func diagnosticText(d map[string]any) string {
	b, err := strictjson.Marshal(d)
	if err != nil {
		return "(unprintable)"
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
