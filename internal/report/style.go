package report

import (
	"bufio"
	"io"
	"os"
	"strings"

	xterm "golang.org/x/term"

	"github.com/contractcheck/contractcheck/internal/escape"
)

// DefaultWidth is the width a text report fits when nothing says otherwise: what a CI log shows
// without wrapping.
const DefaultWidth = 120

// Style is how text is laid out for its reader: colour only on a terminal that wants it, ASCII
// where the locale cannot show UTF-8, and every line fitted to a width.
type Style struct {
	// Color marks outcomes and verdicts with ANSI colours.
	Color bool
	// ASCII spells every mark and arrow in ASCII.
	ASCII bool
	// Width is the widest a line may be, in characters; 0 means DefaultWidth.
	Width int
}

// StyleFor decides the style for output written to w, from the environment: colour when w is a
// terminal and NO_COLOR is unset (https://no-color.org); ASCII when LC_ALL, LC_CTYPE or LANG (the
// first one set) names no UTF-8 locale, or none is set; the width from COLUMNS when it is a
// number of at least 60, else DefaultWidth.
func StyleFor(w io.Writer, getenv func(string) string) Style {
	s := Style{Width: DefaultWidth}
	// A terminal is what golang.org/x/term says is one (the terminal ioctl answers), not any
	// character device: /dev/null is one too, and `check > /dev/null` must not write colour.
	if f, ok := w.(*os.File); ok && xterm.IsTerminal(int(f.Fd())) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb" {
		s.Color = true
	}
	locale := ""
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			locale = v
			break
		}
	}
	l := strings.ToLower(locale)
	s.ASCII = !strings.Contains(l, "utf-8") && !strings.Contains(l, "utf8")
	if n := atoi(getenv("COLUMNS")); n >= 60 {
		s.Width = n
	}
	return s
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
		if n > 10000 {
			return 0
		}
	}
	return n
}

// asciiOf spells the report's non-ASCII runes in ASCII.
var asciiOf = strings.NewReplacer(
	"✓", "+", "✗", "x", "·", ".", "–", "-", "—", "-", "→", "->", "…", "...", "│", "|", "─", "-",
	"≠", "!=", "×", "x", "⏎", "\\n",
)

// ANSI colours of the marks and verdict words.
const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
)

var colourOf = strings.NewReplacer(
	"✓", ansiGreen+"✓"+ansiReset,
	"✗", ansiRed+"✗"+ansiReset,
	"~", ansiYellow+"~"+ansiReset,
	"NOT satisfied", ansiBold+ansiRed+"NOT satisfied"+ansiReset,
	" satisfied", " "+ansiBold+ansiGreen+"satisfied"+ansiReset,
	"instrument failed", ansiBold+ansiYellow+"instrument failed"+ansiReset,
	"selected nothing", ansiBold+ansiYellow+"selected nothing"+ansiReset,
)

// write writes text line by line: trailing blanks trimmed, each line cut to the width with an
// ellipsis (a value is cut, never wrapped into the next line, and never inside an escape), then
// spelled in ASCII or coloured; through an escape.LogWriter, so that no line starts a CI
// runner's command.
func (s Style) write(w io.Writer, text string) error {
	return writeLog(w, func(w io.Writer) error { return s.writeLines(w, text) })
}

// writeLog runs write on a LogWriter over w (escape.LogWriter: every line that would start a CI
// runner's command is neutralized) and flushes it: the last guard of every text format.
func writeLog(w io.Writer, write func(io.Writer) error) error {
	lw := escape.NewLogWriter(w)
	if err := write(lw); err != nil {
		return err
	}
	return lw.Flush()
}

func (s Style) writeLines(w io.Writer, text string) error {
	width := s.Width
	if width <= 0 {
		width = DefaultWidth
	}
	bw := bufio.NewWriter(w)
	for _, line := range strings.SplitAfter(text, "\n") {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimRight(line, " \n")
		if line == "" && !nl {
			continue
		}
		line = fit(line, width, s.ASCII)
		switch {
		case s.ASCII:
			line = asciiOf.Replace(line)
		case s.Color:
			line = colourOf.Replace(line)
		}
		bw.WriteString(line)
		if nl {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// fit cuts a line to width characters, the last being an ellipsis. In ASCII the ellipsis is three
// dots and every rune that is spelled longer in ASCII is counted at its ASCII length. An escape
// of the line (escape.Terminal's \u202e or \n) is kept whole or left out, never cut in two.
func fit(line string, width int, ascii bool) string {
	n := 0
	for i, r := range line {
		n += runeWidth(r, ascii)
		if n > width {
			cut := line[:i]
			ell := "…"
			if ascii {
				ell = "..."
			}
			for textWidth(cut, ascii)+textWidth(ell, ascii) > width && cut != "" {
				_, size := lastRune(cut)
				cut = cut[:len(cut)-size]
			}
			cut = cut[:escape.CutPoint(line, len(cut))]
			return strings.TrimRight(cut, " ") + ell
		}
	}
	return line
}

func runeWidth(r rune, ascii bool) int {
	if ascii && r >= 0x80 {
		return len(asciiOf.Replace(string(r)))
	}
	return 1
}

func textWidth(s string, ascii bool) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r, ascii)
	}
	return n
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			r := []rune(s[i:])
			return r[0], len(s) - i
		}
	}
	return 0, 0
}

// oneLine keeps a multi-line message on one line, so it cannot break the indentation around it.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ⏎ ")), " ")
}
