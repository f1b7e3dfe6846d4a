package escape

import "strings"

// mdPunct is the ASCII punctuation CommonMark lets a backslash escape; each of them can start
// or end some construct (emphasis, a link, a heading, a list, code, a table cell).
const mdPunct = "!\"#$%'()*+,-./:;=?@[\\]^_`{|}~"

// Markdown returns s as inline markdown text that renders as s itself: every ASCII punctuation
// character markdown could read as syntax backslash-escaped, '<', '>' and '&' written as
// entities (no raw HTML, no autolink), and line breaks and other characters that are not
// graphic shown escaped as Terminal shows them, so the text stays on its line.
func Markdown(s string) string { return markdownEscape(s, mdPunct) }

// markdownEscape writes s as markdown text: each ASCII character of punct backslash-escaped,
// '<', '>' and '&' as entities, and characters that are not graphic shown as Terminal shows
// them; s itself when none of those occur.
func markdownEscape(s, punct string) string {
	needs := func(r rune) bool {
		return r == '<' || r == '>' || r == '&' || (r < 0x80 && strings.ContainsRune(punct, r)) || r == 0xfffd || !visible(r)
	}
	if !strings.ContainsFunc(s, needs) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r < 0x80 && strings.ContainsRune(punct, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			writeVisible(&b, r)
		}
	}
	return b.String()
}

// MarkdownCell returns s as the text of a markdown table cell: Markdown, with which '|' is
// escaped and no line break can end the row.
func MarkdownCell(s string) string { return Markdown(s) }

// MarkdownCode returns s as an inline code span: fenced with more backquotes than the longest
// run in s, padded with a space where s starts or ends with a backquote, its characters that
// are not graphic shown escaped (a code span cannot hold a line break), and '|' written as an
// entity-free "\|" so that a table cell holding the span is not cut.
func MarkdownCode(s string) string {
	s = Terminal(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(s, "|", `\|`) + pad + fence
}
