package reproduce

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestOutput decides what a reproduction writes into a directory: all of it into a new or empty
// one, or one holding only its own earlier output; nothing into another non-empty one without
// --force; with --force, its own files beside the
// others, keeping a README.md or ISSUE.md it did not write, replacing only what an earlier run
// wrote and left as it was, and refusing a file it did not write, a file that is not regular,
// and any path through a symbolic link.
func TestOutput(t *testing.T) {
	files := map[string][]byte{
		"repro_test.go":    []byte("package mcp_test\n"),
		"go.mod":           []byte("module x\n"),
		"testdata/w0.json": []byte("{}\n"),
		"README.md":        []byte("# Reproduction\n"),
		"ISSUE.md":         []byte("# Issue\n"),
	}
	all := append(slices.Sorted(maps.Keys(files)), ManifestName)
	slices.Sort(all)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, outside string) // dir exists and is empty unless setup removes it
		force bool
		// want: the files written, the files kept; or an error saying each of refused.
		want, kept []string
		refused    []string
	}{
		{name: "a new directory", setup: func(t *testing.T, dir, _ string) { rm(t, dir) }, want: all},
		{name: "an empty directory", want: all},
		{name: "a non-empty directory", setup: func(t *testing.T, dir, _ string) { put(t, dir, "notes.txt", "mine") },
			refused: []string{"is not empty", "--force"}},
		{name: "a README.md and other files, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			put(t, dir, "README.md", "my readme")
			put(t, dir, "notes.txt", "mine")
		}, want: without(all, "README.md"), kept: []string{"README.md"}},
		{name: "a go.mod of another module, forced", force: true, setup: func(t *testing.T, dir, _ string) { put(t, dir, "go.mod", "module mine\n") },
			refused: []string{"go.mod is there and reproduce did not write it"}},
		{name: "testdata a link out of the directory, forced", force: true, setup: func(t *testing.T, dir, outside string) {
			link(t, outside, filepath.Join(dir, "testdata"))
		}, refused: []string{"testdata/w0.json is below testdata, a symbolic link"}},
		{name: "a file a link out of the directory, forced", force: true, setup: func(t *testing.T, dir, outside string) {
			put(t, outside, "victim.go", "package victim\n")
			link(t, filepath.Join(outside, "victim.go"), filepath.Join(dir, "repro_test.go"))
		}, refused: []string{"repro_test.go is a symbolic link"}},
		{name: "a file that is a directory, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			if err := os.Mkdir(filepath.Join(dir, "go.mod"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, refused: []string{"go.mod is there and is not a regular file"}},
		{name: "a file that is a pipe, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "go.mod"), 0o644); err != nil {
				t.Skip(err)
			}
		}, refused: []string{"go.mod is there and is not a regular file"}},
		{name: "testdata a file, forced", force: true, setup: func(t *testing.T, dir, _ string) { put(t, dir, "testdata", "x") },
			refused: []string{"testdata/w0.json is below testdata, which is not a directory"}},
		{name: "an earlier reproduction, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			writeEarlier(t, dir, files)
			put(t, dir, "notes.txt", "mine")
		}, want: all},
		{name: "an earlier reproduction as it wrote it, not forced", setup: func(t *testing.T, dir, _ string) { writeEarlier(t, dir, files) },
			want: all},
		{name: "an earlier reproduction and another file, not forced", setup: func(t *testing.T, dir, _ string) {
			writeEarlier(t, dir, files)
			put(t, dir, "testdata/other.json", "{}")
		}, refused: []string{"is not empty"}},
		{name: "an earlier reproduction edited since, not forced", setup: func(t *testing.T, dir, _ string) {
			writeEarlier(t, dir, files)
			put(t, dir, "README.md", "# edited\n")
		}, refused: []string{"is not empty"}},
		{name: "an earlier reproduction with a link, not forced", setup: func(t *testing.T, dir, outside string) {
			writeEarlier(t, dir, files)
			link(t, outside, filepath.Join(dir, "more"))
		}, refused: []string{"is not empty"}},
		{name: "an earlier reproduction edited since, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			writeEarlier(t, dir, files)
			put(t, dir, "repro_test.go", "package mcp_test // edited\n")
		}, refused: []string{"repro_test.go is there and reproduce did not write it (or it changed since)"}},
		{name: "a manifest that is not one, forced", force: true, setup: func(t *testing.T, dir, _ string) { put(t, dir, ManifestName, "[]") },
			refused: []string{ManifestName + " is there and is not reproduce's manifest"}},
		{name: "the manifest a link, forced", force: true, setup: func(t *testing.T, dir, outside string) {
			put(t, outside, "m.json", `{"files": {}}`)
			link(t, filepath.Join(outside, "m.json"), filepath.Join(dir, ManifestName))
		}, refused: []string{ManifestName + " is there and is not a regular file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := filepath.Join(t.TempDir(), "out"), t.TempDir()
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(t, dir, outside)
			}
			before, beforeOutside := snapshot(t, dir), snapshot(t, outside)
			write, kept, err := Output(dir, files, tc.force)
			if tc.refused != nil {
				var oe *OutputError
				if !errors.As(err, &oe) {
					t.Fatalf("error %v, want an *OutputError", err)
				}
				for _, want := range append(tc.refused, dir) {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(write)); !slices.Equal(got, tc.want) {
				t.Errorf("writes %v, want %v", got, tc.want)
			}
			if !slices.Equal(kept, tc.kept) {
				t.Errorf("keeps %v, want %v", kept, tc.kept)
			}
			if err := safeio.WriteTree(dir, write); err != nil {
				t.Fatal(err)
			}
			after := snapshot(t, dir)
			for name, content := range before {
				if _, ours := write[name]; !ours && name != ManifestName && after[name] != content {
					t.Errorf("%s changed: %q, was %q", name, after[name], content)
				}
			}
			if got := snapshot(t, outside); !maps.Equal(got, beforeOutside) {
				t.Errorf("the directory outside changed: %v, was %v", got, beforeOutside)
			}
			// What was written is reproduce's: the next forced run replaces it all.
			again, kept, err := Output(dir, files, true)
			if err != nil {
				t.Fatalf("a second forced run: %v", err)
			}
			if got := slices.Sorted(maps.Keys(again)); !slices.Equal(got, tc.want) || !slices.Equal(kept, tc.kept) {
				t.Errorf("a second forced run writes %v and keeps %v, want %v and %v", got, kept, tc.want, tc.kept)
			}
		})
	}
}

// TestOutputNotADirectory: an --output that is a file is refused, with or without --force.
func TestOutputNotADirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "file")
	put(t, filepath.Dir(p), "file", "x")
	for _, force := range []bool{false, true} {
		if _, _, err := Output(p, map[string][]byte{"a": nil}, force); err == nil || !strings.Contains(err.Error(), "is not a directory") {
			t.Errorf("force %v: error %v, want one saying it is not a directory", force, err)
		}
	}
}

// writeEarlier writes files into dir as an earlier run of reproduce did, manifest included.
func writeEarlier(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	write, _, err := Output(dir, files, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := safeio.WriteTree(dir, write); err != nil {
		t.Fatal(err)
	}
}

func without(names []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == drop })
}

func put(t *testing.T, dir, name, content string) {
	t.Helper()
	testkit.WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
}

func rm(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every entry below dir: a file's content, a link's target, a directory's mark.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link " + target
			return err
		case d.IsDir():
			out[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			out[rel] = "file " + string(b)
			return err
		default:
			out[rel] = "special " + d.Type().String()
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}
