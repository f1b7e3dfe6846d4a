package schema

import (
	"fmt"
	"io/fs"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// LockSchemaPath is the path of the lock file's schema inside the schemas/ directory.
const LockSchemaPath = "contractcheck/lock.schema.json"

// ValidateLock validates a decoded lock file (`contractcheck lock`, lockVersion 1). The schema is
// compiled on first use. A violation is a *ValidationError naming file and
// the JSON pointer.
func (v *Validator) ValidateLock(file string, doc any) error {
	return v.lock.validate(v, LockSchemaPath, file, doc)
}

// LockValidator validates lock files only. Reading a lock needs nothing else, and New would also
// compile the record and report schemas and look for every MCP revision's schema.
type LockValidator struct{ schema *jsonschema.Schema }

// NewLockValidator compiles the lock file's schema from fsys, rooted at the schemas/ directory as
// for New.
func NewLockValidator(fsys fs.FS) (*LockValidator, error) {
	s, err := newCompiler(fsLoader{&docCache{fsys: fsys}}).Compile(baseURL + LockSchemaPath)
	if err != nil {
		return nil, fmt.Errorf("schema: compiling %s: %w", LockSchemaPath, err)
	}
	return &LockValidator{schema: s}, nil
}

// ValidateLock validates a decoded lock file, as Validator.ValidateLock does.
func (l *LockValidator) ValidateLock(file string, doc any) error {
	return validateDoc(l.schema, file, doc)
}
