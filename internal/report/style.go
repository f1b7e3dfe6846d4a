package report

import (
	"bufio"
	"io"
	"os"
	"strings"

	"github.com/rivo/uniseg"
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
	// Width is the widest a line may be, in terminal columns (escape.Width); 0 means DefaultWidth.
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

// write writes text line by line: trailing blanks trimmed, each line wrapped at the width (wrap:
// nothing is ever cut, and no escape is broken), then spelled in ASCII or coloured; through an escape.LogWriter, so that no line starts a CI
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
		pieces := wrap(line, width, s.ASCII)
		for i, piece := range pieces {
			switch {
			case s.ASCII:
				piece = asciiOf.Replace(piece)
			case s.Color:
				piece = colourOf.Replace(piece)
			}
			bw.WriteString(piece)
			if nl || i < len(pieces)-1 {
				bw.WriteByte('\n')
			}
		}
	}
	return bw.Flush()
}

// wrap breaks a line into lines of at most width columns, never cutting anything: at the last
// blank that fits, else between grapheme clusters (escape.Width columns: a CJK character or an
// emoji takes 2, a combining mark none), and never inside an escape of the line (escape.Terminal's
// \u202e or \n). The lines after the first hang four columns deeper than the line's own
// indentation (at most a third of the width), so a wrapped location or headline reads as one. A
// run that cannot be broken (an escape wider than the room left) is written whole, over the
// width. In ASCII every mark spelled in ASCII (asciiOf) is counted at its spelling's width.
func wrap(line string, width int, ascii bool) []string {
	if width <= 0 || textWidth(line, ascii) <= width {
		return []string{line}
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := strings.Repeat(" ", min(indent+4, width/3))
	var out []string
	prefix, rest := "", line
	for {
		end := fitting(rest, width-len(prefix), ascii)
		if end == len(rest) {
			return append(out, prefix+rest)
		}
		lead := len(rest) - len(strings.TrimLeft(rest, " "))
		end = escape.CutPoint(rest, end)
		if i := strings.LastIndexByte(rest[:end], ' '); i > lead && end < len(rest) && rest[end] != ' ' {
			end = i
		}
		if end <= lead {
			end = lead + unit(rest[lead:])
		}
		out = append(out, prefix+strings.TrimRight(rest[:end], " "))
		if rest = strings.TrimLeft(rest[end:], " "); rest == "" {
			return out
		}
		prefix = hang
	}
}

// fitting is how many bytes of s, whole grapheme clusters, take at most room columns (len(s) when
// all of s does); it reads no further than the first cluster that does not fit.
func fitting(s string, room int, ascii bool) int {
	end, used, state := 0, 0, -1
	for rest := s; rest != ""; {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used += clusterWidth(cluster, w, ascii); used > room {
			break
		}
		end += len(cluster)
	}
	return end
}

// unit is the length of s's first unbreakable run: a grapheme cluster, or an escape with the
// clusters it spans.
func unit(s string) int {
	end, state := 0, -1
	for rest := s; rest != ""; {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		end += len(cluster)
		if escape.CutPoint(s, end) == end {
			return end
		}
	}
	return len(s)
}

// clusterWidth is the columns a grapheme cluster of a line takes once written: w, its display
// width, or in ASCII, for a cluster that is not ASCII, the width of its ASCII spelling (✓ is +,
// → is ->; a character asciiOf does not spell is written, and measured, as it is).
func clusterWidth(cluster string, w int, ascii bool) int {
	if !ascii || isASCII(cluster) {
		return w
	}
	return escape.Width(asciiOf.Replace(cluster))
}

// textWidth is the columns s takes once written: escape.Width, or in ASCII the sum of its
// clusters' clusterWidth.
func textWidth(s string, ascii bool) int {
	if !ascii || isASCII(s) {
		return escape.Width(s)
	}
	n, state := 0, -1
	for s != "" {
		var cluster string
		var w int
		cluster, s, w, state = uniseg.FirstGraphemeClusterInString(s, state)
		n += clusterWidth(cluster, w, ascii)
	}
	return n
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// padRight is s followed by spaces to n columns (escape.Width); fmt's %-*s pads to n runes, which
// leaves a row holding a CJK character or an emoji out of line.
func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-escape.Width(s)))
}

// padLeft is s after spaces to n columns (escape.Width), the right-aligned padRight.
func padLeft(s string, n int) string {
	return strings.Repeat(" ", max(0, n-escape.Width(s))) + s
}

// oneLine keeps a multi-line message on one line, so it cannot break the indentation around it.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ⏎ ")), " ")
}
