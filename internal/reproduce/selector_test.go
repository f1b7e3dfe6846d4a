package reproduce

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/instrument"
)

// TestRefusesSelectingBindings: a reproduction asserts on JSON pointers, so a loss read through a
// source binding that selects array elements by value (a layer that extends the pinned revision's
// binding with one, @extend()) is refused with the reason, not written with a path that would
// read as an object key.
func TestRefusesSelectingBindings(t *testing.T) {
	dir := t.TempDir()
	layer := hostileLayer(t, dir, []string{"H000"}, []string{benign})
	ext := "package contracts\n\nrevisions: \"2025-11-25\": source: raised: path: #\"/alternatives[kind=\"error\"]/message\"# @extend()\n"
	if err := os.WriteFile(filepath.Join(dir, "contracts", "select.cue"), []byte(ext), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in, err := instrument.Load(ctx, layer)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Options: layer, Fixture: "H000", Lane: "go-sdk", Version: "v1.8.0", Configuration: "default", Stage: "D1", Task: "T1", Command: "contractcheck reproduce (test)"}
	_, err = build(ctx, in, o)
	if err == nil || !strings.Contains(err.Error(), "T1 H000 go-sdk D1: the source binding of revision 2025-11-25 or the lane's content binding selects array elements by value, and a reproduction asserts on JSON pointers only") {
		t.Fatalf("build: %v, want a refusal naming the selecting binding", err)
	}
}
