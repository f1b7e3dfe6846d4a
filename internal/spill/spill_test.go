package spill

import (
	"bytes"
	"fmt"
	"testing"
)

// TestSealedReadBack: a sealed stream holds no write buffer, and every byte reads back,
// across what is in memory and in the file, read in pieces that straddle them.
func TestSealedReadBack(t *testing.T) {
	tests := []struct {
		name  string
		limit int64
		n     int
	}{
		{name: "all in memory", limit: 1 << 20, n: 5000},
		{name: "memory then file", limit: 1000, n: 5000},
		{name: "all in the file", limit: 0, n: 5000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs := Stream{Limit: tc.limit, Dir: t.TempDir()}
			var want []byte
			for i := range tc.n {
				p := []byte(fmt.Sprintf("%d,", i))
				want = append(want, p...)
				bs.Append(p)
			}
			bs.Seal()
			if bs.pending != nil {
				t.Fatalf("%d bytes still pending after Seal", bs.Pending())
			}
			for _, piece := range []int64{1, 7, 999, 4096} {
				for off := int64(0); off < int64(len(want)); off += piece {
					n := min(piece, int64(len(want))-off)
					got, err := bs.Read(off, n)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want[off:off+n]) {
						t.Fatalf("bytes %d+%d read %q, want %q", off, n, got, want[off:off+n])
					}
				}
			}
		})
	}
}
