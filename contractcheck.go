// Package contractcheck holds the built-in data of the checker: the contract model (contracts/),
// the Rego policies (policies/), the pinned and project schemas (schemas/) and the fixtures with
// their observation records (fixtures/), embedded so that `contractcheck check` with no flags runs
// the built-in profile on the built-in data. The checker itself lives under internal/.
package contractcheck

import "embed"

// Builtin is the built-in data, rooted at the repository root: contracts/, policies/, schemas/ and
// fixtures/.
//
//go:embed contracts policies schemas fixtures
var Builtin embed.FS
