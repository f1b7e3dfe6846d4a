package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	user := writeLayer(t, filepath.Join(dir, "mine"), layerCUE)
	cache := filepath.Join(dir, "cache")
	first, entry := loadCached(t, cache, user)
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no cache entry after the first load: %v", err)
	}
	second, _ := loadCached(t, cache, user)
	if !reflect.DeepEqual(first, second) || second.Profiles["mine"].Require[0].Pos == "" {
		t.Error("the cached model differs from the evaluated one, or lost its positions")
	}
	if err := os.WriteFile(entry, []byte(`{"format":"contractcheck-model-v1","key":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	third, _ := loadCached(t, cache, user)
	if !reflect.DeepEqual(first, third) {
		t.Error("a corrupt cache entry changed the model")
	}
	writeLayer(t, user, strings.Replace(layerCUE, "Mine.", "Changed.", 1))
	changed, _ := loadCached(t, cache, user)
	if changed.Profiles["mine"].Doc != "Changed." {
		t.Error("a changed file was read from the cache")
	}
}

// TestLoadCachedElsewhere: the entry of a user layer is the model of what its files hold, wherever
// they are: the same layer in another directory (a fresh checkout, a copy) is read from the
// cache, not evaluated again, its positions naming the files where they are now; a file changed
// there is evaluated.
func TestLoadCachedElsewhere(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	first, entry := loadCached(t, cache, writeLayer(t, filepath.Join(dir, "checkout-1", "mine"), layerCUE))
	// The entry is marked, so that a model read from it tells itself from one evaluated.
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no cache entry after the first load: %v", err)
	}
	marked := bytes.Replace(data, []byte(`"doc":"Mine."`), []byte(`"doc":"Read from the cache."`), 1)
	if bytes.Equal(marked, data) {
		t.Fatal("the entry does not hold the profile's doc")
	}
	if err := os.WriteFile(entry, marked, 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := writeLayer(t, filepath.Join(dir, "checkout-2", "mine"), layerCUE)
	second, _ := loadCached(t, cache, elsewhere)
	if second.Profiles["mine"].Doc != "Read from the cache." {
		t.Fatalf("the same layer in another directory was evaluated again (doc %q)", second.Profiles["mine"].Doc)
	}
	want := filepath.Join(elsewhere, "p.cue") + ":3:"
	if pos := second.Profiles["mine"].Require[0].Pos; !strings.HasPrefix(pos, want) {
		t.Errorf("the requirement is at %q, want the file where it is now, %s…", pos, want)
	}
	if a, b := first.Profiles["mine"].Require[0].Pos, second.Profiles["mine"].Require[0].Pos; strings.TrimPrefix(a, filepath.Join(dir, "checkout-1")) != strings.TrimPrefix(b, filepath.Join(dir, "checkout-2")) {
		t.Errorf("the positions differ but for the directory: %q and %q", a, b)
	}
	if pos := second.Tasks["T1"].PolicyPos; !strings.HasPrefix(pos, "builtin:contracts/") {
		t.Errorf("a built-in task's policy is at %q, want a built-in file", pos)
	}
	changed, _ := loadCached(t, cache, writeLayer(t, filepath.Join(dir, "checkout-3", "mine"), strings.Replace(layerCUE, "Mine.", "Changed.", 1)))
	if changed.Profiles["mine"].Doc != "Changed." {
		t.Errorf("a changed file was read from the cache (doc %q)", changed.Profiles["mine"].Doc)
	}
}

// layerCUE is the one file of the user layer the cache tests load: a profile "mine", its doc
// "Mine.", whose requirement is on line 3.
const layerCUE = "package contracts\n\nprofiles: mine: {doc: \"Mine.\", nullPolicy: \"strict\", require: [{doc: \"control\", lanes: [\"direct\"], outcomes: [\"pass\"]}]}\n"

// writeLayer makes the user layer dir (made if missing) hold one file, p.cue, with content, and
// returns dir.
func writeLayer(t *testing.T, dir, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.cue"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadCached is the model of the built-in layer under the user layer user, read through the model
// cache in cache (LoadCached), and the path of the cache entry for it.
func loadCached(t *testing.T, cache, user string) (*Model, string) {
	t.Helper()
	srcs, err := ReadLayers([]layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts"), layer.User(user)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadCached(srcs, cache)
	if err != nil {
		t.Fatal(err)
	}
	return m, filepath.Join(cache, "models", contentKey(srcs)+".json")
}
