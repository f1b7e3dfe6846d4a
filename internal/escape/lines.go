package escape

import (
	"strings"
	"unicode/utf8"
)

// TerminalLines returns s as Terminal returns it, but for its line breaks and tabs: each '\n' and
// '\t' is kept, so that a message of several lines (an error listing several files, a parser's
// tab-indented context line) still reads as it was laid out, and every other character that is
// not graphic ('\r' included) is shown escaped. A line of the result can still start with "::"
// when s holds "\n::": write it through a LogWriter.
func TerminalLines(s string) string {
	if !strings.ContainsAny(s, "\n\t") {
		return Terminal(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for {
		i := strings.IndexAny(s, "\n\t")
		if i < 0 {
			b.WriteString(Terminal(s))
			return b.String()
		}
		b.WriteString(Terminal(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
}

// escapeLen is the length of the escape Terminal writes that starts at s[0] (\n, \r, \t,
// \uXXXX, \UXXXXXXXX, \\), or 0 when s does not start with one.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != '\\' {
		return 0
	}
	width := 0
	switch s[1] {
	case 'n', 'r', 't', '\\':
		return 2
	case 'u':
		width = 4
	case 'U':
		width = 8
	default:
		return 0
	}
	if len(s) < 2+width {
		return 0
	}
	for i := 2; i < 2+width; i++ {
		if !strings.ContainsRune(hexDigits, rune(s[i])) {
			return 0
		}
	}
	return 2 + width
}

// CutPoint returns where text escaped by this package (Terminal, TerminalLines, Markdown…) may
// be cut at or before byte i: i itself, unless i falls inside a character (then the character's
// start) or inside an escape such as \u202e or \n (then the escape's start), so that a shortened
// value never ends in half an escape or half a character. i is clamped to [0, len(s)].
func CutPoint(s string, i int) int {
	i = min(max(i, 0), len(s))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	// The longest escape is \UXXXXXXXX, 10 bytes: one that spans i starts at most 9 bytes before.
	// Escapes are read left to right from the start of the run of backslashes there (\\ is an
	// escape too, so a backslash's meaning depends on those before it).
	k := max(0, i-9)
	for k > 0 && s[k-1] == '\\' {
		k--
	}
	for k < i {
		n := 1
		if s[k] == '\\' {
			if e := escapeLen(s[k:]); e > 0 {
				if k+e > i {
					return k
				}
				n = e
			}
		}
		k += n
	}
	return i
}
