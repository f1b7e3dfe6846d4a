package census

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestVariantsAreSmall: a distinct reading is 32 bytes when it is read back (the stream keeps
// metaSize of them, the heap its outcome): a report reads one for each result it makes.
func TestVariantsAreSmall(t *testing.T) {
	if n := unsafe.Sizeof(variantData{}); n > 32 {
		t.Errorf("a distinct reading is %d bytes, want at most 32", n)
	}
}

// TestSameDiagnostics: two distinct readings have the same diagnostics when their canonical
// encodings are the same, none counting as the empty list, whatever the first bytes of their
// hashes say (the bytes decide when those are the same); in memory and read back from the file.
func TestSameDiagnostics(t *testing.T) {
	diag := func(n int) []result.Diagnostic {
		return []result.Diagnostic{{"atom": "structured.value", "path": "/n", "observed": json.Number(fmt.Sprint(n))}}
	}
	tests := []struct {
		name       string
		a, b       result.Reading
		sameHash   bool // make the first bytes of their hashes the same
		want       bool
		wantHashes bool // the first bytes of their hashes are the same before sameHash
	}{
		{name: "none and the empty list", a: result.Reading{Outcome: result.Pass}, b: result.Reading{Outcome: result.Pass, Readout: map[string]any{"x": "y"}, Diagnostics: []result.Diagnostic{}},
			want: true, wantHashes: true},
		{name: "the same diagnostics, other readouts", a: result.Reading{Outcome: result.Unmet, Readout: map[string]any{"x": "1"}, Diagnostics: diag(1)},
			b: result.Reading{Outcome: result.Unmet, Readout: map[string]any{"x": "2"}, Diagnostics: diag(1)}, want: true, wantHashes: true},
		{name: "other diagnostics", a: result.Reading{Outcome: result.Unmet, Diagnostics: diag(1)}, b: result.Reading{Outcome: result.Unmet, Diagnostics: diag(2)}},
		{name: "other diagnostics whose hashes start alike", a: result.Reading{Outcome: result.Unmet, Diagnostics: diag(1)},
			b: result.Reading{Outcome: result.Unmet, Diagnostics: diag(2)}, sameHash: true},
		{name: "diagnostics and none whose hashes start alike", a: result.Reading{Outcome: result.Unmet, Diagnostics: diag(1)},
			b: result.Reading{Outcome: result.Unmet}, sameHash: true},
	}
	for _, tc := range tests {
		for _, limit := range []int64{spillAfter, 0} {
			t.Run(fmt.Sprintf("%s, %d bytes in memory", tc.name, limit), func(t *testing.T) {
				c, err := testNew(model(), "p")
				if err != nil {
					t.Fatal(err)
				}
				c.variants.blobs.Limit = limit
				c.variants.blobs.Dir = t.TempDir()
				a, err := c.variants.intern(tc.a)
				if err != nil {
					t.Fatal(err)
				}
				b, err := c.variants.intern(tc.b)
				if err != nil {
					t.Fatal(err)
				}
				if a == b {
					t.Fatal("the two readings are one variant: the test compares nothing")
				}
				va, vb := c.variants.at(a), c.variants.at(b)
				if got := va.diagnosed == vb.diagnosed; got != tc.wantHashes {
					t.Fatalf("hashes start alike: %v, want %v", got, tc.wantHashes)
				}
				if tc.sameHash {
					vb.diagnosed = va.diagnosed
				}
				if !tc.sameHash {
					if got := c.sameDiagnostics(a, b); got != tc.want {
						t.Errorf("sameDiagnostics = %v, want %v", got, tc.want)
					}
				}
				if got := c.variants.sameDiagnostics(va, vb); got != tc.want {
					t.Errorf("sameDiagnostics = %v, want %v", got, tc.want)
				}
				if got := c.variants.sameDiagnostics(vb, va); got != tc.want {
					t.Errorf("sameDiagnostics (the other way) = %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// TestDistinctReadingsStayOffTheHeap: the heap a census holds for its distinct readings does not
// grow with their number past the few the index keeps in memory: 200,000 more distinct readings
// (a tenth of the bindings at two million) add less than 16 bytes each to the live heap (their
// outcome, a byte each), where their 32-byte data and their index in a map added some 90 each;
// and every one of them is still found by its fingerprint.
func TestDistinctReadingsStayOffTheHeap(t *testing.T) {
	c, err := testNew(model(), "p")
	if err != nil {
		t.Fatal(err)
	}
	c.variants.blobs.Dir = t.TempDir()
	reading := func(i int) result.Reading {
		return result.Reading{Outcome: result.Unmet, Readout: map[string]any{"n": fmt.Sprint(i)}}
	}
	intern := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			id, err := c.variants.intern(reading(i))
			if err != nil {
				t.Fatal(err)
			}
			if id != int32(i) {
				t.Fatalf("reading %d is variant %d", i, id)
			}
		}
	}
	const warm, more = 100_000, 200_000
	intern(0, warm)
	before := testkit.LiveHeap()
	intern(warm, warm+more)
	grown := testkit.LiveHeap() - before
	if perReading := grown / more; perReading >= 16 {
		t.Errorf("%d more distinct readings grew the live heap by %d bytes, %d each; want under 16", more, grown, perReading)
	}
	for _, i := range []int{0, 1, warm - 1, warm, warm + more/2, warm + more - 1} {
		intern(i, i+1)
		if got := c.variants.len(); got != warm+more {
			t.Fatalf("after finding reading %d again the census holds %d distinct readings, want %d", i, got, warm+more)
		}
		if r, _ := c.variants.values(c.variants.at(int32(i))); r["n"] != fmt.Sprint(i) {
			t.Errorf("variant %d reads %v", i, r)
		}
	}
	runtime.KeepAlive(c)
}
