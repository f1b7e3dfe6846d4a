package instrument

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Size is the file's size in bytes, or -1 when it is not known (standard input, a file that cannot
// be read: its error comes when it is read).
func (f RecordFile) Size() int64 {
	if isStdin(f.Dir) {
		return -1
	}
	fi, err := fs.Stat(f.Dir.FS, f.Path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// Lines streams the non-blank lines of the file, undecoded, with the file's display name; it
// stops when emit returns false. Decoding is the caller's: the check pipeline's workers decode the
// lines its reader reads (internal/check/pipeline), ReadRecords decodes them as they come.
func (f RecordFile) Lines(ctx context.Context, emit func(display string, l strictjson.Line) bool) error {
	display := f.Display()
	r, err := safeio.Open(f.Dir.FS, f.Path, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", display, safeio.PathCause(err))
	}
	defer r.Close()
	lr := strictjson.NewLineReader(display, r, strictjson.DefaultLimits)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := lr.NextLine()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !emit(display, l) {
			return nil
		}
	}
}
