package census

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/spill"
)

// TestBlobsReadBack: whatever part of the byte stream a reading's bytes are in (the in-memory
// chunks, across two of them, the bytes not yet written to the file, the file), they read back as
// added, none (nil) stays none, and reads from many goroutines at once agree.
func TestBlobsReadBack(t *testing.T) {
	long := bytes.Repeat([]byte(`"x"`), spill.Chunk/3+7) // longer than a chunk
	tests := []struct {
		name  string
		limit int64
	}{
		{name: "all in memory", limit: 1 << 40},
		{name: "all in the file", limit: 0},
		{name: "memory then the file", limit: spill.Chunk + 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bs := &spill.Stream{Limit: tc.limit, Dir: dir}
			type pair struct{ r, d []byte }
			var added []pair
			var refs []blob
			for i := range 3000 {
				p := pair{r: fmt.Appendf(nil, `{"i":%d}`, i)}
				switch i % 4 {
				case 1:
					p.d = []byte(`[{"kind":"added","path":"/_meta/` + strings.Repeat("v", i%97) + `"}]`)
				case 2:
					p.r = nil
				case 3:
					p.r, p.d = nil, nil
				}
				if i == 1500 {
					p.d = long
				}
				b, err := addBlob(bs, p.r, p.d)
				if err != nil {
					t.Fatal(err)
				}
				added, refs = append(added, p), append(refs, b)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for w := range 4 {
				wg.Go(func() {
					for i := w; i < len(refs); i += 4 {
						r, d, err := getBlob(bs, refs[i])
						if err == nil && (!bytes.Equal(r, added[i].r) || (r == nil) != (added[i].r == nil) ||
							!bytes.Equal(d, added[i].d) || (d == nil) != (added[i].d == nil)) {
							err = fmt.Errorf("reading %d: got %q %q, want %q %q", i, r, d, added[i].r, added[i].d)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if spilled := bs.Spilled(); spilled != (tc.limit < 1<<40) {
				t.Errorf("wrote a file: %v, want %v", spilled, !spilled)
			}
			if runtime.GOOS == "linux" {
				// The file is unlinked once open: nothing is left behind, however the process ends.
				if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
					t.Errorf("the temporary directory holds %v (%v), want nothing", ents, err)
				}
			}
		})
	}
}

// TestBlobsWithoutAFile: where no file can be made (a temporary directory that is not there, or
// read-only), the readings stay in memory and read back as added: the file saves memory and
// changes nothing else.
func TestBlobsWithoutAFile(t *testing.T) {
	bs := &spill.Stream{Limit: 10, Dir: filepath.Join(t.TempDir(), "not-there")}
	var refs []blob
	for i := range 2000 {
		b, err := addBlob(bs, fmt.Appendf(nil, `{"i":%d}`, i), []byte(`[]`))
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, b)
	}
	if bs.Spilled() || !bs.InMemory() {
		t.Fatalf("spilled %v, in memory %v: want no file", bs.Spilled(), bs.InMemory())
	}
	for i, b := range refs {
		r, d, err := getBlob(bs, b)
		if err != nil || string(r) != fmt.Sprintf(`{"i":%d}`, i) || string(d) != `[]` {
			t.Fatalf("reading %d: %q %q %v", i, r, d, err)
		}
	}
}

// TestSpilledReportIsTheSame: a census whose readings go to the file at once makes the report a
// census keeping them in memory makes, byte for byte: results (agreeing and unstable), their
// readouts and diagnostics, and the upgrade changes with theirs.
func TestSpilledReportIsTheSame(t *testing.T) {
	m, readings := variedReadings()
	written := func(limit int64) []byte {
		c, err := testNew(m, "p")
		if err != nil {
			t.Fatal(err)
		}
		c.variants.blobs.Limit, c.variants.blobs.Dir = limit, t.TempDir()
		for _, r := range readings {
			if err := c.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		if spilled := c.variants.blobs.Spilled(); spilled != (limit == 0) {
			t.Fatalf("limit %d: wrote a file: %v", limit, spilled)
		}
		var out bytes.Buffer
		if err := (report.JSON{}).Output(&out, mustReport(t, c)); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	inMemory, spilled := written(spillAfter), written(0)
	if !bytes.Equal(inMemory, spilled) {
		t.Fatalf("the report differs when the readings are kept on disk:\n%s\nwant\n%s", spilled, inMemory)
	}
	for _, want := range []string{`"outcome": "unstable"`, `"/_meta/v2"`, `"diagnosticsAfter": [`, `"hostile": "*/`} {
		if !bytes.Contains(inMemory, []byte(want)) {
			t.Errorf("the report holds no %s: the test reads nothing it means to\n%s", want, inMemory)
		}
	}
}
