package census

import (
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"

	"github.com/contractcheck/contractcheck/internal/result"
)

// TestVariantsAreSmall: a distinct reading is 32 bytes in memory; they grow with the bindings (a
// tenth of them at a million) and are live to the end of the report.
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
				c.variants.blobs.limit = limit
				c.variants.blobs.dir = t.TempDir()
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
				if got := c.sameDiagnostics(a, b); got != tc.want {
					t.Errorf("sameDiagnostics = %v, want %v", got, tc.want)
				}
				if got := c.sameDiagnostics(b, a); got != tc.want {
					t.Errorf("sameDiagnostics (the other way) = %v, want %v", got, tc.want)
				}
			})
		}
	}
}
