package safeio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestReadFile covers what a reader must refuse before reading: every case returns at once (a
// named pipe is never opened), with an error naming the file.
func TestReadFile(t *testing.T) {
	outside := t.TempDir()
	testkit.WriteFile(t, filepath.Join(outside, "secret.txt"), "root:x:0:0")
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "ok.json"), `{"a":1}`)
	testkit.WriteFile(t, filepath.Join(dir, "big.json"), strings.Repeat(" ", 101))
	testkit.WriteFile(t, filepath.Join(dir, "sub", "inner.json"), `[]`)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink("sub/inner.json", filepath.Join(dir, "link-in.json")))
	must(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link-out.json")))
	must(t, os.Symlink("../"+filepath.Base(outside)+"/secret.txt", filepath.Join(dir, "link-rel-out.json")))
	must(t, os.Symlink("pipe.json", filepath.Join(dir, "link-pipe.json")))
	tests := []struct {
		name    string
		file    string
		want    string // content, when no error
		wantErr string
	}{
		{name: "regular file", file: "ok.json", want: `{"a":1}`},
		{name: "file in a subdirectory", file: "sub/inner.json", want: `[]`},
		{name: "link inside the directory", file: "link-in.json", want: `[]`},
		{name: "over the size limit", file: "big.json", wantErr: "big.json: file is 101 bytes, over the limit of 100 bytes"},
		{name: "named pipe", file: "pipe.json", wantErr: "pipe.json: not a regular file (a named pipe)"},
		{name: "link to a named pipe", file: "link-pipe.json", wantErr: "not a regular file (a named pipe)"},
		{name: "directory", file: "sub", wantErr: "not a regular file (a directory)"},
		{name: "absolute link leaving the directory", file: "link-out.json", wantErr: "leads outside the input directory"},
		{name: "relative link leaving the directory", file: "link-rel-out.json", wantErr: "leads outside the input directory"},
		{name: "dot-dot path", file: "../x.json", wantErr: "invalid argument"},
		{name: "missing", file: "nope.json", wantErr: "no such file"},
	}
	fsys := DirFS(dir)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() {
				defer close(done)
				data, err = ReadFile(fsys, tc.file, 100)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadFile hung")
			}
			if testkit.ErrCase(t, err, tc.wantErr) {
				if strings.Contains(err.Error(), "root:x") {
					t.Errorf("error echoes the file: %v", err)
				}
				return
			}
			if string(data) != tc.want {
				t.Fatalf("got %q, want %q", data, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// mustTooLarge fails the test unless err is a *TooLargeError.
func mustTooLarge(t *testing.T, err error) {
	t.Helper()
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("error %v, want a *TooLargeError", err)
	}
}

// TestReadPath refuses devices and pipes named on the command line.
func TestReadPath(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "fifo")
	must(t, syscall.Mkfifo(pipe, 0o644))
	ok := filepath.Join(dir, "ok.json")
	testkit.WriteFile(t, ok, "{}")
	tests := []struct {
		name, path, wantErr string
	}{
		{name: "regular", path: ok},
		{name: "character device", path: "/dev/zero", wantErr: "/dev/zero: not a regular file (a character device)"},
		{name: "named pipe", path: pipe, wantErr: "not a regular file (a named pipe)"},
		{name: "directory", path: dir, wantErr: "not a regular file (a directory)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadPath(tc.path, 0)
			if !testkit.ErrCase(t, err, tc.wantErr) {
				return
			}
			var nr *NotRegularError
			if !errors.As(err, &nr) {
				t.Errorf("error %T is not a *NotRegularError", err)
			}
		})
	}
}

