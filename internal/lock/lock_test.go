package lock

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

func sum(c byte) string { return strings.Repeat(string(c), 64) }

// TestDiff names every kind of drift: a changed, an appeared and a disappeared file, another tool
// version, other layer options; equal locks have none.
func TestDiff(t *testing.T) {
	base := func() *Lock {
		return &Lock{LockVersion: Version, Tool: "v1.0.0", Layers: LayersOf(inputs.Options{Observations: []string{"obs"}}),
			Files: []File{{Path: "builtin:contracts/atoms.cue", Kind: Contract, Sha256: sum('a')}, {Path: "obs/x.jsonl", Kind: Record, Sha256: sum('b')}}}
	}
	for _, tc := range []struct {
		name   string
		change func(*Lock)
		want   []string // lines of the message; none: no drift
	}{
		{name: "equal", change: func(*Lock) {}},
		{name: "a record changed", change: func(l *Lock) { l.Files[1].Sha256 = sum('c') },
			want: []string{"(1 file drifted)", "changed      obs/x.jsonl (record): sha256 bbbbbbbbbbbb… in the lock, cccccccccccc… now"}},
		{name: "a record appeared", change: func(l *Lock) { l.Files = append(l.Files, File{Path: "obs/y.jsonl", Kind: Record, Sha256: sum('d')}) },
			want: []string{"appeared     obs/y.jsonl (record): not in the lock"}},
		{name: "a record disappeared", change: func(l *Lock) { l.Files = l.Files[:1] },
			want: []string{"disappeared  obs/x.jsonl (record): in the lock, not read now"}},
		{name: "another tool", change: func(l *Lock) { l.Tool = "v1.1.0" },
			want: []string{"(0 files drifted)", "tool         contractcheck v1.0.0 in the lock, v1.1.0 now"}},
		{name: "other layers", change: func(l *Lock) { l.Layers.Policies = []string{"mine"} },
			want: []string{"layers       --observations obs in the lock, --policies mine --observations obs now"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := base()
			tc.change(now)
			d := Diff("contractcheck.lock", base(), now)
			if len(tc.want) == 0 {
				if d != nil {
					t.Fatalf("drift %v, want none", d)
				}
				return
			}
			if d == nil {
				t.Fatal("no drift")
			}
			for _, w := range tc.want {
				if !strings.Contains(d.Error(), w) {
					t.Errorf("message lacks %q:\n%s", w, d.Error())
				}
			}
		})
	}
}

// TestComputeEncodeRead pins a user layer beside the built-ins: every kind of file is there under
// its display name, test files and unrelated files are not, the encoding is deterministic and
// valid against the lock schema, and it reads back equal.
func TestComputeEncodeRead(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{
		"pol/mine.rego":          "package mine\n",
		"pol/mine_test.rego":     "package mine_test\n",
		"pol/README.md":          "not a policy\n",
		"con/mine.cue":           "package contracts\n",
		"con/sub/skipped.cue":    "package contracts\n",
		"obs/lane/v1/a.jsonl":    "{}\n",
		"obs/lane/v1/notes.txt":  "not records\n",
		"fix/sources/s/X.json":   "{}\n",
		"sch/carriers/c.json":    "{}\n",
		"sch/other/ignored.json": "{}\n",
		// A revision of the layer's own: its schema and descriptor are read, an example is not.
		"sch/mcp/DRAFT-x/schema.json":           "{}\n",
		"sch/mcp/DRAFT-x/revision.json":         "{}\n",
		"sch/mcp/DRAFT-x/examples/ignored.json": "{}\n",
	})
	t.Chdir(dir)
	o := inputs.Options{Contracts: []string{"con"}, Policies: []string{"pol"}, Schemas: []string{"sch"}, Fixtures: []string{"fix"}, Observations: []string{"obs"}}
	l, err := Compute(o, "v9")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range l.Files {
		if !strings.HasPrefix(f.Path, "builtin:") {
			got[f.Path] = f.Kind
		}
	}
	want := map[string]string{"con/mine.cue": Contract, "pol/mine.rego": Policy, "sch/carriers/c.json": Schema,
		"sch/mcp/DRAFT-x/schema.json": Schema, "sch/mcp/DRAFT-x/revision.json": Schema,
		"fix/sources/s/X.json": Source, "obs/lane/v1/a.jsonl": Record}
	if len(got) != len(want) {
		t.Errorf("user files pinned: %v, want %v", got, want)
	}
	for p, k := range want {
		if got[p] != k {
			t.Errorf("%s pinned as %q, want %q", p, got[p], k)
		}
	}
	var a, b bytes.Buffer
	if err := Encode(&a, l); err != nil {
		t.Fatal(err)
	}
	l2, _ := Compute(o, "v9")
	if err := Encode(&b, l2); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("two locks of the same inputs differ")
	}
	if err := os.WriteFile(FileName, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Read(FileName)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(FileName, back, l); d != nil {
		t.Errorf("the lock read back differs: %v", d)
	}
	if err := Verify(FileName, o, "v9"); err != nil {
		t.Errorf("Verify on unchanged inputs: %v", err)
	}
	if err := os.WriteFile("obs/lane/v1/a.jsonl", []byte("{ }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = Verify(FileName, o, "v9")
	if err == nil || !strings.Contains(err.Error(), "changed      obs/lane/v1/a.jsonl (record)") || result.ExitCode(err) != 2 {
		t.Errorf("Verify after a record changed: %v (exit %d), want the record named, exit 2", err, result.ExitCode(err))
	}
}

// TestReadBad refuses a lock that is not one, naming the file and the position.
func TestReadBad(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{name: "missing", want: "no such file (write it with contractcheck lock)"},
		{name: "not JSON", content: "{\"lockVersion\": 1,\n  oops}", want: "bad.lock:2:3"},
		{name: "another version", content: `{"lockVersion": 2, "tool": "v1", "layers": {"noBuiltin": false, "contracts": [], "policies": [], "schemas": [], "fixtures": [], "observations": []}, "files": []}`,
			want: "bad.lock: /lockVersion"},
		{name: "a bad hash", content: `{"lockVersion": 1, "tool": "v1", "layers": {"noBuiltin": false, "contracts": [], "policies": [], "schemas": [], "fixtures": [], "observations": []}, "files": [{"path": "a", "kind": "record", "sha256": "xyz"}]}`,
			want: "bad.lock: /files/0/sha256"},
		{name: "a file pinned twice", content: `{"lockVersion": 1, "tool": "v1", "layers": {"noBuiltin": false, "contracts": [], "policies": [], "schemas": [], "fixtures": [], "observations": []}, "files": [` +
			`{"path": "a", "kind": "record", "sha256": "` + strings.Repeat("0", 64) + `"}, {"path": "a", "kind": "record", "sha256": "` + strings.Repeat("1", 64) + `"}]}`,
			want: "bad.lock: /files/1: a is pinned twice (also at /files/0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.lock")
			os.Remove(p)
			if tc.content != "" {
				if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Read(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read: %v, want %q", err, tc.want)
			}
		})
	}
}
