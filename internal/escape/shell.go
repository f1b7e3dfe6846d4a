package escape

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Shell returns words as a POSIX shell command line that a user can read on one line and paste:
// a word of only letters, digits and -_./:=@%+, as itself; a word of graphic characters in
// single quotes ('it'\”s'); a word holding anything else (a line break, an escape, a bidi
// control, invalid UTF-8) in bash's ANSI-C quotes, $'a\nb\u202e', so that the line stays one
// line and shows what the word holds. (A NUL cannot be passed in a command's argument at all.)
func Shell(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellWord(w)
	}
	return strings.Join(out, " ")
}

// ShellJoin quotes words for a POSIX shell, and for the splitters that read a command line the
// way one does (Python's shlex.split, Rust's shell-words): a word of only letters, digits and
// -_./:=@%+, as itself, any other in single quotes whatever it holds (a quote in it closes the
// quotes, is backslash-escaped and opens them again). It is for a command line a program splits
// (probe's CONTRACTCHECK_MCP_COMMAND, record's MCP server command), not for one shown to a user:
// a line break stays a line break there (Shell is for showing).
func ShellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = posixWord(w)
	}
	return strings.Join(out, " ")
}

// posixWord is w as one POSIX shell word: as itself when it needs no quotes, else single-quoted.
func posixWord(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func shellWord(w string) string {
	if utf8.ValidString(w) && !strings.ContainsFunc(w, func(r rune) bool { return !visible(r) }) {
		return posixWord(w) // a word of plain characters is one of graphic ones
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); {
		r, n := utf8.DecodeRuneInString(w[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[w[i]>>4])
			b.WriteByte(hexDigits[w[i]&0xf])
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && !visible(r):
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xf])
		case !visible(r):
			writeU(&b, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// ShellWords splits s into words as a POSIX shell would (the inverse of ShellJoin) without expanding anything: blanks
// separate words, single quotes keep everything literally, double quotes keep everything but
// a backslash before $ ` " \ or a newline, and a backslash outside quotes keeps the next
// character (a backslash-newline pair is removed).
func ShellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("a trailing backslash")
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inWord = true
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("an unterminated single quote at byte %d", i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("$`\"\\\n", s[j+1]) >= 0 {
					j++
					if s[j] != '\n' {
						cur.WriteByte(s[j])
					}
					continue
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("an unterminated double quote at byte %d", i)
			}
			i = j
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
