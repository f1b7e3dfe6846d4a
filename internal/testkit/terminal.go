package testkit

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
)

// TerminalUnsafe names the first character of s that a terminal or a CI log must not receive: a
// C0 control but for '\n' (and '\t' when tabs), DEL, a C1 control, a line or paragraph
// separator, a bidi mark, embedding, override or isolate; or invalid UTF-8. It returns "" when
// there is none.
func TerminalUnsafe(s string, tabs bool) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"):
			return fmt.Sprintf("invalid UTF-8 at byte %d", i)
		case r == '\n' || (tabs && r == '\t'):
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0), r == 0x2028 || r == 0x2029,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e || r == 0x200f || r == 0x061c:
			return fmt.Sprintf("%U at byte %d", r, i)
		}
	}
	return ""
}

// terminalLine lists what is wrong with one line of text for a terminal or a CI log: it starts a
// CI runner's command (escape.CommandStart), it holds a character TerminalUnsafe names; none
// when nothing is.
func terminalLine(line string, tabs bool) []string {
	var bad []string
	if escape.CommandStart(line) {
		bad = append(bad, "starts a CI command")
	}
	if f := TerminalUnsafe(line, tabs); f != "" {
		bad = append(bad, "holds "+f)
	}
	return bad
}

// TerminalProblem describes the first line of out, text for a terminal or a CI log, that starts a
// CI runner's command or holds a character TerminalUnsafe names, or returns "" when no line does.
func TerminalProblem(out string, tabs bool) string {
	for n, line := range strings.Split(out, "\n") {
		if bad := terminalLine(line, tabs); len(bad) > 0 {
			return fmt.Sprintf("line %d %s: %q", n+1, bad[0], cut(line))
		}
	}
	return ""
}

// TerminalSafe holds out, text written to sink (a terminal, a CI log), to its rule: t fails,
// going on, for each line that starts a CI runner's command or holds a character TerminalUnsafe
// names.
func TerminalSafe(t testing.TB, sink, out string, tabs bool) {
	t.Helper()
	for n, line := range strings.Split(out, "\n") {
		for _, bad := range terminalLine(line, tabs) {
			t.Errorf("%s: line %d %s: %q", sink, n+1, bad, cut(line))
		}
	}
}

// HostileText runs a subtest per string of the hostile corpus (hostile.Cases, named by the case):
// render writes sink's text with the string s in every place it can put one, and TerminalSafe
// holds the text to the terminal's rule. t fails at once when render fails.
func HostileText(t *testing.T, sink string, render func(w io.Writer, s string) error) {
	t.Helper()
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			var b strings.Builder
			if err := render(&b, c.S); err != nil {
				t.Fatal(err)
			}
			TerminalSafe(t, sink, b.String(), false)
		})
	}
}

// cut shortens a line for a failure message.
func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
