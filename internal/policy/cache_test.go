package policy

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/layer"
)

// TestLoadSharesCompiledEngines: Load hands out the engine it compiled before for the same files
// of built-in layers (same layer, display name and bytes) and options, and compiles anew when any
// of them differs or a layer is the user's; a set that fails to compile fails again (an error is
// never kept).
func TestLoadSharesCompiledEngines(t *testing.T) {
	const good = "package custom\n\ndiagnostics contains {\"atom\": \"x\"} if input.bad\n"
	load := func(t *testing.T, display, src string, opts LoadOptions) (*Engine, error) {
		t.Helper()
		fsys := fstest.MapFS{display + "/c.rego": {Data: []byte(src)}}
		d := layer.Builtin(fsys, display)
		if strings.HasPrefix(display, "user") {
			d = layer.FS(fsys, display, display)
		}
		return Load([]layer.Dir{d}, opts)
	}
	first, err := load(t, "cache-test", good, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		display string
		src     string
		opts    LoadOptions
		same    bool
	}{
		{name: "the same files", display: "cache-test", src: good, same: true},
		{name: "another display name", display: "cache-test-2", src: good},
		{name: "other bytes", display: "cache-test", src: good + "\n# changed\n"},
		{name: "the tests compiled too", display: "cache-test", src: good, opts: LoadOptions{Tests: true}},
	}
	// A user's layer is compiled every time.
	user, err := load(t, "user-cache-test", good, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name    string
		display string
		src     string
		opts    LoadOptions
		same    bool
	}{name: "a user's layer", display: "user-cache-test", src: good})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := load(t, tc.display, tc.src, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if (e == first) != tc.same {
				t.Errorf("shared the first engine: %t, want %t", e == first, tc.same)
			}
			if tc.display == "user-cache-test" && e == user {
				t.Error("a user's layer was compiled once for two loads")
			}
			if got := e.Files("custom"); len(got) != 1 || !strings.Contains(got[0], tc.display+"/") {
				t.Errorf("Files(custom) = %v, want the file under %s", got, tc.display)
			}
		})
	}
	for i := range 2 {
		if _, err := load(t, "cache-test", "package bad\n\nr := y\n", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "builtin:cache-test/c.rego:3:6:") {
			t.Errorf("load %d of a broken set: %v, want its compile error", i+1, err)
		}
	}
}

// TestPrepareShared: the prepared query of a package is prepared once per engine and shared, also
// when asked for from several goroutines at once; a package that does not exist is an error every
// time.
func TestPrepareShared(t *testing.T) {
	e := loadReal(t)
	const n = 8
	got := make([]*Query, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = e.Prepare(context.Background(), "contractcheck.tasks.t2") })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != got[0] {
			t.Errorf("goroutine %d prepared a query of its own", i)
		}
	}
	for i := range 2 {
		if _, err := e.Prepare(context.Background(), "contractcheck.tasks.t9"); err == nil {
			t.Errorf("Prepare %d of a missing package succeeded", i+1)
		}
	}
}
