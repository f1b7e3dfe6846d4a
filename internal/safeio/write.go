package safeio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// InputError is an output path refused because the run reads it: writing there would destroy or
// change an input.
type InputError struct {
	Flag   string // the flag that gave the output ("--output", "--census-out"); required
	Output string // the output path as given
	Input  string // the input path as given
	Inside bool   // the output lies inside the input directory (else it is the input itself)
}

// Error returns the message.
func (e *InputError) Error() string {
	if e.Inside {
		return fmt.Sprintf("%s %s is inside %s, an input directory of this run: refused (write it elsewhere)", e.Flag, e.Output, e.Input)
	}
	return fmt.Sprintf("%s %s is %s, an input of this run: refused (write it elsewhere)", e.Flag, e.Output, e.Input)
}

// resolve returns the absolute path p stands for, with every symbolic link of its existing
// prefix resolved: a path that does not exist yet resolves through its parent.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}

// within reports whether p is dir or lies below it (both resolved, cleaned).
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// CheckOutputFile refuses an output file that is one of the inputs (after resolving symbolic
// links and relative paths, or the same file by device and inode, as a hard link is) or lies
// inside an input directory, where a later run would read it. Empty inputs are ignored. It also
// refuses an output that is an existing directory.
func CheckOutputFile(output string, inputs []string) error {
	out, err := resolve(output)
	if err != nil {
		return fmt.Errorf("--output %s: %w", output, err)
	}
	ofi, oerr := os.Stat(out)
	if oerr == nil && ofi.IsDir() {
		return fmt.Errorf("--output %s is a directory: name a file", output)
	}
	return eachInput(inputs, func(in, r string) error {
		ifi, ierr := os.Stat(r)
		switch {
		case out == r, oerr == nil && ierr == nil && os.SameFile(ofi, ifi):
			return &InputError{Flag: "--output", Output: output, Input: in}
		case ierr == nil && ifi.IsDir() && within(out, r):
			return &InputError{Flag: "--output", Output: output, Input: in, Inside: true}
		}
		return nil
	})
}

// eachInput calls f with every non-empty input and its resolved path, until f returns an error.
func eachInput(inputs []string, f func(in, resolved string) error) error {
	for _, in := range inputs {
		if in == "" {
			continue
		}
		r, err := resolve(in)
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		if err := f(in, r); err != nil {
			return err
		}
	}
	return nil
}

// CheckOutputDir refuses an output directory that is an input, lies inside an input directory,
// or holds an input (a file written below it could replace that input). Its messages name the
// output --output; CheckOutputDirFlag names another flag.
func CheckOutputDir(output string, inputs []string) error {
	return CheckOutputDirFlag("--output", output, inputs)
}

// CheckOutputDirFlag is CheckOutputDir for an output directory given by flag (--census-out),
// which its messages name.
func CheckOutputDirFlag(flag, output string, inputs []string) error {
	out, err := resolve(output)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, output, err)
	}
	return eachInput(inputs, func(in, r string) error {
		switch {
		case out == r:
			return &InputError{Flag: flag, Output: output, Input: in}
		case within(out, r):
			return &InputError{Flag: flag, Output: output, Input: in, Inside: true}
		case within(r, out):
			return fmt.Errorf("%s %s holds %s, an input of this run: refused (write it elsewhere)", flag, output, in)
		}
		return nil
	})
}

