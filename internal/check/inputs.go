package check

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/schema"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Dir is a directory of inputs: a file system and the name its files are shown under in messages.
type Dir struct {
	FS      fs.FS
	Root    string // the directory inside FS
	Display string // how file names are prefixed in messages, e.g. "contracts"
}

// Path returns the fs path and the display name of a file below the directory.
func (d Dir) Path(rel string) (string, string) {
	return path.Join(d.Root, rel), path.Join(d.Display, rel)
}

// Builtin returns the embedded directory name (contracts, policies, schemas or fixtures).
func Builtin(name string) Dir {
	return Dir{FS: contractcheck.Builtin, Root: name, Display: name}
}

// UserDir is a directory of the user's, shown under the name it was given. No path in it, symbolic
// links included, leads outside it (safeio.DirFS).
func UserDir(dir string) Dir {
	return Dir{FS: safeio.DirFS(dir), Root: ".", Display: path.Clean(dir)}
}

// dirOr returns the user's directory when one is given, else the built-in one.
func dirOr(user, builtin string) Dir {
	if user == "" {
		return Builtin(builtin)
	}
	return UserDir(user)
}

// BuiltinValidator compiles the validator over the built-in schemas: the pinned MCP schemas, the
// carrier schemas and the project's own.
func BuiltinValidator() (*schema.Validator, error) {
	sd := Builtin("schemas")
	sfs, err := fs.Sub(sd.FS, sd.Root)
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	v, err := schema.New(sfs)
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	return v, nil
}

// Source is a validated W0 result: its bytes' hash and the validated document.
type Source struct {
	ID     string
	File   string
	Sha256 string
	Doc    any
	*schema.Source
}

// LoadSource reads, hashes, decodes and validates one source file against a revision.
func LoadSource(v *schema.Validator, fsys fs.FS, fsPath, display, id, revision string) (*Source, error) {
	data, err := safeio.ReadFile(fsys, fsPath, strictjson.DefaultLimits.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", display, unwrapPathError(err))
	}
	return ParseSource(v, data, display, id, revision)
}

// ParseSource decodes, validates and hashes the bytes of one source.
func ParseSource(v *schema.Validator, data []byte, display, id, revision string) (*Source, error) {
	doc, err := strictjson.Decode(display, data, strictjson.DefaultLimits)
	if err != nil {
		return nil, err
	}
	s, err := v.ValidateSource(display, revision, doc)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &Source{ID: id, File: display, Sha256: hex.EncodeToString(sum[:]), Doc: doc, Source: s}, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
