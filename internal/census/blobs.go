package census

import (
	"errors"
	"fmt"
	"math"

	"github.com/contractcheck/contractcheck/internal/spill"
)

// How the census keeps what distinct readings say (docs/design.md, "Speed and memory"): each
// distinct reading's readout and diagnostics, in their canonical encoding, are appended to one
// byte stream (a spill.Stream), and a reading keeps only where its bytes are. The first
// spillAfter bytes of the stream stay in memory; the rest go to a temporary file and are read
// back when the report writes them. A run whose readings carry per-binding values (a million
// bindings whose diagnostics each name a _meta entry of their own) has tens of megabytes of them,
// which would be live heap to the end of the run.

// spillAfter is how many bytes of readings the census keeps in memory before it writes the rest
// to a temporary file: the built-in check's readings take about two thirds of it, so a run that
// small never makes the file. It was 1 MiB until stop 56, which took the live heap of a million-
// binding check down to meet its memory goal (docs/design.md, "The 1M goal met").
const spillAfter = 512 << 10

// blob locates a distinct reading's readout and diagnostics in the byte stream: the readout's
// bytes at off, the diagnostics' right after them; a length of 0 is none (nil), since a
// canonical encoding is never empty.
type blob struct {
	off        int64
	rlen, dlen uint32
}

// addBlob appends a reading's readout and diagnostics (either nil) to bs and returns where they are.
func addBlob(bs *spill.Stream, readout, diagnostics []byte) (blob, error) {
	if len(readout) > math.MaxUint32 || len(diagnostics) > math.MaxUint32 {
		return blob{}, errors.New("a readout or diagnostics of 4 GiB or more")
	}
	off := bs.Append(readout, diagnostics)
	return blob{off: off, rlen: uint32(len(readout)), dlen: uint32(len(diagnostics))}, nil
}

// getBlob returns a reading's readout and diagnostics (nil for none). The bytes are the census's:
// the caller does not change them.
func getBlob(bs *spill.Stream, b blob) (readout, diagnostics []byte, err error) {
	if b.rlen == 0 && b.dlen == 0 {
		return nil, nil, nil
	}
	p, err := bs.Read(b.off, int64(b.rlen)+int64(b.dlen))
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

// mustGetBlob is getBlob for the report's readers that cannot return an error (result.Results.At):
// the file is the census's own, open and unlinked, so a failure to read it back is a broken
// machine.
func mustGetBlob(bs *spill.Stream, b blob) (readout, diagnostics []byte) {
	r, d, err := getBlob(bs, b)
	if err != nil {
		panic(fmt.Sprintf("census: %v", err))
	}
	return r, d
}
