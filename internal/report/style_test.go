package report

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// StyleFor writes colour only to a terminal: /dev/null is a character device and no terminal, so
// `check > /dev/null` (and its result-cache key) is the same as a piped run.
func TestStyleFor(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name string
		w    io.Writer
		env  map[string]string
		want Style
	}{
		{"dev null", devnull, map[string]string{"TERM": "xterm-256color", "LANG": "C.UTF-8"}, Style{Width: DefaultWidth}},
		{"pipe", w, map[string]string{"TERM": "xterm-256color", "LANG": "C.UTF-8"}, Style{Width: DefaultWidth}},
		{"buffer", &bytes.Buffer{}, map[string]string{"LANG": "en_US.utf8", "COLUMNS": "80"}, Style{Width: 80}},
		{"no locale", &bytes.Buffer{}, map[string]string{}, Style{ASCII: true, Width: DefaultWidth}},
		{"narrow columns ignored", &bytes.Buffer{}, map[string]string{"LC_ALL": "POSIX", "LANG": "C.UTF-8", "COLUMNS": "40"}, Style{ASCII: true, Width: DefaultWidth}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StyleFor(tt.w, env(tt.env)); got != tt.want {
				t.Errorf("StyleFor = %+v, want %+v", got, tt.want)
			}
		})
	}
}
