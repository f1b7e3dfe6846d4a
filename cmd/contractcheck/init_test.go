package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/hostile"
)

// TestInitHostileDirectory writes a layer into directories named with hostile strings: the
// directory reaches the generated CUE comments and README only as one escaped line, so each file
// has exactly the lines of a layer written to a plain directory, and a line differs only where
// the plain layer names its directory.
func TestInitHostileDirectory(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	read := func(dir string) map[string][]string {
		files := map[string][]string{}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = strings.Split(string(data), "\n")
		}
		return files
	}
	plainDir := filepath.Join(top, "plain")
	initLayer(t, plainDir)
	plain := read(plainDir)
	for _, c := range hostile.Cases() {
		// A file name holds no NUL, and a name is at most 255 bytes.
		if strings.Contains(c.S, "\x00") || len(c.S) > 200 {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			dir := filepath.Join(top, c.Name, c.S+"x")
			initLayer(t, dir)
			got := read(dir)
			if len(got) != len(plain) {
				t.Fatalf("wrote %d files, a plain init %d", len(got), len(plain))
			}
			for name, want := range plain {
				lines := got[name]
				if len(lines) != len(want) {
					t.Errorf("%s has %d lines, a plain init's %d:\n%s", name, len(lines), len(want), strings.Join(lines, "\n"))
					continue
				}
				for i := range want {
					if lines[i] != want[i] && !strings.Contains(want[i], "plain") {
						t.Errorf("%s:%d = %q, a plain init's %q", name, i+1, lines[i], want[i])
					}
				}
			}
		})
	}
}
