package escape

import (
	"html"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/hostile"
)

func TestTerminalLines(t *testing.T) {
	checkCases(t, "TerminalLines", TerminalLines, []fnCase[string, string]{
		{name: "plain", in: "a\nb", want: "a\nb"},
		{name: "one line", in: "a\x1bb", want: `a\u001bb`},
		{name: "controls per line", in: "a\x07\n\u202eb\r\n", want: "a\\u0007\n\\u202eb\\r\n"},
		{name: "command kept on its line", in: "x\n::error::y", want: "x\n::error::y"},
		{name: "tabs kept", in: "a\n\tat \"{\"\x00", want: "a\n\tat \"{\"\\u0000"},
	})
}

func TestCutPoint(t *testing.T) {
	tests := []struct {
		name string
		s    string
		i    int
		want int
	}{
		{name: "plain", s: "abcdef", i: 3, want: 3},
		{name: "clamped", s: "ab", i: 9, want: 2},
		{name: "negative", s: "ab", i: -1, want: 0},
		{name: "inside \\u", s: `ab\u202ecd`, i: 5, want: 2},
		{name: "after \\u", s: `ab\u202ecd`, i: 8, want: 8},
		{name: "before \\u", s: `ab\u202ecd`, i: 2, want: 2},
		{name: "inside \\n", s: `ab\ncd`, i: 3, want: 2},
		{name: "inside \\U", s: `a\U000e0041b`, i: 9, want: 1},
		{name: "not an escape", s: `a\qbc`, i: 2, want: 2},
		{name: "short \\u", s: `a\u20`, i: 4, want: 4},
		{name: "inside a character", s: "a表b", i: 2, want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CutPoint(tc.s, tc.i); got != tc.want {
				t.Errorf("CutPoint(%q, %d) = %d, want %d", tc.s, tc.i, got, tc.want)
			}
		})
	}
}

// FuzzCutPoint cuts escaped text everywhere: the cut is at or before i, on a character boundary,
// and never leaves a backslash that starts half an escape at the end.
func FuzzCutPoint(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add(s, 7)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		for _, e := range []string{Terminal(s), TerminalLines(s), MarkdownText(s)} {
			j := CutPoint(e, i)
			if j < 0 || j > len(e) || (i >= 0 && j > i) {
				t.Fatalf("CutPoint(%q, %d) = %d", e, i, j)
			}
			if !utf8.ValidString(e[:j]) {
				t.Fatalf("CutPoint(%q, %d) = %d splits a character", e, i, j)
			}
			// Read the escapes from the start, left to right: none may span the cut.
			for k := 0; k < j; {
				n := 1
				if l := escapeLen(e[k:]); e[k] == '\\' && l > 0 {
					if k+l > j {
						t.Fatalf("CutPoint(%q, %d) = %d splits the escape at %d", e, i, j, k)
					}
					n = l
				}
				k += n
			}
		}
	})
}

func TestMarkdownText(t *testing.T) {
	checkCases(t, "MarkdownText", MarkdownText, []fnCase[string, string]{
		{name: "names kept", in: "snapshot-079f3d7 v1.7.0 use-structured-content (x) #1: a/b", want: "snapshot-079f3d7 v1.7.0 use-structured-content (x) #1: a/b"},
		{name: "pipe", in: "a|b", want: `a\|b`},
		{name: "html", in: "<script>&amp;", want: "&lt;script&gt;&amp;amp;"},
		{name: "newline", in: "a\n| b", want: `a\n\| b`},
		{name: "emphasis and links", in: "*a* _b_ ~c~ [d](e) $f$", want: `\*a\* \_b\_ \~c\~ \[d\](e) \$f\$`},
		{name: "code", in: "`x`", want: "\\`x\\`"},
		{name: "backslash", in: `a\|`, want: `a\\\|`},
		{name: "controls", in: "a\x1b[31m\u202e", want: `a\u001b\[31m\u202e`},
	})
}

// FuzzMarkdownText holds MarkdownText to its grammar: one line, no character that is not
// graphic, no raw '<', and no '|' or inline markup character that is not backslash-escaped.
func FuzzMarkdownText(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := MarkdownText(s)
		if !utf8.ValidString(out) {
			t.Fatalf("%q: output %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if r != utf8.RuneError && !visible(r) {
				t.Fatalf("%q: output %q holds %U", s, out, r)
			}
		}
		if strings.ContainsAny(out, "<>") {
			t.Fatalf("%q: output %q holds a raw angle bracket", s, out)
		}
		for i := 0; i < len(out); i++ {
			if out[i] == '\\' {
				i++ // an escape: the next byte is escaped, or starts a visible escape such as \n
				continue
			}
			if strings.IndexByte(mdInline, out[i]) >= 0 {
				t.Fatalf("%q: output %q holds %q unescaped at %d", s, out, out[i], i)
			}
		}
	})
}

func TestMarkdownURL(t *testing.T) {
	checkCases(t, "MarkdownURL", MarkdownURL, []fnCase[string, string]{
		{name: "github", in: "https://github.com/mark3labs/mcp-go/issues/522", want: "https://github.com/mark3labs/mcp-go/issues/522"},
		{name: "query", in: "https://x/?a=1&b=2#f", want: "https://x/?a=1&amp;b=2#f"},
		{name: "breaks the link", in: "https://x/a) [y](javascript:z", want: "https://x/a%29%20[y]%28javascript:z"},
		{name: "breaks the cell", in: "https://x/a|b\n<c>", want: "https://x/a%7Cb%0A%3Cc%3E"},
		{name: "non-ascii", in: "https://x/é", want: "https://x/%C3%A9"},
	})
}

// FuzzMarkdownURL: the destination holds only the kept characters and entities, and decodes back
// to the URL (entities first, as markdown does, then percent-encoding), when the URL held no '%'.
func FuzzMarkdownURL(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add("https://github.com/" + s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		out := MarkdownURL(u)
		for i := 0; i < len(out); i++ {
			if strings.IndexByte(urlKeep, out[i]) < 0 && out[i] != '&' {
				t.Fatalf("MarkdownURL(%q) = %q holds %q", u, out, out[i])
			}
		}
		if strings.Contains(u, "%") {
			return
		}
		back, err := url.PathUnescape(strings.ReplaceAll(out, "&amp;", "&"))
		if err != nil || back != u {
			t.Fatalf("MarkdownURL(%q) = %q reads back as %q, %v", u, out, back, err)
		}
	})
}

func TestHTML(t *testing.T) {
	checkCases(t, "HTML", HTML, []fnCase[string, string]{
		{name: "plain", in: "adk-go v1.7.0", want: "adk-go v1.7.0"},
		{name: "markup", in: `<script>"a'&`, want: "&lt;script&gt;&#34;a&#39;&amp;"},
		{name: "line breaks", in: "a\r\n::error::x", want: "a&#13;&#10;::error::x"},
	})
}

// FuzzHTML: the text holds no markup character and no line break, and reads back as s.
func FuzzHTML(f *testing.F) {
	for _, s := range hostile.Strings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := HTML(s)
		if strings.ContainsAny(out, "<>\"'\r\n") {
			t.Fatalf("HTML(%q) = %q holds markup or a line break", s, out)
		}
		if back := html.UnescapeString(out); back != s {
			t.Fatalf("HTML(%q) = %q reads back as %q", s, out, back)
		}
	})
}
