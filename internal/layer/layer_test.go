package layer

import (
	"errors"
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

// TestDirReads holds ReadFile, Stat and ReadDir to the file below the directory and to an error
// that is the cause alone (the display name is the caller's to add), fs.ErrNotExist included.
func TestDirReads(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sources", "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sources", "s", "a.json"), []byte(`{"x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "outside.json"), filepath.Join(dir, "sources", "s", "out.json")); err != nil {
		t.Fatal(err)
	}
	d := User(dir).Sub("sources")
	tests := []struct {
		name    string
		read    func() (string, error)
		want    string
		wantErr string // the whole message: no fs-internal path in it
	}{
		{name: "ReadFile reads the file below the directory", read: func() (string, error) {
			b, err := d.ReadFile("s/a.json", 0)
			return string(b), err
		}, want: `{"x":1}`},
		{name: "ReadFile over the limit", read: func() (string, error) {
			b, err := d.ReadFile("s/a.json", 3)
			return string(b), err
		}, wantErr: "file is 7 bytes, over the limit of 3 bytes"},
		{name: "ReadFile of a missing file", read: func() (string, error) {
			b, err := d.ReadFile("s/none.json", 0)
			return string(b), err
		}, wantErr: "no such file or directory"},
		{name: "ReadFile through a link leading outside", read: func() (string, error) {
			b, err := d.ReadFile("s/out.json", 0)
			return string(b), err
		}, wantErr: "a symbolic link or '..' leads outside the input directory: refused"},
		{name: "Stat of a file", read: func() (string, error) {
			fi, err := d.Stat("s/a.json")
			if err != nil {
				return "", err
			}
			return fi.Name(), nil
		}, want: "a.json"},
		{name: "Stat of a missing file", read: func() (string, error) {
			_, err := d.Stat("none")
			return "", err
		}, wantErr: "no such file or directory"},
		{name: "ReadDir lists the directory below", read: func() (string, error) {
			es, err := d.ReadDir("s")
			var names []string
			for _, e := range es {
				names = append(names, e.Name())
			}
			return strings.Join(names, ","), err
		}, want: "a.json,out.json"},
		{name: "ReadDir of a missing directory", read: func() (string, error) {
			_, err := d.ReadDir("none")
			return "", err
		}, wantErr: "no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.read()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), dir) {
					t.Fatalf("error %v, want one saying %q and not naming the directory", err, tc.wantErr)
				}
				if tc.wantErr == "no such file or directory" && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("error %v is not fs.ErrNotExist", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
