package escape

import "strings"

// mdInline is the ASCII punctuation that can start or end an inline construct anywhere in a
// line of GitHub-flavoured markdown: code (`), emphasis (* _), strikethrough (~), links and
// images ([ ]), math ($), a table cell's end (|) and the backslash itself.
const mdInline = "\\`*_~[]$|"

// MarkdownText returns s as markdown text inside a line (a table cell, or after other text on
// a line) that renders as s itself, changing as little of s as that needs: the characters that
// start or end an inline construct (`, *, _, ~, [, ], $, | and \) backslash-escaped, '<', '>'
// and '&' written as entities (no raw HTML, no autolink, no entity), and line breaks and other
// characters that are not graphic shown escaped as Terminal shows them, so the text stays on
// its line and in its cell. Punctuation that is markup only at the start of a line ('#', '-',
// '+', '>', "1.") is kept: the text is never placed there. Markdown escapes every punctuation
// character instead, for text whose place is not known.
func MarkdownText(s string) string { return markdownEscape(s, mdInline) }

// urlKeep is what MarkdownURL leaves as it is: the unreserved and reserved characters of RFC
// 3986 but for those markdown reads in a link destination or a table row ('(', ')', '<', '>',
// '|', '\', '`', '&' and '*'), and '%' so that an encoded URL is not encoded twice.
const urlKeep = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$',;=+%"

// MarkdownURL returns u as the destination of a markdown link, [text](destination), inside a
// table cell or a line: every byte outside the URL characters that need no escaping there is
// percent-encoded (space, controls, non-ASCII, parentheses, '<', '>', '|', '\', '`', '*'), and
// '&' is written as the entity &amp; (a destination decodes entities), so the destination can
// neither end the link nor the cell and reads back as u. It does not judge the scheme: the
// caller links only URLs whose scheme it has checked.
func MarkdownURL(u string) string {
	var b strings.Builder
	b.Grow(len(u))
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '&':
			b.WriteString("&amp;")
		case c < 0x80 && strings.IndexByte(urlKeep, c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&0xf])
		}
	}
	return b.String()
}

const upperHex = "0123456789ABCDEF"
