package safeio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteDurably(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		excl     bool
		existing string // the temporary file's content before the write; "" none
		write    func(io.Writer) error
		want     string // the file's content after; "" when it must not exist
		wantErr  error
	}{
		{name: "written", write: func(w io.Writer) error { _, err := io.WriteString(w, "whole"); return err }, want: "whole"},
		{name: "a stale temporary file truncated", existing: "stale and longer", write: func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, want: "new"},
		{name: "a stale temporary file refused when exclusive", excl: true, existing: "stale", write: func(w io.Writer) error { return nil }, wantErr: os.ErrExist},
		{name: "a failed write leaves nothing", write: func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return boom }, wantErr: boom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.existing != "" {
				if err := os.WriteFile(filepath.Join(dir, ".tmp-f"), []byte(tc.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteDurably(dir, ".tmp-f", "f", tc.excl, tc.write)
			if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("WriteDurably: %v, want %v", err, tc.wantErr)
			}
			if _, err := os.Stat(filepath.Join(dir, ".tmp-f")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the temporary file is left: %v", err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "f"))
			switch {
			case tc.want == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("f exists (%q, %v), want none", got, err)
			case tc.want != "" && (err != nil || string(got) != tc.want):
				t.Errorf("f = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestSyncDirError(t *testing.T) {
	err := SyncDir(filepath.Join(t.TempDir(), "absent"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("SyncDir of an absent directory: %v, want not-exist", err)
	}
	se := &SyncDirError{Dir: "d", Err: err}
	if !errors.Is(se, os.ErrNotExist) || se.Error() != "syncing d: "+err.Error() {
		t.Errorf("SyncDirError %q does not say or wrap its cause", se)
	}
}
