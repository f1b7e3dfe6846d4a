package instrument

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/contractcheck/contractcheck/internal/safeio"
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
