package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// The recorder's memory is bounded by the run's memory budget (--memory-budget, guard.LimitsOf):
// a message being read is held in memory only while it is small (spoolAt) and while all the
// messages being read together hold less than a share of the budget; past either it goes on into
// a file of the spool, a private temporary directory removed when the recording ends. The bytes
// reach the agent as they come either way: only the recorder's copy is spooled. What the engine
// keeps waiting for its other half is held the same way (spool.hold), and the largest message
// recorded is a share of the budget too (a larger one is forwarded, not recorded, and counted).
var (
	// spoolAt is the size past which a message goes to a file.
	spoolAt = 1 << 20
	// maxSpoolBytes bounds the bytes the spool's files hold together; past it a message is not
	// recorded (counted).
	maxSpoolBytes int64 = 64 << 30
)

// Shares of the budget: the messages being read hold at most budget/memShareDiv in memory
// together, the engine's waiting lists as much again, and one message recorded is at most
// budget/messageShareDiv (the engine and the writer hold a few copies of the one they handle).
const (
	memShareDiv     = 8
	messageShareDiv = 16
)

// spool holds the recorder's copies of large messages in files of a private directory.
type spool struct {
	dir        string
	memShare   int64 // bytes the messages being read, and the engine's lists, may hold in memory
	maxMessage int   // the largest message recorded
	inMem      atomic.Int64
	onDisk     atomic.Int64
	seq        atomic.Int64
}

// newSpool makes the spool's directory (mode 0700) in parent (os.TempDir() when empty) for a
// run with the memory budget.
func newSpool(parent string, budget int64) (*spool, error) {
	dir, err := os.MkdirTemp(parent, "contractcheck-record-")
	if err != nil {
		return nil, fmt.Errorf("record: the spool directory: %w", err)
	}
	return &spool{dir: dir, memShare: budget / memShareDiv, maxMessage: int(min(int64(MaxMessageBytes), budget/messageShareDiv))}, nil
}

// close removes the spool's directory and every file in it.
func (s *spool) close() error {
	if s == nil {
		return nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("record: remove the spool directory: %w", err)
	}
	return nil
}

// limit is the largest message recorded.
func (s *spool) limit() int {
	if s == nil {
		return MaxMessageBytes
	}
	return s.maxMessage
}

// blob is bytes the recorder holds: in memory, or in a file of the spool.
type blob struct {
	mem  []byte
	file *spoolFile
	// counted is the spool whose memory share counts mem until the engine takes the blob
	// (release): the messages waiting in the engine's queue are in the share too.
	counted *spool
}

// release ends the memory share's count of a blob the engine has taken.
func (b blob) release() {
	if b.counted != nil {
		b.counted.inMem.Add(-int64(len(b.mem)))
	}
}

// spoolFile is a file of the spool; it is removed once nothing refers to it.
type spoolFile struct {
	path string
	size int64
}

// bytesOf is an in-memory blob.
func bytesOf(b []byte) blob { return blob{mem: b} }

// empty reports whether the blob holds nothing (the zero blob).
func (b blob) empty() bool { return b.file == nil && b.mem == nil }

// size is the blob's length.
func (b blob) size() int {
	if b.file != nil {
		return int(b.file.size)
	}
	return len(b.mem)
}

// memSize is the memory the blob holds.
func (b blob) memSize() int { return len(b.mem) }

// bytes returns the blob's bytes (read from its file when it is spooled).
func (b blob) bytes() ([]byte, error) {
	if b.file == nil {
		return b.mem, nil
	}
	data, err := os.ReadFile(b.file.path)
	if err != nil {
		return nil, fmt.Errorf("record: read the spool: %w", err)
	}
	runtime.KeepAlive(b.file)
	return data, nil
}

// reader reads the blob; closing it releases the file it opened.
func (b blob) reader() (io.ReadCloser, error) {
	if b.file == nil {
		return io.NopCloser(bytes.NewReader(b.mem)), nil
	}
	f, err := os.Open(b.file.path)
	if err != nil {
		return nil, fmt.Errorf("record: read the spool: %w", err)
	}
	return &fileReader{File: f, keep: b.file}, nil
}

// fileReader keeps its spool file referred to (not removed) while it is read.
type fileReader struct {
	*os.File
	keep *spoolFile
}

// spooled is what a finished spool file releases once no blob refers to it.
type spooled struct {
	path   string
	n      int64
	onDisk *atomic.Int64
}

func (f spooled) release() {
	_ = os.Remove(f.path)
	f.onDisk.Add(-f.n)
}

// errSpoolFull is the spool's files holding maxSpoolBytes.
var errSpoolFull = errors.New("the recorder's spool is full")

// hold keeps b for the engine: in memory when it is small and the engine's lists, which hold
// held bytes in memory, stay within the memory share and within limit; else in a file of the
// spool.
func (s *spool) hold(b []byte, held, limit int) (blob, error) {
	if s == nil || len(b) <= spoolAt && int64(held+len(b)) <= min(s.memShare, int64(limit)) {
		return bytesOf(b), nil
	}
	w := s.writer(true)
	_, _ = w.Write(b)
	return w.finish()
}

