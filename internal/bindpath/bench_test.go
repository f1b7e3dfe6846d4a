package bindpath

import (
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// BenchmarkLookup compares a plain path's Lookup with strictjson.Pointer's, which it replaced in
// the projector, and a selecting path's Read on a list of outputs.
func BenchmarkLookup(b *testing.B) {
	doc, err := strictjson.Decode("doc", []byte(`{"outputs":[{"audience":"user","format":"structured","structuredContent":{"u":1}},{"audience":"assistant","format":"content","content":[{"type":"text","text":"hi"}]},{"audience":"assistant","format":"structured","structuredContent":{"a":{"b":1}}}],"structuredContent":{"a":{"b":1}}}`), strictjson.DefaultLimits)
	if err != nil {
		b.Fatal(err)
	}
	ptr, err := strictjson.ParsePointer("/structuredContent/a/b")
	if err != nil {
		b.Fatal(err)
	}
	plain := MustParse("/structuredContent/a/b")
	sel := MustParse(`/outputs[audience="assistant",format="structured"]/structuredContent/a/b`)
	b.Run("strictjson-pointer", func(b *testing.B) {
		for b.Loop() {
			if _, ok := ptr.Lookup(doc); !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("plain-path", func(b *testing.B) {
		for b.Loop() {
			if _, ok := plain.Lookup(doc); !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("selecting-path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok, err := sel.Read(doc); !ok || err != nil {
				b.Fatal("not found")
			}
		}
	})
}
