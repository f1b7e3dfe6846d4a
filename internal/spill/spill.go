// Package spill keeps what a run appends past what it should hold in memory: a byte stream whose
// first bytes stay in memory, in chunks, and whose rest goes to a temporary file, read back when
// asked for (docs/design.md, "Speed and memory"). The census keeps its readings, runs, index and
// report tables in such streams and files (internal/census), and the visibility collector its
// entries (internal/visibility), so that their memory does not grow with the bindings; both write
// sorted runs and read them back through one merge (Merge).
//
// A file is made in the stream's directory (os.TempDir() when empty), unlinked at once where the
// system allows an open file to be, so that nothing is left behind however the process ends, and
// closed when its owner is collected. Where no file can be made or written (a read-only or full
// temporary directory) the rest of the stream stays in memory: the file saves memory and changes
// nothing else.
package spill

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// Chunk is the size of a stream's in-memory chunks; flushAt how many bytes wait before they are
// written to the file.
const (
	Chunk   = 256 << 10
	flushAt = 256 << 10
)

// Stream is an append-only byte stream: its first Limit bytes in memory, the rest in a file.
// Appends are one writer's; reads may come from many goroutines at once, and from the writer.
type Stream struct {
	// Limit is how many bytes stay in memory before the stream goes to the file, and Dir where
	// the file is made (os.TempDir() when empty): set before the first Append.
	Limit int64
	Dir   string

	mu     sync.RWMutex
	chunks [][]byte // the stream's first memLen bytes, Chunk each but the last
	memLen int64
	// file holds fileLen bytes once made, and pending those appended after them, not yet written.
	file    *File
	fileLen int64
	pending []byte
	// noFile is set when the file could not be made or written: the bytes not written then stay
	// pending, in memory, as the whole stream would without a file.
	noFile bool
}

// Append appends the parts, one after the other, and returns the offset of the first.
func (s *Stream) Append(parts ...[]byte) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	off := s.memLen + s.fileLen + int64(len(s.pending))
	n := int64(0)
	for _, p := range parts {
		n += int64(len(p))
	}
	if s.file == nil && !s.noFile && s.memLen+n <= s.Limit {
		for _, p := range parts {
			s.appendMemory(p)
		}
		return off
	}
	if s.file == nil && !s.noFile {
		f, err := Open(s, s.Dir)
		s.file, s.noFile = f, err != nil
	}
	for _, p := range parts {
		s.pending = append(s.pending, p...)
	}
	if len(s.pending) >= flushAt && !s.noFile {
		s.noFile = !s.flush()
	}
	return off
}

// appendMemory appends p to the in-memory chunks.
func (s *Stream) appendMemory(p []byte) {
	for len(p) > 0 {
		if len(s.chunks) == 0 || len(s.chunks[len(s.chunks)-1]) == Chunk {
			s.chunks = append(s.chunks, make([]byte, 0, Chunk))
		}
		last := &s.chunks[len(s.chunks)-1]
		k := min(len(p), Chunk-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
		s.memLen += int64(k)
	}
}

// flush writes the pending bytes to the file, and reports whether it could (a full disk): what
// it could not write stays pending.
func (s *Stream) flush() bool {
	if _, err := s.file.f.WriteAt(s.pending, s.fileLen); err != nil {
		return false
	}
	s.fileLen += int64(len(s.pending))
	s.pending = s.pending[:0]
	return true
}

// Seal writes what is pending to the file and lets the buffer go: a stream written at once (a
// run, a report's table) then holds no write buffer while it is read. Bytes that cannot be
// written stay pending, as Append leaves them.
func (s *Stream) Seal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil && !s.noFile && len(s.pending) > 0 {
		s.noFile = !s.flush()
	}
	if len(s.pending) == 0 {
		s.pending = nil
	}
}

// Size is the stream's length in bytes.
func (s *Stream) Size() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.memLen + s.fileLen + int64(len(s.pending))
}

// Spilled reports whether the stream has made its file.
func (s *Stream) Spilled() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.file != nil
}

// InMemory reports whether the stream keeps what it could not write in memory: it could not make
// or write its file.
func (s *Stream) InMemory() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.noFile
}

// Pending is how many appended bytes wait to be written to the file.
func (s *Stream) Pending() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.pending)
}

// Read returns the n bytes of the stream at off, which may lie across what is in memory, in the
// file and pending (a run or a table read back a chunk at a time). The bytes are the stream's:
// the caller does not change them.
func (s *Stream) Read(off, n int64) ([]byte, error) {
	var buf []byte
	return s.ReadInto(off, n, &buf)
}

// ReadInto is Read into *buf (a reader's buffer, used again for each chunk; made, or made
// larger, when it has no room for n bytes); bytes that lie in one chunk in memory are not copied.
func (s *Stream) ReadInto(off, n int64, buf *[]byte) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if off+n <= s.memLen {
		i, at := off/Chunk, off%Chunk
		if at+n <= Chunk {
			return s.chunks[i][at : at+n : at+n], nil
		}
	}
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	out := (*buf)[:n]
	k := int64(0)
	for k < n && off+k < s.memLen {
		i, at := (off+k)/Chunk, (off+k)%Chunk
		k += int64(copy(out[k:], s.chunks[i][at:]))
	}
	if k < n && off+k < s.memLen+s.fileLen {
		m := min(n-k, s.memLen+s.fileLen-(off+k))
		if got, err := s.file.f.ReadAt(out[k:k+m], off+k-s.memLen); int64(got) < m {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("read back the bytes kept in %s: %w", s.file.name, err)
		}
		k += m
	}
	if k < n {
		copy(out[k:], s.pending[off+k-s.memLen-s.fileLen:])
	}
	return out, nil
}

// File is a temporary file made for an owner (Open), closed when the owner is collected.
type File struct {
	f    *os.File
	name string
}

// Open makes a temporary file in dir (os.TempDir() when empty), contractcheck-*.tmp, for owner,
// closed when owner is collected. It is unlinked at once where the system allows an open file to
// be (so that nothing is left behind, however the process ends), else when it is closed.
func Open[T any](owner *T, dir string) (*File, error) {
	f, err := os.CreateTemp(dir, "contractcheck-*.tmp")
	if err != nil {
		return nil, err
	}
	s := &File{f: f, name: f.Name()}
	unlinked := os.Remove(s.name) == nil
	runtime.AddCleanup(owner, func(s *File) {
		s.f.Close()
		if !unlinked {
			os.Remove(s.name)
		}
	}, s)
	return s, nil
}

// ReadAt reads len(p) bytes of the file at off (io.ReaderAt).
func (f *File) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }

// WriteAt writes p at off (io.WriterAt).
func (f *File) WriteAt(p []byte, off int64) (int, error) { return f.f.WriteAt(p, off) }

// Close closes the file before its owner is collected (a table that grew into a new file).
func (f *File) Close() error { return f.f.Close() }

// Name is the file's name, as messages give it.
func (f *File) Name() string { return f.name }
