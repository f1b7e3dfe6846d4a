package census

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
)

// How the census keeps what distinct readings say (docs/design.md, "Speed and memory"): each
// distinct reading's readout and diagnostics, in their canonical encoding, are appended to one
// byte stream, and a reading keeps only where its bytes are. The first spillAfter bytes of the
// stream stay in memory, in chunks; the rest go to a temporary file, unlinked once it is open, and
// are read back (pread) when the report writes them. Where no file can be made or written (a
// read-only or full temporary directory) the rest stays in memory, as all of it once did: the
// file saves memory and changes nothing else. A run whose readings carry per-binding values
// (a million bindings whose diagnostics each name a _meta entry of their own) has tens of
// megabytes of them, which would be live heap to the end of the run.

// spillAfter is how many bytes of readings the census keeps in memory before it writes the rest
// to a temporary file: the built-in check's readings take about two thirds of it, so a run that
// small never makes the file. It was 1 MiB until stop 56, which took the live heap of a million-
// binding check down to meet its memory goal (docs/design.md, "The 1M goal met").
const spillAfter = 512 << 10

// blobChunk is the size of the in-memory chunks; blobFlush how many bytes wait to be written to
// the file.
const (
	blobChunk = 256 << 10
	blobFlush = 256 << 10
)

// blob locates a distinct reading's readout and diagnostics in the byte stream: the readout's
// bytes at off, the diagnostics' right after them; a length of 0 is none (nil), since a
// canonical encoding is never empty.
type blob struct {
	off        int64
	rlen, dlen uint32
}

// blobs is the append-only byte stream (see above). Appends are the census's (one collector);
// reads may come from many goroutines at once (the report's workers), and from one appending.
type blobs struct {
	mu     sync.RWMutex
	limit  int64    // the bytes kept in memory before the stream goes to the file: spillAfter
	chunks [][]byte // the stream's first memLen bytes, blobChunk each but the last
	memLen int64
	// dir is where the file is made, os.TempDir() when empty; file the file, once made, which
	// holds fileLen bytes, and pending those appended after them, not yet written.
	dir     string
	file    *spill
	fileLen int64
	pending []byte
	// noFile is set when the file could not be made or written: the bytes not written then stay
	// pending, in memory, as the whole stream would without a file.
	noFile bool
}

// spill is the temporary file, closed when the census that made it is collected.
type spill struct {
	f    *os.File
	name string
}