func TestCheckOutputFile(t *testing.T) {
	dir := t.TempDir()
	obs := filepath.Join(dir, "obs")
	rec := filepath.Join(obs, "direct", "v1", "default.jsonl")
	testkit.WriteFile(t, rec, "{}\n")
	pol := filepath.Join(dir, "p.rego")
	testkit.WriteFile(t, pol, "package p\n")
	must(t, os.Symlink(obs, filepath.Join(dir, "obs-link")))
	must(t, os.Link(pol, filepath.Join(dir, "hard.rego")))
	testkit.WriteFile(t, filepath.Join(dir, "old-report.json"), "{}")
	inputs := []string{obs, pol, ""}
	tests := []struct {
		name, output, wantErr string
	}{
		{name: "a record file", output: rec, wantErr: "an input directory of this run"},
		{name: "a record file, relative with dots", output: filepath.Join(obs, "direct", "..", "direct", "v1", "default.jsonl"), wantErr: "an input directory of this run"},
		{name: "a record file through a linked directory", output: filepath.Join(dir, "obs-link", "direct", "v1", "default.jsonl"), wantErr: "an input directory of this run"},
		{name: "a new file in an input directory", output: filepath.Join(obs, "report.jsonl"), wantErr: "inside " + obs},
		{name: "a policy file", output: pol, wantErr: "an input of this run"},
		{name: "a hard link to a policy file", output: filepath.Join(dir, "hard.rego"), wantErr: "an input of this run"},
		{name: "a directory", output: dir, wantErr: "is a directory"},
		{name: "a new file elsewhere", output: filepath.Join(dir, "report.json")},
		{name: "an existing file elsewhere", output: filepath.Join(dir, "old-report.json")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckOutputFile(tc.output, inputs)
			if !testkit.ErrCase(t, err, tc.wantErr) || !strings.Contains(tc.wantErr, "of this run") {
				return
			}
			namesItsFlag(t, err, "--output")
		})
	}
}

func TestCheckOutputDir(t *testing.T) {
	dir := t.TempDir()
	fx := filepath.Join(dir, "fixtures")
	testkit.WriteFile(t, filepath.Join(fx, "sources", "paper", "C01.json"), "{}")
	src := filepath.Join(dir, "mine", "src.json")
	testkit.WriteFile(t, src, "{}")
	inputs := []string{fx, src}
	tests := []struct {
		name, flag, output, wantErr string
	}{
		{name: "the fixtures directory", output: fx, wantErr: "--output " + fx + " is " + fx + ", an input of this run"},
		{name: "inside the fixtures", output: filepath.Join(fx, "suite"), wantErr: "--output " + filepath.Join(fx, "suite") + " is inside"},
		{name: "holding the source", output: filepath.Join(dir, "mine"), wantErr: "--output " + filepath.Join(dir, "mine") + " holds " + src},
		{name: "elsewhere", output: filepath.Join(dir, "suite")},
		{name: "named by its flag: the input", flag: "--census-out", output: fx, wantErr: "--census-out " + fx + " is " + fx + ", an input of this run"},
		{name: "named by its flag: inside", flag: "--census-out", output: filepath.Join(fx, "day"), wantErr: "--census-out " + filepath.Join(fx, "day") + " is inside"},
		{name: "named by its flag: holding", flag: "--census-out", output: dir, wantErr: "--census-out " + dir + " holds " + fx},
		{name: "named by its flag: elsewhere", flag: "--census-out", output: filepath.Join(dir, "day")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			flag := tc.flag
			if flag == "" {
				flag = "--output"
				err = CheckOutputDir(tc.output, inputs)
			} else {
				err = CheckOutputDirFlag(tc.flag, tc.output, inputs)
			}
			if !testkit.ErrCase(t, err, tc.wantErr) || strings.Contains(tc.wantErr, " holds ") {
				return
			}
			namesItsFlag(t, err, flag)
		})
	}
}

// namesItsFlag fails unless err is an *InputError whose Flag is flag, the flag its message
// begins with: a refusal says which output it refused, a caller reads which from Flag.
func namesItsFlag(t *testing.T, err error, flag string) {
	t.Helper()
	var ie *InputError
	switch {
	case !errors.As(err, &ie):
		t.Errorf("error %T is not an *InputError", err)
	case ie.Flag != flag:
		t.Errorf("the *InputError's Flag is %q, want %q", ie.Flag, flag)
	case !strings.HasPrefix(err.Error(), flag+" "):
		t.Errorf("error %q does not begin with its flag %s", err, flag)
	}
}

