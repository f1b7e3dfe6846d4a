package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestReproduceVerb writes a reproduction from the command line and refuses what it cannot write.
func TestReproduceVerb(t *testing.T) {
	t.Parallel()
	dir, layer := initWork(t)
	args := func(fixture, task, out string, more ...string) []string {
		return append([]string{"reproduce", "--fixture", fixture, "--lane", "go-sdk", "--version", "v1.8.0", "--stage", "D1", "--task", task, "--output", out}, more...)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
		files    []string
	}{
		{name: "a go-sdk loss", args: args("C02", "T2", filepath.Join(dir, "c02")), code: 0,
			inStdout: "structuredContent.sequence 9007199254740993 must reach D1 exactly",
			files:    []string{"repro_test.go", "go.mod", "testdata/w0.json", "ISSUE.md", "README.md", ".contractcheck-reproduce.json"}},
		{name: "a binding that passes", args: args("C01", "T1", filepath.Join(dir, "c01")), code: 2, inStderr: "nothing is lost to reproduce"},
		{name: "output inside an input", args: args("C02", "T2", filepath.Join(layer, "out"), "--contracts", layer), code: 2, inStderr: "an input directory of this run"},
		{name: "no output", args: []string{"reproduce", "--fixture", "C02"}, code: 2, inStderr: "--output is required"},
		{name: "a version that is not one", args: append(args("C02", "T2", filepath.Join(dir, "c01")), "--version", "v1.8.0\nreplace example.com/x => ../evil"), code: 2,
			inStderr: `--version "v1.8.0\nreplace example.com/x => ../evil" is not a lane version`},
		{name: "a fixture id that is not one", args: args("C02\u2028x", "T2", filepath.Join(dir, "c01")), code: 2, inStderr: `--fixture "C02\u2028x" is not a fixture id`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.inStdout) || !strings.Contains(stderr, tc.inStderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d with %q / %q", code, stdout, stderr, tc.code, tc.inStdout, tc.inStderr)
			}
			out := tc.args[slices.Index(tc.args, "--output")+1]
			for _, f := range tc.files {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("no %s: %v", f, err)
				}
			}
			if tc.code != 0 {
				if _, err := os.Stat(filepath.Join(dir, "c01")); err == nil {
					t.Error("a refused reproduction wrote its directory")
				}
			}
		})
	}
	w0, err := os.ReadFile(filepath.Join(dir, "c02", "testdata", "w0.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "sources", "paper", "C02.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(w0) != string(src) {
		t.Error("testdata/w0.json is not the fixture's bytes")
	}
}

// TestReproduceOutputDirectory: reproduce writes into a new or empty directory, or over its own
// earlier output; another non-empty one is refused (exit 2, naming the directory and --force)
// and left as it was; with --force it
// writes its own files beside the others, keeps a README.md it did not write, refuses a go.mod
// it did not write, and never writes through a symbolic link out of the directory.
func TestReproduceOutputDirectory(t *testing.T) {
	t.Parallel()
	args := func(out string, more ...string) []string {
		return append([]string{"reproduce", "--fixture", "C02", "--lane", "go-sdk", "--version", "v1.8.0", "--stage", "D1", "--task", "T2", "--output", out}, more...)
	}
	own := []string{"repro_test.go", "go.mod", "testdata/w0.json", "ISSUE.md", ".contractcheck-reproduce.json"}
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir, outside string)
		force    bool
		code     int
		inStdout string
		inStderr []string
		// written: files reproduce must have written (when it exits 0).
		written []string
	}{
		{name: "a README.md and a go.mod", setup: func(t *testing.T, dir, _ string) {
			testkit.WriteFile(t, filepath.Join(dir, "README.md"), "# my project\n")
			testkit.WriteFile(t, filepath.Join(dir, "go.mod"), "module example.com/mine\n")
		}, code: 2, inStderr: []string{"is not empty", "--force"}},
		{name: "a README.md, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			testkit.WriteFile(t, filepath.Join(dir, "README.md"), "# my project\n")
			testkit.WriteFile(t, filepath.Join(dir, "notes", "todo.txt"), "mine\n")
		}, code: 0, inStdout: "kept README.md: it was there and reproduce did not write it", written: own},
		{name: "a go.mod, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			testkit.WriteFile(t, filepath.Join(dir, "go.mod"), "module example.com/mine\n")
		}, code: 2, inStderr: []string{"go.mod is there and reproduce did not write it", "--force"}},
		{name: "testdata a link out of the directory, forced", force: true, setup: func(t *testing.T, dir, outside string) {
			testkit.WriteFile(t, filepath.Join(outside, "w0.json"), "theirs\n")
			if err := os.Symlink(outside, filepath.Join(dir, "testdata")); err != nil {
				t.Fatal(err)
			}
		}, code: 2, inStderr: []string{"testdata/w0.json is below testdata, a symbolic link", "--force"}},
		{name: "its own earlier reproduction", setup: func(t *testing.T, dir, _ string) {
			if code, _, stderr := cli(t, args(dir)...); code != 0 {
				t.Fatalf("the earlier run: %s", stderr)
			}
		}, code: 0, written: append(own, "README.md")},
		{name: "its own earlier reproduction, forced", force: true, setup: func(t *testing.T, dir, _ string) {
			if code, _, stderr := cli(t, args(dir)...); code != 0 {
				t.Fatalf("the earlier run: %s", stderr)
			}
		}, code: 0, written: append(own, "README.md")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := filepath.Join(t.TempDir(), "repro"), t.TempDir()
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir, outside)
			before, beforeOutside := tree(t, dir), tree(t, outside)
			a := args(dir)
			if tc.force {
				a = append(a, "--force")
			}
			code, stdout, stderr := cli(t, a...)
			if code != tc.code || !strings.Contains(stdout, tc.inStdout) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d with %q", code, stdout, stderr, tc.code, tc.inStdout)
			}
			for _, want := range append(tc.inStderr, dir) {
				if code != 0 && !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
			after := tree(t, dir)
			if !maps.Equal(tree(t, outside), beforeOutside) {
				t.Error("the directory the link leads to changed")
			}
			if code != 0 {
				if !maps.Equal(after, before) {
					t.Errorf("a refused run changed %s:\n%v\nwas\n%v", dir, after, before)
				}
				return
			}
			for name, sum := range before {
				if _, ours := after[name]; !ours || (!slices.Contains(tc.written, name) && after[name] != sum) {
					t.Errorf("%s, which reproduce did not write, changed or went", name)
				}
			}
			for _, name := range tc.written {
				if _, ok := after[name]; !ok {
					t.Errorf("%s was not written", name)
				}
			}
		})
	}
}