// spoolWriter collects one message as it streams by: in memory while it is small, then in a
// file. Its Write never fails (the bytes are forwarded whatever becomes of the copy): a copy that
// could not be kept is an error of finish.
type spoolWriter struct {
	s        *spool
	mem      []byte
	reserved int64
	f        *os.File
	path     string
	n        int64
	keepAll  bool // no bound: the copy is what is forwarded (readBody)
	over     bool // past the largest message recorded
	nonSpace bool // a byte other than JSON white space was written
	err      error
}

// writer starts a message; toFile skips the memory.
func (s *spool) writer(toFile bool) *spoolWriter {
	w := &spoolWriter{s: s}
	if toFile {
		w.toFile()
	}
	return w
}

func (w *spoolWriter) toFile() {
	if w.err != nil || w.f != nil {
		return
	}
	if w.s == nil {
		w.err = errors.New("no spool")
		return
	}
	w.path = filepath.Join(w.s.dir, strconv.FormatInt(w.s.seq.Add(1), 10))
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		w.err = fmt.Errorf("spool a message: %w", err)
		return
	}
	w.f = f
	mem := w.mem
	w.mem = nil
	w.releaseMem()
	w.writeFile(mem)
}

func (w *spoolWriter) releaseMem() {
	if w.s != nil && w.reserved > 0 {
		w.s.inMem.Add(-w.reserved)
		w.reserved = 0
	}
}

func (w *spoolWriter) writeFile(p []byte) {
	if w.err != nil || len(p) == 0 {
		return
	}
	if w.s.onDisk.Add(int64(len(p))) > maxSpoolBytes {
		w.s.onDisk.Add(-int64(len(p)))
		w.err = errSpoolFull
		return
	}
	if _, err := w.f.Write(p); err != nil {
		w.s.onDisk.Add(-int64(len(p)))
		w.err = fmt.Errorf("spool a message: %w", err)
		return
	}
	w.n += int64(len(p))
}

// Write keeps a copy of p, up to the largest message recorded.
func (w *spoolWriter) Write(p []byte) (int, error) {
	if !w.nonSpace {
		w.nonSpace = len(bytes.TrimLeft(p, " \t\r\n")) > 0
	}
	if w.over || w.err != nil {
		return len(p), nil
	}
	if !w.keepAll && len(w.mem)+int(w.n)+len(p) > w.s.limit() {
		w.over = true
		w.discard()
		return len(p), nil
	}
	if w.f == nil {
		if w.s == nil {
			w.mem = append(w.mem, p...)
			return len(p), nil
		}
		if len(w.mem)+len(p) <= spoolAt {
			if w.s.inMem.Add(int64(len(p))) <= w.s.memShare {
				w.reserved += int64(len(p))
				w.mem = append(w.mem, p...)
				return len(p), nil
			}
			w.s.inMem.Add(-int64(len(p)))
		}
		w.toFile()
	}
	w.writeFile(p)
	return len(p), nil
}

// copyBufs are io.Copy's buffers for spoolWriter.ReadFrom, reused: a request's 32 KiB each
// time showed as garbage at thousands of requests a second.
var copyBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// ReadFrom copies r to the writer through a buffer of the pool.
func (w *spoolWriter) ReadFrom(r io.Reader) (int64, error) {
	buf := copyBufs.Get().(*[32 << 10]byte)
	defer copyBufs.Put(buf)
	var n int64
	for {
		k, err := r.Read(buf[:])
		if k > 0 {
			_, _ = w.Write(buf[:k])
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// finish ends the message and returns the blob that holds it. An in-memory blob stays counted
// in the memory share until the engine takes it (blob.release).
func (w *spoolWriter) finish() (blob, error) {
	if w.err != nil {
		w.discard()
		return blob{}, w.err
	}
	if w.f == nil {
		b := bytesOf(w.mem)
		if w.reserved > 0 && w.reserved == int64(len(w.mem)) {
			b.counted = w.s
			w.reserved = 0
		}
		w.releaseMem()
		return b, nil
	}
	w.releaseMem()
	err := w.f.Close()
	w.f = nil
	sf := &spoolFile{path: w.path, size: w.n}
	runtime.AddCleanup(sf, spooled.release, spooled{path: w.path, n: w.n, onDisk: &w.s.onDisk})
	if err != nil {
		return blob{}, fmt.Errorf("spool a message: %w", err)
	}
	return blob{file: sf}, nil
}

// discard drops the copy.
func (w *spoolWriter) discard() {
	w.releaseMem()
	w.mem = nil
	if w.f != nil {
		_ = w.f.Close()
		w.f = nil
		_ = os.Remove(w.path)
		w.s.onDisk.Add(-w.n)
		w.n = 0
	}
}
