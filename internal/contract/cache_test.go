package contract

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
)

// TestBuiltinModelIsCurrent keeps builtin_model.json the model of the built-in .cue files: the
// same key, and the same model, positions included, as evaluating them. When it fails, run
// go generate ./internal/contract.
func TestBuiltinModelIsCurrent(t *testing.T) {
	srcs, err := ReadLayers([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts")})
	if err != nil {
		t.Fatal(err)
	}
	key := Key(srcs)
	cachedModel, ok := decode(BuiltinModel, key)
	if !ok || !headedFor(BuiltinModel, key) {
		t.Fatal("builtin_model.json is not the model of the built-in contracts: run go generate ./internal/contract")
	}
	evaluated, err := Evaluate(srcs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cachedModel, evaluated) {
		t.Error("the cached built-in model differs from the evaluated one: run go generate ./internal/contract")
	}
}

// TestLoadCached: a model with a user layer is evaluated once and then read from the cache; a
// changed file changes the key; a corrupt cache entry is passed over, never trusted.
func TestLoadCached(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "mine")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(user, "p.cue"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package contracts\n\nprofiles: mine: {doc: \"Mine.\", nullPolicy: \"strict\", require: [{doc: \"control\", lanes: [\"direct\"], outcomes: [\"pass\"]}]}\n")
	layers := []layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts"), layer.User(user)}
	cache := filepath.Join(dir, "cache")
	load := func() (*Model, string) {
		t.Helper()
		srcs, err := ReadLayers(layers)
		if err != nil {
			t.Fatal(err)
		}
		m, err := LoadCached(srcs, cache)
		if err != nil {
			t.Fatal(err)
		}
		return m, filepath.Join(cache, "models", Key(srcs)+".json")
	}
	first, entry := load()
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no cache entry after the first load: %v", err)
	}
	second, _ := load()
	if !reflect.DeepEqual(first, second) || second.Profiles["mine"].Require[0].Pos == "" {
		t.Error("the cached model differs from the evaluated one, or lost its positions")
	}
	if err := os.WriteFile(entry, []byte(`{"format":"contractcheck-model-v1","key":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	third, _ := load()
	if !reflect.DeepEqual(first, third) {
		t.Error("a corrupt cache entry changed the model")
	}
	write("package contracts\n\nprofiles: mine: {doc: \"Changed.\", nullPolicy: \"strict\", require: [{doc: \"control\", lanes: [\"direct\"], outcomes: [\"pass\"]}]}\n")
	changed, _ := load()
	if changed.Profiles["mine"].Doc != "Changed." {
		t.Error("a changed file was read from the cache")
	}
}