// add appends a reading's readout and diagnostics (either nil) and returns where they are.
func (bs *blobs) add(readout, diagnostics []byte) (blob, error) {
	if len(readout) > math.MaxUint32 || len(diagnostics) > math.MaxUint32 {
		return blob{}, errors.New("a readout or diagnostics of 4 GiB or more")
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := blob{off: bs.memLen + bs.fileLen + int64(len(bs.pending)), rlen: uint32(len(readout)), dlen: uint32(len(diagnostics))}
	n := int64(len(readout) + len(diagnostics))
	if bs.file == nil && !bs.noFile && bs.memLen+n <= bs.limit {
		bs.appendMemory(readout)
		bs.appendMemory(diagnostics)
		return b, nil
	}
	if bs.file == nil && !bs.noFile {
		bs.noFile = !bs.open()
	}
	bs.pending = append(append(bs.pending, readout...), diagnostics...)
	if len(bs.pending) >= blobFlush && !bs.noFile {
		bs.noFile = !bs.flush()
	}
	return b, nil
}

// appendMemory appends p to the in-memory chunks.
func (bs *blobs) appendMemory(p []byte) {
	for len(p) > 0 {
		if len(bs.chunks) == 0 || len(bs.chunks[len(bs.chunks)-1]) == blobChunk {
			bs.chunks = append(bs.chunks, make([]byte, 0, blobChunk))
		}
		last := &bs.chunks[len(bs.chunks)-1]
		k := min(len(p), blobChunk-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
		bs.memLen += int64(k)
	}
}

// open makes the file, and reports whether it could.
func (bs *blobs) open() bool {
	s, err := openSpill(bs, bs.dir)
	if err != nil {
		return false
	}
	bs.file = s
	return true
}

// openSpill makes a temporary file in dir (os.TempDir() when empty) for owner, closed when owner
// is collected. It is unlinked at once where the system allows an open file to be (so that
// nothing is left behind, however the process ends), else when it is closed.
func openSpill[T any](owner *T, dir string) (*spill, error) {
	f, err := os.CreateTemp(dir, "contractcheck-census-*.tmp")
	if err != nil {
		return nil, err
	}
	s := &spill{f: f, name: f.Name()}
	unlinked := os.Remove(s.name) == nil
	runtime.AddCleanup(owner, func(s *spill) {
		s.f.Close()
		if !unlinked {
			os.Remove(s.name)
		}
	}, s)
	return s, nil
}

// flush writes the pending bytes to the file, and reports whether it could (a full disk): what
// it could not write stays pending.
func (bs *blobs) flush() bool {
	if _, err := bs.file.f.WriteAt(bs.pending, bs.fileLen); err != nil {
		return false
	}
	bs.fileLen += int64(len(bs.pending))
	bs.pending = bs.pending[:0]
	return true
}

// seal writes what is pending to the file and lets the buffer go: a stream written at once (a run,
// a report's table) then holds no write buffer while it is read. Bytes that cannot be written
// stay pending, as add leaves them.
func (bs *blobs) seal() {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if bs.file != nil && !bs.noFile && len(bs.pending) > 0 {
		bs.noFile = !bs.flush()
	}
	if len(bs.pending) == 0 {
		bs.pending = nil
	}
}

// get returns a reading's readout and diagnostics (nil for none). The bytes are the census's:
// the caller does not change them.
func (bs *blobs) get(b blob) (readout, diagnostics []byte, err error) {
	if b.rlen == 0 && b.dlen == 0 {
		return nil, nil, nil
	}
	p, err := bs.read(b.off, int64(b.rlen)+int64(b.dlen))
	if err != nil {
		return nil, nil, err
	}
	if b.rlen > 0 {
		readout = p[:b.rlen:b.rlen]
	}
	if b.dlen > 0 {
		diagnostics = p[b.rlen:]
	}
	return readout, diagnostics, nil
}

// mustGet is get for the report's readers that cannot return an error (result.Results.At): the
// file is the census's own, open and unlinked, so a failure to read it back is a broken machine.
func (bs *blobs) mustGet(b blob) (readout, diagnostics []byte) {
	r, d, err := bs.get(b)
	if err != nil {
		panic(fmt.Sprintf("census: %v", err))
	}
	return r, d
}

// size is the stream's length in bytes.
func (bs *blobs) size() int64 {
	bs.mu.RLock()
	defer bs.mu.RUnlock()
	return bs.memLen + bs.fileLen + int64(len(bs.pending))
}

// read returns the n bytes of the stream at off, which may lie across what is in memory, in the
// file and pending (a run or a table read back a chunk at a time).
func (bs *blobs) read(off, n int64) ([]byte, error) {
	var buf []byte
	return bs.readInto(off, n, &buf)
}

// readInto is read into *buf (a reader's buffer, used again for each chunk; made, or made larger,
// when it has no room for n bytes); bytes that lie in one chunk in memory are not copied.
func (bs *blobs) readInto(off, n int64, buf *[]byte) ([]byte, error) {
	bs.mu.RLock()
	defer bs.mu.RUnlock()
	if off+n <= bs.memLen {
		i, at := off/blobChunk, off%blobChunk
		if at+n <= blobChunk {
			return bs.chunks[i][at : at+n : at+n], nil
		}
	}
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	out := (*buf)[:n]
	k := int64(0)
	for k < n && off+k < bs.memLen {
		i, at := (off+k)/blobChunk, (off+k)%blobChunk
		k += int64(copy(out[k:], bs.chunks[i][at:]))
	}
	if k < n && off+k < bs.memLen+bs.fileLen {
		m := min(n-k, bs.memLen+bs.fileLen-(off+k))
		if got, err := bs.file.f.ReadAt(out[k:k+m], off+k-bs.memLen); int64(got) < m {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("read back the census's bytes kept in %s: %w", bs.file.name, err)
		}
		k += m
	}
	if k < n {
		copy(out[k:], bs.pending[off+k-bs.memLen-bs.fileLen:])
	}
	return out, nil
}
