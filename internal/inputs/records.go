package inputs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// RecordFile is one .jsonl file of observation records: its directory and its fs path there.
type RecordFile struct {
	Dir  Dir
	Path string
}

// Display is the file's name in messages and reports.
func (f RecordFile) Display() string {
	_, d := f.Dir.Path(f.Dir.Rel(f.Path))
	return d
}

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

// RecordFiles lists the .jsonl files below the options' observation directories, sorted within
// each directory, so records are always read in one order.
func (o Options) RecordFiles() ([]RecordFile, error) {
	dirs, err := o.ObservationDirs()
	if err != nil {
		return nil, err
	}
	var out []RecordFile
	for _, d := range dirs {
		if isStdin(d) {
			out = append(out, RecordFile{Dir: d, Path: StdinName})
			continue
		}
		files, err := RecordFiles(d)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// RecordFiles lists the .jsonl files below a directory, sorted.
func RecordFiles(d Dir) ([]RecordFile, error) {
	var files []string
	err := fs.WalkDir(d.FS, d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("observation records under %s: %w", d.Display, safeio.PathCause(err))
	}
	sort.Strings(files)
	out := make([]RecordFile, len(files))
	for i, f := range files {
		out[i] = RecordFile{Dir: d, Path: f}
	}
	return out, nil
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
