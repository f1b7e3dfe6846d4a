package reproduce

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// ManifestName is the file reproduce writes beside the files of a reproduction: each file it
// wrote, by slash-separated path, with the SHA-256 of what it wrote. A later `reproduce --force`
// into the same directory replaces a file only when the manifest names it and it still has
// those bytes: a file reproduce did not write, or one changed since, is never replaced.
const ManifestName = ".contractcheck-reproduce.json"

// keepable are the files of a reproduction that nothing runs or reads: with --force, a file of
// the same name that reproduce did not write is kept (and Output says so) instead of refusing
// the write.
var keepable = []string{"README.md", "ISSUE.md"}

// manifest is ManifestName's content.
type manifest struct {
	Files map[string]string `json:"files"` // path → hex SHA-256
}

// OutputError is an output directory reproduce refuses to write into: it is not empty and
// --force was not given, or (with --force) writing would replace a file reproduce did not write,
// a file that is not regular, or go through a symbolic link.
type OutputError struct {
	Dir string
	// NotEmpty is set when Dir holds files and --force was not given.
	NotEmpty bool
	// Problems name the paths that stop the write (with --force), each with why.
	Problems []string
}

// Error returns the message, naming the directory and the flag.
func (e *OutputError) Error() string {
	dir := escape.Terminal(e.Dir)
	if e.NotEmpty {
		return fmt.Sprintf("--output %s is not empty: refused (reproduce writes into a new or empty directory; --force writes its files into this one, keeping every other file there and replacing none that it did not write)", dir)
	}
	return fmt.Sprintf("--output %s: refused, even with --force: %s", dir, strings.Join(e.Problems, "; "))
}

// Output decides what Generate's files become in dir, before anything is written: the files to
// hand safeio.WriteTree (the reproduction and its manifest) and, with force, the files kept
// because a file of theirs was already there. A dir that does not exist or is empty gets every
// file. A dir with anything in it is refused without force (an *OutputError, NotEmpty), unless
// it holds only an earlier reproduction as reproduce wrote it (ownOutput). With force (or into
// its own output), each file is written unless a file of its name is there that reproduce did not write
// (no manifest entry, or different bytes): README.md and ISSUE.md are then kept, and any other
// such file refuses the write. A path that runs through a symbolic link or a file that is not a
// directory, or ends at a file that is not regular, refuses the write too: reproduce never
// writes through a link, into or out of dir. dir itself may be a link the caller named.
func Output(dir string, files map[string][]byte, force bool) (write map[string][]byte, kept []string, err error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if !fs.ValidPath(name) || name == "." || name == ManifestName {
			return nil, nil, fmt.Errorf("reproduce: %q is not a file a reproduction writes", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return withManifest(files, names, nil), nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("--output %s: %w", escape.Terminal(dir), err)
	case !fi.IsDir():
		return nil, nil, fmt.Errorf("--output %s is not a directory", escape.Terminal(dir))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("--output %s: %w", escape.Terminal(dir), err)
	}
	if len(entries) == 0 {
		return withManifest(files, names, nil), nil, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("--output %s: %w", escape.Terminal(dir), err)
	}
	defer root.Close()
	if !force && !ownOutput(root) {
		return nil, nil, &OutputError{Dir: dir, NotEmpty: true}
	}
	var problems []string
	refuse := func(name, why string) { problems = append(problems, escape.Terminal(name)+" "+why) }
	old, err := readManifest(root)
	if err != nil {
		refuse(ManifestName, err.Error())
	}
	ours := func(name string) bool {
		want, listed := old.Files[name]
		if !listed {
			return false
		}
		if fi, err := root.Lstat(name); err != nil || !fi.Mode().IsRegular() {
			return false
		}
		b, err := root.ReadFile(name)
		if err != nil {
			return false
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:]) == want
	}
	write = map[string][]byte{}
	var written []string
	for _, name := range names {
		if why := throughLink(root, name); why != "" {
			refuse(name, why)
			continue
		}
		fi, err := root.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			refuse(name, fmt.Sprintf("cannot be read (%v)", err))
			continue
		case fi.Mode()&fs.ModeSymlink != 0:
			refuse(name, "is a symbolic link: reproduce writes no file through a link")
			continue
		case !fi.Mode().IsRegular():
			refuse(name, "is there and is not a regular file")
			continue
		case ours(name):
		case slices.Contains(keepable, name):
			kept = append(kept, name)
			continue
		default:
			refuse(name, "is there and reproduce did not write it (or it changed since): --force replaces none such")
			continue
		}
		write[name] = files[name]
		written = append(written, name)
	}
	if len(problems) > 0 {
		return nil, nil, &OutputError{Dir: dir, Problems: problems}
	}
	// An earlier run's files that are still as it wrote them stay reproduce's to replace.
	still := map[string]string{}
	for name, sum := range old.Files {
		if _, now := write[name]; !now && fs.ValidPath(name) && throughLink(root, name) == "" && ours(name) {
			still[name] = sum
		}
	}
	return withManifest(write, written, still), kept, nil
}

// withManifest is files (names, sorted) with the manifest that lists them, and the entries of
// still.
func withManifest(files map[string][]byte, names []string, still map[string]string) map[string][]byte {
	m := manifest{Files: map[string]string{}}
	out := map[string][]byte{}
	for name, sum := range still {
		m.Files[name] = sum
	}
	for _, name := range names {
		sum := sha256.Sum256(files[name])
		m.Files[name] = hex.EncodeToString(sum[:])
		out[name] = files[name]
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	out[ManifestName] = append(b, '\n')
	return out
}

// readManifest reads the manifest an earlier run left in root: none when there is no file of its
// name; an error when it is not a regular file or not a manifest.
func readManifest(root *os.Root) (manifest, error) {
	m := manifest{Files: map[string]string{}}
	fi, err := root.Lstat(ManifestName)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	if !fi.Mode().IsRegular() {
		return m, errors.New("is there and is not a regular file")
	}
	b, err := root.ReadFile(ManifestName)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Files == nil {
		return manifest{Files: map[string]string{}}, errors.New("is there and is not reproduce's manifest: --force replaces it only when it is")
	}
	return m, nil
}

// ownOutput reports whether everything below root is an earlier reproduction's, as it wrote it:
// its manifest, the files the manifest lists with the bytes it lists, and their directories.
// reproduce writes into such a directory without --force (it is its own output).
func ownOutput(root *os.Root) bool {
	m, err := readManifest(root)
	if err != nil || len(m.Files) == 0 {
		return false
	}
	own := true
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case name == "." || name == ManifestName:
			return nil
		case d.IsDir():
			return nil
		}
		want, listed := m.Files[name]
		if !listed || !d.Type().IsRegular() {
			own = false
			return fs.SkipAll
		}
		b, err := root.ReadFile(name)
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			own = false
			return fs.SkipAll
		}
		return nil
	})
	return err == nil && own
}

// throughLink says why a path below root cannot be written, when one of its directories is a
// symbolic link or not a directory; "" when each exists as a directory or does not exist.
func throughLink(root *os.Root, name string) string {
	dir := path.Dir(name)
	if dir == "." {
		return ""
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return ""
		case err != nil:
			return fmt.Sprintf("cannot be reached (%v)", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Sprintf("is below %s, a symbolic link: reproduce writes no file through a link", escape.Terminal(p))
		case !fi.IsDir():
			return fmt.Sprintf("is below %s, which is not a directory", escape.Terminal(p))
		}
	}
	return ""
}
