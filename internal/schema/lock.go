package schema

// LockSchemaPath is the path of the lock file's schema inside the schemas/ directory.
const LockSchemaPath = "contractcheck/lock.schema.json"

// ValidateLock validates a decoded lock file (`contractcheck lock`, lockVersion 1). The schema is
// compiled on first use (the compiler keeps it). A violation is a *ValidationError naming file and
// the JSON pointer.
func (v *Validator) ValidateLock(file string, doc any) error {
	s, err := v.compile(LockSchemaPath, "")
	if err != nil {
		return err
	}
	if err := s.Validate(doc); err != nil {
		return convert(err, file, 0, "", nil)
	}
	return nil
}
