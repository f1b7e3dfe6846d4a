package contract

import (
	"testing"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
)

// BenchmarkEvaluate evaluates the built-in contracts: what every run with a user contract layer
// evaluates besides that layer, when the model cache has no entry for it (the first run on the
// layer, and every test that writes a layer of its own).
func BenchmarkEvaluate(b *testing.B) {
	srcs, err := ReadLayers([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts")})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(srcs); err != nil {
			b.Fatal(err)
		}
	}
}
