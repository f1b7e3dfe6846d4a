package contract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
)

// overlayLayers reads the built-in contract layer and, in name order, each directory under
// testdata/overlay/<name>/ as a user layer.
func overlayLayers(tb testing.TB, name string) []Source {
	tb.Helper()
	dir := filepath.Join("testdata", "overlay", name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	layers := []layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts")}
	for _, e := range entries {
		layers = append(layers, layer.User(filepath.Join(dir, e.Name())))
	}
	srcs, err := ReadLayers(layers)
	if err != nil {
		tb.Fatal(err)
	}
	return srcs
}

// TestOverlayModel: a model whose user layers only write entries of the model's maps decodes from
// the embedded built-in entries and the exported user-written ones to the very model CUE's export
// of the whole value decodes to; a layer that may change a built-in entry otherwise (a
// comprehension, a pattern, a redeclared definition) is exported whole.
func TestOverlayModel(t *testing.T) {
	tests := []struct {
		name    string
		overlay bool
	}{
		{name: "new-task", overlay: true},
		{name: "draft-lane", overlay: true},
		{name: "extra-versions", overlay: true},
		{name: "profile", overlay: true},
		{name: "visibility", overlay: true},
		{name: "comprehension", overlay: false},
		{name: "pattern", overlay: false},
		{name: "redeclared", overlay: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srcs := overlayLayers(t, tc.name)
			v, order, files, err := instance(srcs)
			if err != nil {
				t.Fatal(err)
			}
			o, p, ok := overlayOf(srcs, files)
			if ok != tc.overlay {
				t.Fatalf("overlayOf: %t, want %t", ok, tc.overlay)
			}
			if !ok {
				return
			}
			assembled, ok := o.marshal(v, p)
			if !ok {
				t.Fatal("the overlay's export failed")
			}
			whole, err := v.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			// The two decode alike once checked: the embedded entries are a checked model's
			// (mergeExtraVersions normalised them), and check and locate run on both here as
			// Evaluate runs them.
			ref := &referrer{v: v, order: order}
			decoded := func(data []byte) *Model {
				var m Model
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatal(err)
				}
				m.locate(ref)
				if err := m.check(ref); err != nil {
					t.Fatal(err)
				}
				return &m
			}
			if got, want := decoded(assembled), decoded(whole); !reflect.DeepEqual(got, want) {
				t.Error("the assembled model differs from the exported one")
			}
		})
	}
}

// BenchmarkEvaluateUserLayer evaluates the built-in contracts with a small user layer (a task):
// what each load of a layer the model cache has no entry for costs.
func BenchmarkEvaluateUserLayer(b *testing.B) {
	srcs := overlayLayers(b, "new-task")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(srcs); err != nil {
			b.Fatal(err)
		}
	}
}
