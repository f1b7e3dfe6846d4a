package inputs

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/schema"
)

// NewValidator compiles the validator over the pinned MCP schemas and the project's own (the
// schemas/ directory of the built-in file system builtin), with the
// carrier schemas of the built-in layer (unless builtinCarriers is false, as under --no-builtin)
// and of the user's schema layers, and the MCP revisions of both (schema.NewLayered: a user
// layer's mcp/<revision>/schema.json adds a revision). A carrier schema defined by two layers is
// an error when it is used; a revision defined by two, when the validator is made.
func NewValidator(builtin fs.FS, users []Dir, builtinCarriers bool) (*schema.Validator, error) {
	for _, d := range users {
		if err := d.Check("--schemas"); err != nil {
			return nil, err
		}
	}
	sfs, err := fs.Sub(builtin, "schemas")
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	v, err := schema.NewLayered(carrierOverlay{base: sfs, builtin: builtinCarriers, users: users}, users)
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	return v, nil
}

// BuiltinRevisions lists the MCP revisions the built-in schema layer holds, in order. Every
// command that takes --revision names them in its help, and the commands are all made at start-up:
// the layer is read once.
func BuiltinRevisions() []string { return slices.Clone(builtinRevisions()) }

// IsBuiltinRevision reports whether the built-in schema layer holds the MCP revision rev.
func IsBuiltinRevision(rev string) bool { return slices.Contains(builtinRevisions(), rev) }

var builtinRevisions = sync.OnceValue(func() []string {
	v, err := BuiltinValidator()
	if err != nil {
		return []string{schema.DefaultRevision}
	}
	return v.Revisions()
})

// BuiltinValidator compiles the validator over the built-in schemas only.
func BuiltinValidator() (*schema.Validator, error) {
	return NewValidator(contractcheck.Builtin, nil, true)
}

// carrierOverlay serves the built-in schemas directory, with carrier schemas (carriers/…) also
// found in the user's schema layers. The project's own schemas cannot be overlaid; the MCP
// revisions of the user's layers are schema.NewLayered's to serve.
type carrierOverlay struct {
	base    fs.FS
	builtin bool // the built-in carrier schemas are part of it
	users   []Dir
}

func (o carrierOverlay) Open(name string) (fs.File, error) {
	if !strings.HasPrefix(name, schema.CarrierSchemaDir) {
		return o.base.Open(name)
	}
	var found []string
	var file fs.File
	if o.builtin {
		if f, err := o.base.Open(name); err == nil {
			found, file = append(found, layer.BuiltinPrefix+"schemas/"+name), f
		}
	}
	for _, d := range o.users {
		p, display := d.Path(name)
		f, err := d.FS.Open(p)
		if err != nil {
			continue
		}
		if file != nil {
			f.Close()
		} else {
			file = f
		}
		found = append(found, display)
	}
	switch {
	case len(found) > 1:
		file.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("defined by more than one layer: %s", strings.Join(found, ", "))}
	case file == nil:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return file, nil
}
