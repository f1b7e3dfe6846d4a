package probe

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestLineWriter: the command's output reaches the terminal line by line as it comes, each line
// escaped (escape sequences, bidi controls, U+2028, bell, carriage returns), an unfinished last
// line on flush.
func TestLineWriter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		before string // written before flush
		want   string // after flush
	}{
		{"plain lines", []string{"a\nb\n"}, "a\nb\n", "a\nb\n"},
		{"a line in pieces", []string{"ab", "c\nd"}, "abc\n", "abc\nd\n"},
		{"clear screen and colours", []string{"\x1b[2J\x1b[31mred\n"}, `\u001b[2J\u001b[31mred` + "\n", `\u001b[2J\u001b[31mred` + "\n"},
		{"bidi, U+2028, bell", []string{"a\u202eb\u2028c\x07\n"}, `a\u202eb\u2028c\u0007` + "\n", `a\u202eb\u2028c\u0007` + "\n"},
		{"CRLF and a bare CR", []string{"x\r\ny\rz\n"}, "x\n" + `y\rz` + "\n", "x\n" + `y\rz` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := &lineWriter{w: &out}
			for _, w := range tt.writes {
				if _, err := l.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			if out.String() != tt.before {
				t.Errorf("before flush %q, want %q", out.String(), tt.before)
			}
			l.flush()
			if out.String() != tt.want {
				t.Errorf("after flush %q, want %q", out.String(), tt.want)
			}
		})
	}
}

// TestVerboseEscaped: with Verbose, a command's hostile output reaches the log escaped.
func TestVerboseEscaped(t *testing.T) {
	t.Parallel()
	o := probeOpts(t, "exit1", nil, "C09")
	o.Provider = "openai-chat"
	o.Verbose = true
	var log bytes.Buffer
	o.Log = &log
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), `::error file=x::pwned\u001b[31m red \u202e evil\u0007`+"\n") {
		t.Errorf("the command's output is not in the log, escaped:\n%q", log.String())
	}
	if strings.ContainsAny(log.String(), "\x1b\x07\u202e\r\u2028") {
		t.Errorf("a control or bidi character reached the log:\n%q", log.String())
	}
}