// TestWriteFile: a failed write leaves the previous file byte for byte and no temporary file.
func TestWriteFile(t *testing.T) {
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "%999d\n", i)
	}
	big := sb.String()
	dir := t.TempDir()
	p := filepath.Join(dir, "report.json")
	must(t, os.WriteFile(p, []byte("previous report\n"), 0o640))
	tests := []struct {
		name    string
		write   func(io.Writer) error
		want    string
		wantErr bool
	}{
		{name: "fails half way", write: func(w io.Writer) error {
			io.WriteString(w, strings.Repeat("x", 100<<10))
			return errors.New("boom")
		}, want: "previous report\n", wantErr: true},
		{name: "succeeds", write: func(w io.Writer) error {
			_, err := io.WriteString(w, "new report\n")
			return err
		}, want: "new report\n"},
		{name: "synced on the way, fails", write: func(w io.Writer) error {
			for range 1000 {
				io.WriteString(w, strings.Repeat("x", 1000))
			}
			return errors.New("boom")
		}, want: "new report\n", wantErr: true},
		{name: "synced on the way", write: func(w io.Writer) error {
			for i := range 1000 {
				if _, err := fmt.Fprintf(w, "%999d\n", i); err != nil {
					return err
				}
			}
			return nil
		}, want: big},
	}
	defer func(n int64) { syncEvery = n }(syncEvery)
	syncEvery = 4096 // a sync asked for every few writes of the 64 KiB buffer below WriteFile's writer
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteFile(p, tc.write)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tc.want {
				t.Errorf("file holds %q, want %q", got, tc.want)
			}
			fi, _ := os.Stat(p)
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the previous 0640", fi.Mode().Perm())
			}
			es, _ := os.ReadDir(dir)
			if len(es) != 1 {
				t.Errorf("directory holds %d entries, want only the report", len(es))
			}
		})
	}
}

// TestWriteTree: all files or none.
func TestWriteTree(t *testing.T) {
	tests := []struct {
		name    string
		exists  bool
		files   map[string][]byte
		wantErr bool
	}{
		{name: "new directory", files: map[string][]byte{"cases/a.json": []byte("a"), "sources/s.json": []byte("s")}},
		{name: "existing directory", exists: true, files: map[string][]byte{"cases/a.json": []byte("a2"), "cases/b.json": []byte("b")}},
		{name: "new directory, third file fails", files: map[string][]byte{"a": []byte("1"), "a/b": []byte("2"), "c": []byte("3")}, wantErr: true},
		{name: "existing directory, second file fails", exists: true, files: map[string][]byte{"cases/z": []byte("1"), "cases/z/y": []byte("2")}, wantErr: true},
		{name: "existing directory, a target is a directory", exists: true, files: map[string][]byte{"cases/a.json": []byte("a2"), "cases/sub": []byte("x")}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "suite")
			before := map[string]string{}
			if tc.exists {
				testkit.WriteFile(t, filepath.Join(dir, "cases", "a.json"), "a1")
				before["cases/a.json"] = "a1"
				must(t, os.MkdirAll(filepath.Join(dir, "cases", "sub", "deeper"), 0o755))
			}
			err := WriteTree(dir, tc.files)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			got := tree(t, dir)
			want := before
			if !tc.wantErr {
				want = map[string]string{}
				for k, v := range before {
					want[k] = v
				}
				for k, v := range tc.files {
					want[k] = string(v)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("tree %v, want %v", got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			parent, _ := os.ReadDir(filepath.Dir(dir))
			for _, e := range parent {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("staging %s left behind", e.Name())
				}
			}
		})
	}
}

// TestWriteTreeSymlinks: a symbolic link below an existing directory that leads out of it is
// refused and nothing is written through it; a relative one that stays inside is followed (an
// absolute link is taken as leading out, as os.Root takes it).
func TestWriteTreeSymlinks(t *testing.T) {
	tests := []struct {
		name    string
		link    string // the target cases links to
		wantErr string
	}{
		{name: "cases links out of the suite", link: "../elsewhere", wantErr: "leads out of"},
		{name: "cases links out by an absolute path", link: "/tmp", wantErr: "leads out of"},
		{name: "cases links inside the suite", link: "real"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "suite")
			must(t, os.MkdirAll(filepath.Join(top, "elsewhere"), 0o755))
			must(t, os.MkdirAll(filepath.Join(dir, "real"), 0o755))
			must(t, os.Symlink(tc.link, filepath.Join(dir, "cases")))
			err := WriteTree(dir, map[string][]byte{"cases/a.json": []byte("a"), "sources/s.json": []byte("s")})
			if testkit.ErrCase(t, err, tc.wantErr) {
				if got := tree(t, filepath.Join(top, "elsewhere")); len(got) != 0 {
					t.Errorf("wrote through the link: %v", got)
				}
				if _, err := os.Stat(filepath.Join(dir, "sources")); err == nil {
					t.Errorf("wrote sources/ although the write was refused")
				}
				return
			}
			if got := tree(t, filepath.Join(dir, "real")); got["a.json"] != "a" {
				t.Errorf("real/ = %v, want a.json written through the link inside the suite", got)
			}
		})
	}
}

