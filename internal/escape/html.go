package escape

import (
	"html"
	"strings"
)

// htmlBreaks writes a line break as a character reference.
var htmlBreaks = strings.NewReplacer("\r", "&#13;", "\n", "&#10;")

// HTML returns s as HTML text or a double- or single-quoted attribute value:
// html.EscapeString (<, >, &, ' and " as references, so no tag, entity or attribute of the data
// can start) and, beyond it, '\r' and '\n' as &#13; and &#10;, which read back as the same
// characters: a page holds no line break of the data, so no line of a page written to a CI log
// can start a runner's command.
func HTML(s string) string {
	s = html.EscapeString(s)
	if strings.ContainsAny(s, "\r\n") {
		s = htmlBreaks.Replace(s)
	}
	return s
}
