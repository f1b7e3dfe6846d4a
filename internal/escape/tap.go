package escape

import (
	"strings"
	"unicode/utf8"
)

// TAPDescription returns s as the description of a TAP test line ("ok 1 - description"): on
// one line (Terminal), with '#' and '\' backslash-escaped, since an unescaped '#' starts a
// directive (TODO, SKIP) and TAP 13 reads "\#" as a literal '#'.
func TAPDescription(s string) string {
	if strings.ContainsAny(s, `#\`) {
		s = strings.NewReplacer(`\`, `\\`, `#`, `\#`).Replace(s)
	}
	return Terminal(s)
}

// YAMLString returns s as a YAML double-quoted scalar, such as TAP's diagnostic block holds:
// '"' and '\' escaped, every character YAML does not count as printable (C0 and C1 controls,
// DEL, surrogates, U+FFFE/U+FFFF) and every character Terminal would show escaped (line
// separators, bidi and other format characters) written as \n, \t, \xXX, \uXXXX or \UXXXXXXXX;
// invalid UTF-8 as U+FFFD. The scalar is on one line and reads back as s (but for invalid UTF-8).
func YAMLString(s string) string { return yamlStyle.quote(s) }

var yamlStyle = literalStyle{keep: func(r rune) bool { return r == utf8.RuneError || visible(r) }, hexByte: true}
