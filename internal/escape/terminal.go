package escape

import (
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// visible reports whether r may be written to a terminal as itself: graphic characters and
// the space. Everything else — C0 and C1 controls (NUL, BEL, ESC, DEL, line breaks, tab),
// U+2028 and U+2029, and format characters such as the bidi overrides and isolates (U+202A–
// U+202E, U+2066–U+2069), zero-width characters and the byte order mark — is shown escaped.
func visible(r rune) bool {
	return r == ' ' || (unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r))
}

// Terminal returns s as it may be written to a terminal or a CI log: on one line, every
// character that is not graphic shown as an escape (\n, \r, \t, else \u001b or \U000e0001),
// invalid UTF-8 as U+FFFD. A backslash is kept as it is: the text is for reading, not for
// parsing back, and a message that quotes a value (%q) already shows the value's backslashes
// escaped. Data that no one quoted (an agent's output, a carrier's text) is TerminalExact's.
func Terminal(s string) string { return terminal(s, false) }

// TerminalExact returns s as Terminal does, but that a backslash that would read as the start of
// an escape (a text that spells "\u001b", a backslash before another or before a character shown
// escaped) is written \\: an escape in the output then always stands for the character it
// names, never for text that spelt one (C:\dir keeps its backslash, "\n" becomes \\n), and the
// output reads back as s. It is for data shown as it is, unquoted: a report's strings, an
// agent's output, a record's error.
func TerminalExact(s string) string { return terminal(s, true) }

// terminal is TerminalExact with spelt, else Terminal (a backslash always kept as it is).
func terminal(s string, spelt bool) string {
	i := indexUnsafe(s, spelt)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for k, r := range s[i:] {
		if spelt && r == '\\' && spellsEscape(s[i+k:]) {
			b.WriteString(`\\`)
			continue
		}
		writeVisible(&b, r)
	}
	return b.String()
}

// indexUnsafe is the index of the first character terminal does not write as it is, or -1.
func indexUnsafe(s string, spelt bool) int {
	for i, r := range s {
		if r == utf8.RuneError || !visible(r) || spelt && r == '\\' && spellsEscape(s[i:]) {
			return i
		}
	}
	return -1
}

// spellsEscape reports whether the backslash s starts with would, kept as it is, read as the
// start of an escape in Terminal's output: followed by what spells one (\n, \r, \t, \uXXXX,
// \UXXXXXXXX, \\), or by a character Terminal writes escaped (whose escape starts with a
// backslash of its own).
func spellsEscape(s string) bool {
	if escapeLen(s) > 0 {
		return true
	}
	r, n := utf8.DecodeRuneInString(s[1:])
	return n > 0 && r != utf8.RuneError && !visible(r)
}

// writeVisible writes r, or its escape when it is not visible.
func writeVisible(b *strings.Builder, r rune) {
	switch {
	case r == utf8.RuneError:
		b.WriteRune(utf8.RuneError)
	case visible(r):
		b.WriteRune(r)
	case Short(r) != "":
		b.WriteString(Short(r))
	default:
		writeU(b, r)
	}
}

// Short is the two-character escape that JSON, Go, JavaScript and Python literals share for a
// line feed, carriage return or tab (\n, \r, \t), or "" for any other character.
func Short(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	return ""
}

const hexDigits = "0123456789abcdef"

// writeU writes r as \uXXXX, or \UXXXXXXXX beyond the basic plane.
func writeU(b *strings.Builder, r rune) {
	if r > 0xffff {
		b.WriteString(`\U`)
		for s := 28; s >= 0; s -= 4 {
			b.WriteByte(hexDigits[r>>s&0xf])
		}
		return
	}
	b.WriteString(`\u`)
	for s := 12; s >= 0; s -= 4 {
		b.WriteByte(hexDigits[r>>s&0xf])
	}
}

// CommandStart reports whether a CI runner would read line as a command: GitHub Actions reads
// "::name ...::" and Azure Pipelines "##vso[...]" and "##[...]", each after leading white space.
func CommandStart(line string) bool {
	t := strings.TrimLeft(line, lineSpace)
	return strings.HasPrefix(t, "::") || strings.HasPrefix(t, "##vso[") || strings.HasPrefix(t, "##[")
}

// NeutralizeLine returns line changed, when a CI runner would read it as a command, so that it
// no longer is: its first ':' or '#' after the leading white space is written \u003a or \u0023.
// Any other line is returned as it is.
func NeutralizeLine(line string) string {
	if !CommandStart(line) {
		return line
	}
	i := strings.IndexAny(line, ":#")
	esc := `\u003a`
	if line[i] == '#' {
		esc = `\u0023`
	}
	return line[:i] + esc + line[i+1:]
}

// LogWriter passes text through to w line by line, neutralizing every line a CI runner would
// read as a command (NeutralizeLine). A text format writes through it, so that whatever a
// string of the data holds, no line contractcheck writes starts a workflow command; the
// formats that write workflow commands on purpose (--format github) do not.
type LogWriter struct {
	w    io.Writer
	head []byte // the start of the current line, held until it decides the line
	mid  bool   // the current line is decided and passes through to its end
	// lead is how many bytes of head are known white space (whole runes of lineSpace), so that
	// a line starting with much padding is not trimmed again at every byte (quadratic).
	lead int
	err  error
}

// NewLogWriter returns a LogWriter over w. Call Flush after the last write.
func NewLogWriter(w io.Writer) *LogWriter { return &LogWriter{w: w} }

// lineSpace is the white space a CI runner skips before a command.
const lineSpace = " \t\v\f\r\u00a0\ufeff"

// Write writes p, holding back only the start of a line until it is known.
func (l *LogWriter) Write(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if l.mid {
			if i < 0 {
				_, l.err = l.w.Write(p)
				return n, l.err
			}
			if _, l.err = l.w.Write(p[:i+1]); l.err != nil {
				return 0, l.err
			}
			l.mid, p = false, p[i+1:]
			continue
		}
		// Hold the line's start a byte at a time until it decides the line: a command start is
		// short, and a line of data could be long.
		l.head = append(l.head, p[0])
		p = p[1:]
		// The start held so far decides whether the line is a command when the line has ended,
		// or when it holds, after its leading white space, as much as the longest command start
		// ("##vso[").
		rest := strings.TrimLeft(string(l.head[l.lead:]), lineSpace)
		l.lead = len(l.head) - len(rest)
		if l.head[len(l.head)-1] == '\n' || len(rest) >= len("##vso[") {
			if l.err = l.release(); l.err != nil {
				return 0, l.err
			}
		}
	}
	return n, nil
}

// release writes the held line start, neutralized when it starts a command; if the line has
// not ended, the rest of it passes through as it comes.
func (l *LogWriter) release() error {
	head := string(l.head)
	l.head, l.lead = l.head[:0], 0
	l.mid = !strings.HasSuffix(head, "\n")
	_, err := io.WriteString(l.w, NeutralizeLine(head))
	return err
}

// Flush writes what is held of an unfinished last line.
func (l *LogWriter) Flush() error {
	if l.err != nil || len(l.head) == 0 {
		return l.err
	}
	l.err = l.release()
	return l.err
}