// tree is the SHA-256 of every regular file below dir, and the target of every link, by
// slash-separated path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link " + target
			return err
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			sum := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(sum[:])
			return err
		case !d.IsDir():
			out[rel] = fmt.Sprint(d.Type())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReproduceStdoutEscapesMessages: the messages reproduce prints name structuredContent keys;
// a key holding a line break, a workflow command, ESC and a bidi override is printed on its line
// with those characters shown escaped, so that no line of the output starts a CI command and no
// control character reaches the terminal.
func TestReproduceStdoutEscapesMessages(t *testing.T) {
	t.Parallel()
	key := "k\n::error file=X::pwned\x1b[31m\u202e\u2028"
	dir := t.TempDir()
	k, err := json.Marshal(key)
	if err != nil {
		t.Fatal(err)
	}
	src := `{"content":[{"type":"text","text":"t"}],"structuredContent":{` + string(k) + `:9007199254740993}}` + "\n"
	testkit.WriteFile(t, filepath.Join(dir, "fixtures", "sources", "hostile", "H1.json"), src)
	testkit.WriteFile(t, filepath.Join(dir, "contracts", "h.cue"), `package contracts

fixtures: H1: {suite: "hostile", family: "structured-stress", revision: "2025-11-25", tasks: ["T2"], targets: [], doc: "A hostile key."}
`)

	sum := sha256.Sum256([]byte(src))
	testkit.WriteFile(t, filepath.Join(dir, "observations", "h.jsonl"), fmt.Sprintf(`{"fixture":"H1","lane":"go-sdk","laneVersion":"v1.8.0","configuration":"default","stage":"D1","repetition":1,"state":"captured","carrier":{"content":[{"type":"text","text":"t"}],"structuredContent":{%s:9007199254740992}},"sourceSha256":%q,"origin":"captured"}`+"\n", k, hex.EncodeToString(sum[:])))
	code, stdout, stderr := cli(t, "reproduce", "--contracts", filepath.Join(dir, "contracts"), "--fixtures", filepath.Join(dir, "fixtures"),
		"--observations", filepath.Join(dir, "observations"), "--fixture", "H1", "--lane", "go-sdk", "--version", "v1.8.0", "--stage", "D1", "--task", "T2",
		"--output", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `structuredContent.k\n::error file=X::pwned\u001b[31m\u202e\u2028 9007199254740993 must reach D1 exactly`) {
		t.Errorf("stdout does not show the key escaped:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("a line of stdout starts a workflow command: %q", line)
		}
	}
	if strings.ContainsAny(stdout, "\x1b\u202e\u2028") {
		t.Errorf("stdout holds a control, bidi or line separator character: %q", stdout)
	}
}
