package layer

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
)

// TestHash: a directory's files are hashed by their path within it, in path order, whatever the
// directory's root and display name; what skip says yes to is left out, a directory with all
// below it; a file's bytes, name and length all count.
func TestHash(t *testing.T) {
	files := fstest.MapFS{
		"set/b.rego":              {Data: []byte("b")},
		"set/a/x.cue":             {Data: []byte("x")},
		"set/observations/r.json": {Data: []byte("r")},
		"other/root/b.rego":       {Data: []byte("b")},
		"other/root/a/x.cue":      {Data: []byte("x")},
	}
	hash := func(t *testing.T, d Dir, skip func(string) bool) string {
		t.Helper()
		var b bytes.Buffer
		if err := d.Hash(&b, skip); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	skipObs := func(rel string) bool { return rel == "observations" }
	for _, tc := range []struct {
		name string
		got  func(t *testing.T) string
		want string
	}{
		{name: "every file, in path order", got: func(t *testing.T) string { return hash(t, FS(files, "set", "mine"), nil) },
			want: "file \"a/x.cue\" \x00\x00\x00\x00\x00\x00\x00\x01x" + "file \"b.rego\" \x00\x00\x00\x00\x00\x00\x00\x01b" +
				"file \"observations/r.json\" \x00\x00\x00\x00\x00\x00\x00\x01r"},
		{name: "a directory skipped", got: func(t *testing.T) string { return hash(t, FS(files, "set", "mine"), skipObs) },
			want: "file \"a/x.cue\" \x00\x00\x00\x00\x00\x00\x00\x01x" + "file \"b.rego\" \x00\x00\x00\x00\x00\x00\x00\x01b"},
		{name: "elsewhere, shown otherwise", got: func(t *testing.T) string { return hash(t, FS(files, "other/root", "theirs"), skipObs) },
			want: "file \"a/x.cue\" \x00\x00\x00\x00\x00\x00\x00\x01x" + "file \"b.rego\" \x00\x00\x00\x00\x00\x00\x00\x01b"},
		{name: "a file skipped", got: func(t *testing.T) string {
			return hash(t, FS(files, "set", "mine"), func(rel string) bool { return strings.HasSuffix(rel, ".json") || rel == "a/x.cue" })
		}, want: "file \"b.rego\" \x00\x00\x00\x00\x00\x00\x00\x01b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.got(t); got != tc.want {
				t.Errorf("hashed %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("a directory that is not there", func(t *testing.T) {
		err := FS(files, "missing", "gone").Hash(&bytes.Buffer{}, nil)
		if err == nil || !strings.Contains(err.Error(), "gone") {
			t.Fatalf("error %v, want one naming gone", err)
		}
	})
}