// WriteFile writes what write produces to path without ever leaving a partial file there: the
// bytes go to a temporary file in the directory of path (of its target, when path is a symbolic link), which is synced, given the mode of the file
// it replaces (or 0666 less the umask) and renamed over path; the directory is then synced. When
// anything fails, the temporary file is removed and path is as it was.
func WriteFile(path string, write func(io.Writer) error) (err error) {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r // a link to the report is followed: its target is what the user reads
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var mode fs.FileMode
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%s is a directory", path)
		}
		if !fi.Mode().IsRegular() {
			// A device or a pipe (/dev/null, /dev/stdout) is written to, never renamed over:
			// replacing it would destroy it, and there is no file to leave half-written.
			return writeDevice(path, write)
		}
		mode = fi.Mode().Perm()
	} else {
		mode = newFileMode() // reads the umask from /proc: only for a new file
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sw := newSyncingWriter(tmp)
	bw := bufio.NewWriterSize(sw, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if serr := sw.stop(); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncEvery is how many bytes a syncingWriter writes between two syncs (a variable for the tests).
var syncEvery int64 = 16 << 20

// syncingWriter writes to a file and has what it wrote synced as it goes, on a goroutine of its
// own, every syncEvery bytes: the sync before the rename then has only the last part to flush.
// (A 1M-binding report is 0.9 GB; flushing it all after the last write took 2.3 s, with the
// encoders done and waiting.)
type syncingWriter struct {
	f       *os.File
	written int64 // since the last sync asked for
	ask     chan struct{}
	done    chan error
}

func newSyncingWriter(f *os.File) *syncingWriter {
	w := &syncingWriter{f: f, ask: make(chan struct{}, 1), done: make(chan error, 1)}
	go func() {
		var err error
		for range w.ask {
			if err == nil {
				err = f.Sync()
			}
		}
		w.done <- err
	}()
	return w
}

func (w *syncingWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if w.written += int64(n); w.written >= syncEvery {
		w.written = 0
		select {
		case w.ask <- struct{}{}:
		default: // a sync is under way: the next one will take these bytes too
		}
	}
	return n, err
}

// stop waits for the syncs asked for and returns the first error one gave.
func (w *syncingWriter) stop() error {
	close(w.ask)
	return <-w.done
}

// writeDevice writes to a file that is not a regular one, as it is.
func writeDevice(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteTree writes files (slash-separated paths below dir → contents) all or nothing: every file
// is first written and synced in a staging directory, and moved into place only when all are.
// A new dir is staged beside it and renamed into place whole; into an existing dir, each staged
// file is renamed over its target. A failure while staging leaves dir as it was.
//
// Into an existing dir, every path is resolved inside it (os.Root): a symbolic link below dir
// that leads out of it — a cases/ linked to another directory — is refused, not followed, and
// a target that exists and is not a regular file is refused before anything moves.
func WriteTree(dir string, files map[string][]byte) (err error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("%q is not a path inside %s", name, dir)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	_, statErr := os.Stat(dir)
	exists := statErr == nil
	var root *os.Root
	if exists {
		if root, err = os.OpenRoot(dir); err != nil {
			return err
		}
		defer root.Close()
		// What would stop a file from being moved into place is found before anything moves.
		for _, name := range names {
			if err := checkTarget(root, dir, name); err != nil {
				return err
			}
		}
	}
	var stage string
	if exists {
		stage, err = os.MkdirTemp(dir, ".staging-*")
	} else {
		parent := filepath.Dir(filepath.Clean(dir))
		if err = os.MkdirAll(parent, 0o777); err != nil {
			return err
		}
		stage, err = os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-*")
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil || exists {
			os.RemoveAll(stage)
		}
	}()
	if err = os.Chmod(stage, 0o777&^umask()); err != nil {
		return err
	}
	mode := newFileMode()
	dirs := map[string]bool{stage: true}
	for _, name := range names {
		p := filepath.Join(stage, filepath.FromSlash(name))
		if err = os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			return err
		}
		dirs[filepath.Dir(p)] = true
		if err = writeSynced(p, files[name], mode); err != nil {
			return err
		}
	}
	for d := range dirs {
		syncDir(d)
	}
	if !exists {
		if err = os.Rename(stage, dir); err != nil {
			return err
		}
		syncDir(filepath.Dir(filepath.Clean(dir)))
		return nil
	}
	staged := filepath.Base(stage)
	moved := map[string]bool{}
	for _, name := range names {
		target := filepath.FromSlash(name)
		if err = root.MkdirAll(filepath.Dir(target), 0o777); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if err = root.Rename(filepath.Join(staged, target), target); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		moved[filepath.Join(dir, filepath.Dir(target))] = true
	}
	for d := range moved {
		syncDir(d)
	}
	return nil
}

// checkTarget refuses a file of WriteTree's that could not be moved into place below root: its
// path leads out of dir through a symbolic link, it exists and is not a regular file, or a
// directory it needs is a file.
func checkTarget(root *os.Root, dir, name string) error {
	target := filepath.FromSlash(name)
	shown := filepath.Join(dir, target)
	// Walk the path's directories inside the root: Lstat of each, so that a link is seen.
	for p := filepath.Dir(target); p != "."; p = filepath.Dir(p) {
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, p), err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if _, err := root.Stat(p); err != nil {
				return fmt.Errorf("%s is a symbolic link that leads out of %s: not followed", filepath.Join(dir, p), dir)
			}
		}
	}
	fi, err := root.Lstat(target)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("%s exists and is not a regular file", shown)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", shown, err)
	}
	if fi, err := root.Stat(filepath.Dir(target)); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", filepath.Join(dir, filepath.Dir(target)))
	}
	return nil
}

func writeSynced(p string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename durable. It is best effort: not every system can sync a directory.
func syncDir(dir string) { _ = SyncDir(dir) }

// SyncDir fsyncs a directory, so that a rename in it is durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDirError is WriteDurably's error when the file is in place but the directory could not be
// synced.
type SyncDirError struct {
	Dir string
	Err error
}

// Error returns the message.
func (e *SyncDirError) Error() string { return "syncing " + e.Dir + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *SyncDirError) Unwrap() error { return e.Err }

// WriteDurably writes dir/name as a reader must never see it half written: write fills a new
// file dir/tmp (mode 0640; created exclusively when excl is set, else truncated), which is
// fsync'd, closed and renamed to name, and then the directory is fsync'd, so that name exists
// only for the whole file and survives a crash once WriteDurably returns. A failure before the
// rename removes the temporary file; a failure to sync the directory after it is a
// *SyncDirError.
func WriteDurably(dir, tmp, name string, excl bool, write func(io.Writer) error) error {
	tmpPath := filepath.Join(dir, tmp)
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if excl {
		flag = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(tmpPath, flag, 0o640)
	if err != nil {
		_ = os.Remove(tmpPath)
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmpPath, filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(tmpPath)
		return err
	}
	if err := SyncDir(dir); err != nil {
		return &SyncDirError{Dir: dir, Err: err}
	}
	return nil
}

// newFileMode is the mode os.Create would give a new file: 0666 less the umask.
func newFileMode() fs.FileMode { return 0o666 &^ umask() }

// umask reads the process umask from /proc/self/status (Linux 4.7 and later) without changing
// it; elsewhere it assumes the common 022.
func umask() fs.FileMode {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for line := range bytes.Lines(data) {
			if v, ok := bytes.CutPrefix(line, []byte("Umask:")); ok {
				if m, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 32); err == nil {
					return fs.FileMode(m) & 0o777
				}
			}
		}
	}
	return 0o022
}
