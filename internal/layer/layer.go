// Package layer names the directories a run reads its inputs from. contractcheck reads contracts,
// policies and fixtures as layers: the built-in layer embedded in the binary first, then every
// directory the user adds with a repeatable flag (--contracts, --policies, --fixtures). A layer
// adds to the ones before it; it never replaces them (--no-builtin starts without the built-in
// layer).
//
// A file is shown in messages under its layer's display name: the path the user gave for a user
// layer, and "builtin:<dir>/…" for a built-in file, so a message never names a path that does not
// exist on the user's disk. `contractcheck export` writes the built-in files for reading. A
// layer's files are read through its Dir (ReadFile, Stat, ReadDir: internal/safeio's checks, the
// error's cause for the caller to prefix with the display name).
package layer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/contractcheck/contractcheck/internal/safeio"
)

// BuiltinPrefix starts the display name of every built-in file.
const BuiltinPrefix = "builtin:"

// Dir is one directory of inputs: a file system, the directory inside it, and the name its files
// are shown under in messages.
type Dir struct {
	FS      fs.FS
	Root    string // the directory inside FS, slash-separated ("." for the whole FS)
	Display string // how file names are prefixed in messages, e.g. "builtin:contracts" or "./mine"
	Builtin bool   // the directory is embedded in the binary
	// Local is the directory on disk (absolute), empty for a built-in one: what a run reads, so
	// that no output is ever written over it.
	Local string
}

// Builtin returns a directory of the built-in file system fsys (contracts, policies, schemas or
// fixtures, or a path below one). The binary's own is contractcheck.Builtin; the layer code never
// reads it itself, so a test can hand another.
func Builtin(fsys fs.FS, name string) Dir {
	return Dir{FS: fsys, Root: name, Display: BuiltinPrefix + name, Builtin: true}
}

// User is a directory of the user's, shown under the name it was given. No path in it, symbolic
// links included, leads outside it (safeio.DirFS).
func User(dir string) Dir {
	local, err := filepath.Abs(dir)
	if err != nil {
		local = dir
	}
	return Dir{FS: safeio.DirFS(dir), Root: ".", Display: filepath.ToSlash(filepath.Clean(dir)), Local: local}
}

// FS is a directory of an arbitrary file system (a test's fstest.MapFS, say), shown as display.
func FS(fsys fs.FS, root, display string) Dir {
	return Dir{FS: fsys, Root: root, Display: display}
}

// Sub is the directory rel below d.
func (d Dir) Sub(rel string) Dir {
	out := d
	out.Root = Join(d.Root, rel)
	out.Display = Join(d.Display, rel)
	if d.Local != "" {
		out.Local = filepath.Join(d.Local, filepath.FromSlash(rel))
	}
	return out
}

// Path returns the fs path and the display name of a file below the directory.
func (d Dir) Path(rel string) (string, string) {
	return Join(d.Root, rel), Join(d.Display, rel)
}

// Rel returns an fs path found below the directory (by fs.WalkDir, say) relative to its root.
func (d Dir) Rel(p string) string {
	if d.Root == "." || d.Root == "" {
		return p
	}
	return strings.TrimPrefix(p, d.Root+"/")
}

// Join joins slash-separated path elements, keeping a "builtin:" display prefix and dropping a
// leading "." directory.
func Join(a, b string) string {
	if a == "" || a == "." {
		return path.Clean(b)
	}
	return path.Join(a, b)
}

// Stack is the layers of one kind of input in order: the built-in one (the directory builtin of
// the built-in file system fsys) first unless left out, then the user's in the order given.
func Stack(fsys fs.FS, builtin string, noBuiltin bool, user []string) []Dir {
	if noBuiltin {
		return Users(user)
	}
	return append([]Dir{Builtin(fsys, builtin)}, Users(user)...)
}

// Users is the user's layers of one kind of input, in the order given, without the built-in one.
func Users(dirs []string) []Dir {
	var out []Dir
	for _, d := range dirs {
		out = append(out, User(d))
	}
	return out
}

// ReadFile reads the file rel below the directory whole, refusing anything that is not a regular
// file and any file over limit bytes (limit ≤ 0: safeio.MaxFileBytes) before reading it
// (safeio.ReadFile). An error is the cause (safeio.PathCause), for the caller to prefix with the
// file's display name (Path).
func (d Dir) ReadFile(rel string, limit int64) ([]byte, error) {
	p, _ := d.Path(rel)
	data, err := safeio.ReadFile(d.FS, p, limit)
	return data, safeio.PathCause(err)
}

// Stat describes the file rel below the directory; an error is the cause (safeio.PathCause), as
// ReadFile's: fs.ErrNotExist when there is no such file.
func (d Dir) Stat(rel string) (fs.FileInfo, error) {
	p, _ := d.Path(rel)
	fi, err := fs.Stat(d.FS, p)
	return fi, safeio.PathCause(err)
}

// ReadDir lists the directory rel below the directory, sorted by name; an error is the cause
// (safeio.PathCause), as ReadFile's: fs.ErrNotExist when there is no such directory.
func (d Dir) ReadDir(rel string) ([]fs.DirEntry, error) {
	p, _ := d.Path(rel)
	es, err := fs.ReadDir(d.FS, p)
	return es, safeio.PathCause(err)
}

// Check reports a user directory that does not exist or is not a directory, naming it as given;
// what names the directory (e.g. "--contracts") prefixes the message.
func (d Dir) Check(what string) error {
	if d.Builtin || d.Local == "" {
		return nil
	}
	st, err := os.Stat(d.Local)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such directory", what, d.Display)
	case err != nil:
		return fmt.Errorf("%s %s: %w", what, d.Display, safeio.PathCause(err))
	case !st.IsDir():
		return fmt.Errorf("%s %s: not a directory", what, d.Display)
	}
	return nil
}
