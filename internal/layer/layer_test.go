package layer

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck"
)

func TestStackOrder(t *testing.T) {
	tests := []struct {
		name      string
		noBuiltin bool
		user      []string
		want      []string
	}{
		{name: "built-in only", want: []string{"builtin:contracts"}},
		{name: "user layers follow the built-in one in the order given", user: []string{"b", "a/"},
			want: []string{"builtin:contracts", "b", "a"}},
		{name: "no-builtin keeps only the user's", noBuiltin: true, user: []string{"./mine"},
			want: []string{"mine"}},
		{name: "no-builtin and no user layer is empty", noBuiltin: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The built-in file system is handed in: a test's own stands for the binary's.
			builtin := fstest.MapFS{"contracts/model.cue": {Data: []byte("package contracts\n")}}
			var got []string
			for _, d := range Stack(builtin, "contracts", tc.noBuiltin, tc.user) {
				got = append(got, d.Display)
				if d.Builtin {
					if _, err := fs.Stat(d.FS, d.Root+"/model.cue"); err != nil {
						t.Errorf("the built-in layer does not read the file system it was handed: %v", err)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("Stack displays = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		name                string
		dir                 Dir
		rel                 string
		wantPath, wantShown string
	}{
		{name: "built-in file keeps its prefix", dir: Builtin(contractcheck.Builtin, "contracts"), rel: "tasks/t1.cue",
			wantPath: "contracts/tasks/t1.cue", wantShown: "builtin:contracts/tasks/t1.cue"},
		{name: "user file is shown under the path given", dir: User("./mine"), rel: "x.cue",
			wantPath: "x.cue", wantShown: "mine/x.cue"},
		{name: "sub directory of a built-in", dir: Builtin(contractcheck.Builtin, "fixtures").Sub("suites"), rel: "a.json",
			wantPath: "fixtures/suites/a.json", wantShown: "builtin:fixtures/suites/a.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, shown := tc.dir.Path(tc.rel)
			if p != tc.wantPath || shown != tc.wantShown {
				t.Fatalf("Path(%q) = %q, %q; want %q, %q", tc.rel, p, shown, tc.wantPath, tc.wantShown)
			}
			if rel := tc.dir.Rel(p); rel != tc.rel {
				t.Fatalf("Rel(%q) = %q, want %q", p, rel, tc.rel)
			}
		})
	}
}

func TestBuiltinFilesAreReadable(t *testing.T) {
	d := Builtin(contractcheck.Builtin, "contracts")
	entries, err := readDir(d)
	if err != nil {
		t.Fatalf("read the built-in contracts: %v", err)
	}
	if len(entries) == 0 {
		t.Fatal("the built-in contracts layer is empty")
	}
}

func readDir(d Dir) ([]string, error) {
	es, err := fs.ReadDir(d.FS, d.Root)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names, err
}

func TestCheck(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file.cue")
	if err := os.WriteFile(file, []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  Dir
		want string // "" for no error
	}{
		{name: "built-in is always there", dir: Builtin(contractcheck.Builtin, "contracts")},
		{name: "existing directory", dir: User(tmp)},
		{name: "missing directory is named as given", dir: User(filepath.Join(tmp, "nope")),
			want: "--contracts " + filepath.ToSlash(filepath.Join(tmp, "nope")) + ": no such directory"},
		{name: "a file is not a directory", dir: User(file),
			want: "--contracts " + filepath.ToSlash(file) + ": not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.dir.Check("--contracts")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("Check = %v, want %q", err, tc.want)
			}
		})
	}
}