// tree reads every file below dir (nil when dir does not exist).
func tree(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if e.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		data, _ := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadStream reads a stream whole within its bound and cuts off one that goes past it,
// endless ones included, naming the stream.
func TestReadStream(t *testing.T) {
	for _, tc := range []struct {
		name   string
		r      io.Reader
		limit  int64
		want   string
		tooBig bool
	}{
		{name: "within the bound", r: strings.NewReader("abc"), limit: 3, want: "abc"},
		{name: "empty", r: strings.NewReader(""), limit: 3, want: ""},
		{name: "one byte over", r: strings.NewReader("abcd"), limit: 3, tooBig: true},
		{name: "endless", r: zeros{}, limit: 1 << 10, tooBig: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadStream(tc.r, "<stdin>", tc.limit)
			var tl *TooLargeError
			switch {
			case tc.tooBig && !errors.As(err, &tl):
				t.Fatalf("err = %v, want a *TooLargeError", err)
			case tc.tooBig && !strings.HasPrefix(err.Error(), "read <stdin>: "):
				t.Errorf("err = %q, want it to name <stdin>", err)
			case !tc.tooBig && (err != nil || string(got) != tc.want):
				t.Errorf("ReadStream = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// zeros is an endless stream, as /dev/zero piped into standard input.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestWriteFileToADevice writes to /dev/null as to a device: the device is still there afterwards,
// not replaced by a regular file.
func TestWriteFileToADevice(t *testing.T) {
	before, err := os.Stat(os.DevNull)
	if err != nil {
		t.Skip("no", os.DevNull)
	}
	if err := WriteFile(os.DevNull, func(w io.Writer) error {
		_, err := io.WriteString(w, "the report\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(os.DevNull)
	if err != nil || after.Mode() != before.Mode() || after.Mode().IsRegular() {
		t.Fatalf("%s is now %v (was %v): it was replaced", os.DevNull, after.Mode(), before.Mode())
	}
}

// statReader is a reader that reports a size of its own choosing, as a file that grows or
// shrinks while it is read does.
type statReader struct {
	io.Reader
	size int64
}

func (s statReader) Stat() (fs.FileInfo, error) { return sizedInfo(s.size), nil }

type sizedInfo int64

func (s sizedInfo) Name() string       { return "f" }
func (s sizedInfo) Size() int64        { return int64(s) }
func (s sizedInfo) Mode() fs.FileMode  { return 0o644 }
func (s sizedInfo) ModTime() time.Time { return time.Time{} }
func (s sizedInfo) IsDir() bool        { return false }
func (s sizedInfo) Sys() any           { return nil }

// TestReadAll: every byte up to the limit is read whatever size the file says it has (the right
// one, too small, too large, none), and one byte past the limit is a TooLargeError.
func TestReadAll(t *testing.T) {
	const limit = 1000
	tests := []struct {
		name   string
		n      int
		said   int64 // the size Stat reports; -1: the reader has no Stat
		tooBig bool
	}{
		{name: "empty", n: 0, said: 0},
		{name: "says its size", n: 700, said: 700},
		{name: "grew while read", n: 900, said: 10},
		{name: "shrank while read", n: 10, said: 900},
		{name: "no size", n: 999, said: -1},
		{name: "exactly the limit", n: limit, said: limit},
		{name: "one past the limit", n: limit + 1, said: limit + 1, tooBig: true},
		{name: "past the limit, said small", n: 5000, said: 3, tooBig: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := bytes.Repeat([]byte("x"), tc.n)
			var r io.Reader = bytes.NewReader(want)
			if tc.said >= 0 {
				r = statReader{r, tc.said}
			}
			got, err := readAll(r, "f", limit)
			if tc.tooBig {
				mustTooLarge(t, err)
				return
			}
			must(t, err)
			if !bytes.Equal(got, want) {
				t.Errorf("read %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// TestSha256: the hash and size of what was read, and a TooLargeError past a positive limit.
func TestSha256(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int64
		want     string
		tooBig   bool
	}{
		{name: "empty", in: "", want: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{name: "abc", in: "abc", want: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{name: "abc at its limit", in: "abc", limit: 3, want: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{name: "abc past its limit", in: "abc", limit: 2, tooBig: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sum, n, err := Sha256(strings.NewReader(tc.in), tc.limit)
			if tc.tooBig {
				mustTooLarge(t, err)
				return
			}
			must(t, err)
			if sum != tc.want || n != int64(len(tc.in)) {
				t.Errorf("Sha256 = %s, %d; want %s, %d", sum, n, tc.want, len(tc.in))
			}
		})
	}
}
