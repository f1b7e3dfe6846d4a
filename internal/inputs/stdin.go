package inputs

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/contractcheck/contractcheck/internal/layer"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
)

// StdinArg is the argument that names standard input: `validate -`, `--observations -`.
const StdinArg = "-"

// StdinName is how standard input is named in messages and reports: a bad record read from it is
// "<stdin>:3: …", a bad source "<stdin>: …".
const StdinName = "<stdin>"

// Stdin is standard input, read whole the first time a run needs it, and at most
// safeio.MaxStreamBytes: it is not a regular file, so it cannot be stat'ed and bounded before it
// is read, and it can be read only once (a lock and the check both need its bytes).
type Stdin struct {
	r    io.Reader
	once sync.Once
	data []byte
	err  error
}

// NewStdin is standard input read from r.
func NewStdin(r io.Reader) *Stdin { return &Stdin{r: r} }

// Bytes reads the stream (the first time) and returns its bytes.
func (s *Stdin) Bytes() ([]byte, error) {
	s.once.Do(func() {
		s.data, s.err = safeio.ReadStream(s.r, StdinName, safeio.MaxStreamBytes)
	})
	return s.data, s.err
}

// stdinDir is standard input as a directory holding one record file, named StdinName in messages.
func (o Options) stdinDir() (Dir, error) {
	if o.Stdin == nil {
		return Dir{}, result.AsInput(fmt.Errorf("--observations %s: standard input is not available to this command", StdinArg))
	}
	data, err := o.Stdin.Bytes()
	if err != nil {
		return Dir{}, result.AsInput(fmt.Errorf("--observations %s: %w", StdinArg, safeio.PathCause(err)))
	}
	return layer.FS(stdinFS{data}, ".", ""), nil
}

// isStdin reports whether d is standard input (stdinDir).
func isStdin(d Dir) bool {
	_, ok := d.FS.(stdinFS)
	return ok
}

// stdinFS is a file system holding one regular file, StdinName, with standard input's bytes: what
// the record reader reads, with the line numbers a file would have.
type stdinFS struct{ data []byte }

func (s stdinFS) Open(name string) (fs.File, error) {
	if name != StdinName {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &stdinFile{Reader: bytes.NewReader(s.data), size: int64(len(s.data))}, nil
}

type stdinFile struct {
	*bytes.Reader
	size int64
}

func (f *stdinFile) Stat() (fs.FileInfo, error) { return stdinInfo{f.size}, nil }
func (f *stdinFile) Close() error               { return nil }

type stdinInfo struct{ size int64 }

func (i stdinInfo) Name() string       { return StdinName }
func (i stdinInfo) Size() int64        { return i.size }
func (i stdinInfo) Mode() fs.FileMode  { return 0o444 }
func (i stdinInfo) ModTime() time.Time { return time.Time{} }
func (i stdinInfo) IsDir() bool        { return false }
func (i stdinInfo) Sys() any           { return nil }
