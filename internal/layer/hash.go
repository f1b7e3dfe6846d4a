package layer

import (
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"github.com/contractcheck/contractcheck/internal/safeio"
)

// Hash writes every regular file below the directory to w, in the order of their paths within
// it: for each, `file "<path>" `, its length as 8 big-endian bytes, then its bytes. The path is
// the file's path below the directory (Rel), so the same files hash alike wherever the directory
// lies. A file whose path below the directory skip says yes to (nil: none) is left out, and so is
// everything below a directory it says yes to. The result cache keys a run on it
// (internal/resultcache), and a census names its contract set by it (inputs.Options.ContractSet).
func (d Dir) Hash(w io.Writer, skip func(rel string) bool) error {
	var files []string
	err := fs.WalkDir(d.FS, d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip != nil && p != d.Root && skip(d.Rel(p)) {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !e.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", d.Display, err)
	}
	sort.Strings(files)
	for _, p := range files {
		data, err := safeio.ReadFile(d.FS, p, safeio.MaxFileBytes)
		if err != nil {
			_, display := d.Path(d.Rel(p))
			return fmt.Errorf("%s: %w", display, safeio.PathCause(err))
		}
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(data)))
		fmt.Fprintf(w, "file %q ", d.Rel(p))
		w.Write(n[:])
		w.Write(data)
	}
	return nil
}
