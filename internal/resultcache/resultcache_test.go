package resultcache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/layer"
)

// TestRecordThenGet stores a report as it is written and replays it byte for byte; a report
// changed on disk is not replayed; one past MaxReport is not kept.
func TestRecordThenGet(t *testing.T) {
	cache := t.TempDir()
	rec := Record(cache, "k1")
	report := strings.Repeat("a report line\n", 1000)
	if _, err := rec.Write([]byte(report)); err != nil {
		t.Fatal(err)
	}
	rec.Commit(1, "profile p NOT satisfied", "")
	e, ok := Get(cache, "k1")
	if !ok || e.Exit != 1 || e.Stderr != "profile p NOT satisfied" {
		t.Fatalf("entry %+v, %v", e, ok)
	}
	var out bytes.Buffer
	if _, err := e.WriteTo(&out); err != nil || out.String() != report {
		t.Fatalf("replayed %d bytes (%v), want the report", out.Len(), err)
	}
	if err := os.WriteFile(filepath.Join(Dir(cache), "k1.report"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := Get(cache, "k1"); ok {
		t.Error("a report changed on disk was replayed")
	}
	big := Record(cache, "k2")
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i <= MaxReport>>20; i++ {
		big.Write(chunk)
	}
	big.Commit(0, "", "")
	if _, ok := Get(cache, "k2"); ok {
		t.Error("a report past MaxReport was kept")
	}
	var nilRec *Recorder
	nilRec.Write([]byte("x"))
	nilRec.Commit(0, "", "")
	nilRec.Abort()
}

// TestKeyFollowsTheInputs: the key changes with a user file's bytes and with the options, not
// with a run.
func TestKeyFollowsTheInputs(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "r.jsonl")
	os.WriteFile(f, []byte("one\n"), 0o644)
	in := Inputs{Dirs: []layer.Dir{layer.Builtin(contractcheck.Builtin, "contracts"), layer.User(dir)}}
	k1, ok, err := Key("opts", in)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	k2, _, _ := Key("opts", in)
	os.WriteFile(f, []byte("two\n"), 0o644)
	k3, _, _ := Key("opts", in)
	k4, _, _ := Key("other opts", in)
	if k1 != k2 || k1 == k3 || k3 == k4 {
		t.Errorf("keys %s %s %s %s", k1, k2, k3, k4)
	}
}
