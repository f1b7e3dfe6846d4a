// Package safeio is how the checker touches the file system: it reads inputs without hanging or
// exhausting memory, keeps a user's input directory from reaching outside itself, and writes
// outputs so that nothing the user had is lost.
//
// Reading: every file is stat'ed before it is opened. Anything but a regular file (a FIFO, a
// device, a socket, a directory) is refused, so a named pipe cannot hang a run and /dev/zero cannot
// fill memory; a file larger than the limit is refused before a byte of it is read, and at most
// the limit plus one byte is ever read (a file growing under the reader is caught too). A user's
// directory is opened as an os.Root (DirFS): a symbolic link inside it may point anywhere inside
// it, but one that leaves it is refused, so a policy or source directory cannot pull in
// /etc/passwd.
//
// Writing (write.go): a report is written to a temporary file in the target's directory, synced
// and renamed over the target, so a failed or refused write leaves the previous file byte for byte;
// a suite of files is staged and moved into place only when every file is written. An output
// path that resolves to an input of the run, or into an input directory, is refused.
package safeio

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
)

// MaxFileBytes is the largest input file the checker reads whole: the bound strictjson puts on a
// JSON document (strictjson.DefaultLimits.MaxBytes), applied to every file (contracts, policies,
// sources, cases) before it is read.
const MaxFileBytes = 16 << 20

// NotRegularError is a path that names something other than a regular file.
type NotRegularError struct {
	Mode fs.FileMode
}

// Error returns the message.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("not a regular file (%s): only regular files are read", kind(e.Mode))
}

// TooLargeError is a file over the size limit.
type TooLargeError struct {
	Size, Limit int64
}

// Error returns the message.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file is %d bytes, over the limit of %d bytes", e.Size, e.Limit)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return m.Type().String()
}

// checkRegular refuses anything but a regular file no larger than limit.
func checkRegular(fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Mode: fi.Mode()}
	}
	if limit > 0 && fi.Size() > limit {
		return &TooLargeError{Size: fi.Size(), Limit: limit}
	}
	return nil
}

// ReadFile reads the regular file name of fsys whole, refusing anything that is not a regular
// file and any file over limit bytes (limit ≤ 0: MaxFileBytes) before reading it. Errors are
// *fs.PathError values naming name.
func ReadFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxFileBytes
	}
	f, err := Open(fsys, name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, name, limit)
}

// Open opens the regular file name of fsys for streaming, after checking that it is a regular
// file (and, with limit > 0, no larger than limit): a named pipe would block the open itself.
func Open(fsys fs.FS, name string, limit int64) (fs.File, error) {
	return openChecked(name, limit, func() (fs.FileInfo, error) { return fs.Stat(fsys, name) },
		func() (fs.File, error) { return fsys.Open(name) })
}

// ReadPath reads a file named on the command line (a path of the operating system, relative to
// the working directory), with the checks of ReadFile.
func ReadPath(name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxFileBytes
	}
	f, err := OpenPath(name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, name, limit)
}

// OpenPath opens a file named by a path of the operating system for streaming, with the checks
// of Open.
func OpenPath(name string, limit int64) (fs.File, error) {
	return openChecked(name, limit, func() (fs.FileInfo, error) { return os.Stat(name) },
		func() (fs.File, error) { return os.Open(name) })
}

// openChecked stats name, refuses what checkRegular refuses, opens it, and checks what was opened
// again: the file may have been replaced between the two calls.
func openChecked(name string, limit int64, stat func() (fs.FileInfo, error), open func() (fs.File, error)) (fs.File, error) {
	fi, err := stat()
	if err != nil {
		return nil, err
	}
	if err := checkRegular(fi, limit); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	f, err := open()
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = checkRegular(fi, limit)
	}
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return f, nil
}

// readAll reads at most limit bytes; one more means the file grew past the limit while read.
// A file that says its size is read into a buffer of that size (io.ReadAll grows one from 512
// bytes, copying: a tenth of reading a cached contract model went to it).
func readAll(r io.Reader, name string, limit int64) ([]byte, error) {
	size := int64(512)
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			size = min(st.Size(), limit) + 1 // one more to see the end, or a file that grew
		}
	}
	data := make([]byte, 0, size)
	lr := io.LimitReader(r, limit+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // let append pick the larger buffer
		}
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Size: int64(len(data)), Limit: limit}}
	}
	return data, nil
}

// DirFS returns the directory dir as a file system in which no path, symbolic links included,
// leads outside dir: it is an os.Root, opened at first use (so a missing directory is reported
// when it is read, naming the path). A link that leaves the directory fails with an error that
// says so.
func DirFS(dir string) fs.FS {
	return &rootFS{dir: dir}
}

// rootFS opens its os.Root lazily and keeps it open for the life of the process: the checker
// reads each input directory for the length of one command.
type rootFS struct {
	dir  string
	once sync.Once
	fsys fs.FS
	err  error
}

func (r *rootFS) root() (fs.FS, error) {
	r.once.Do(func() {
		root, err := os.OpenRoot(r.dir)
		if err != nil {
			r.err = err
			return
		}
		r.fsys = root.FS()
	})
	return r.fsys, r.err
}

// Open implements fs.FS.
func (r *rootFS) Open(name string) (fs.File, error) {
	fsys, err := r.root()
	if err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	return f, escapes(err)
}

// Stat implements fs.StatFS.
func (r *rootFS) Stat(name string) (fs.FileInfo, error) {
	fsys, err := r.root()
	if err != nil {
		return nil, err
	}
	fi, err := fs.Stat(fsys, name)
	return fi, escapes(err)
}

// ReadDir implements fs.ReadDirFS.
func (r *rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	fsys, err := r.root()
	if err != nil {
		return nil, err
	}
	es, err := fs.ReadDir(fsys, name)
	return es, escapes(err)
}

// ErrEscapes is the error of a path that leads, through a symbolic link or "..", outside its
// input directory.
var ErrEscapes = errors.New("a symbolic link or '..' leads outside the input directory: refused")

// escapes rewords os.Root's refusal, whose text ("path escapes from parent") does not say why.
func escapes(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
		return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: ErrEscapes}
	}
	return err
}

// Names lists the names of the entries of dir that keep accepts, sorted: the parts of a census
// directory, the batches of a collector's, whose names sort in sequence order.
func Names(dir string, keep func(fs.DirEntry) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if keep(e) {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	return out, nil
}

// PathCause is the error inside an *fs.PathError (however wrapped), else err itself: for a
// message that names the file as the user gave it, where the PathError's path is the fs-internal
// one ("." or a path inside an fs.FS root) and would only repeat or confuse it.
func PathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Sha256 reads r to its end and returns the hex sha256 of what it read and how many bytes that
// was; with a positive limit, more than limit bytes is a TooLargeError (after limit+1 are read).
// The lock file and the result cache hash files with it.
func Sha256(r io.Reader, limit int64) (sum string, n int64, err error) {
	h := sha256.New()
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	if n, err = io.Copy(h, r); err != nil {
		return "", n, err
	}
	if limit > 0 && n > limit {
		return "", n, &TooLargeError{Size: n, Limit: limit}
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
