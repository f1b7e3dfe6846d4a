// Package hostile generates the strings tests put into every place a string can come from (a
// carrier's keys and values, a source's texts, fixture ids, a layer's lane, version and atom
// names, a policy's diagnostics) to show that every sink contractcheck writes to escapes for its
// own grammar. It is for tests; nothing else imports it.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package hostile

import (
	"fmt"
	"strings"
)

// Case is one hostile string and a name for the test that uses it.
type Case struct {
	// Name is short, printable ASCII: a subtest's name.
	Name string
	// S is the string; it is valid UTF-8 unless the name says otherwise.
	S string
}

// Cases lists the corpus: every kind of quote and backslash, comment and docstring ends,
// template and command syntax, line and paragraph separators, C0 and C1 controls, terminal
// escape sequences, bidi overrides, CI runners' workflow commands, URL-encoded breaks, markdown
// and HTML syntax, invalid UTF-8 and a very long string; then one string holding all of them.
func Cases() []Case {
	cs := []Case{
		{"double-quote", `k"v`},
		{"single-quote", `k'v`},
		{"backquote", "k`v`"},
		{"backslash", `k\v\\`},
		{"backslash-u", `\u0041\n\x00`},
		{"comment-end", "k*/v/*"},
		{"line-comment", "k//v#x--y"},
		{"python-docstring", "k\"\"\"\nopen(\"PWNED\", \"w\")\n\"\"\""},
		{"python-single-docstring", "k'''\nimport os; os._exit(42)\n'''"},
		{"template", "k${process.exit(42)}`${x}`"},
		{"go-backquote", "k`+os.Exit(42)+`"},
		{"line-separator", "k\u2028process.exit(42)\u2029"},
		{"newline", "k\nprocess.exit(42)\n"},
		{"carriage-return", "k\rnot ok 1\r\n"},
		{"nul", "k\x00v"},
		{"c0-controls", "\x01\x02\x07\x08\x0b\x0c\x1a\x1f\x7f"},
		{"c1-controls", "k\u0085\u008d\u009b31m\u009c"},
		{"esc-sequence", "k\x1b[31mred\x1b[0m\x1b]0;title\x07\x1b[2J"},
		{"bidi-override", "k\u202euser.txt\u202cexe\u2066\u2069\u200f"},
		{"zero-width", "k\u200b\u200d\ufeffv"},
		{"gh-error", "k\n::error file=X,line=1::pwned"},
		{"gh-add-mask", "::add-mask::secret"},
		{"gh-stop-commands", "\n::stop-commands::tok\n"},
		{"gh-indented", "\n   ::warning::x"},
		{"azure", "\n##vso[task.setvariable variable=x]1\n##[group]g"},
		{"url-encoded", "k%0A::error::x%0D%25"},
		{"pipe", "a|b||c"},
		{"markdown", "# h\n* [x](javascript:alert(1)) **b** _i_ ~~s~~ > q"},
		{"html", `<script>alert("x")</script><img src=x onerror=alert(1)>&amp;`},
		{"yaml", "- a: b\n  ? c\n---\n...\n!!python/object"},
		{"tap", "not ok 1 # SKIP\nBail out!"},
		{"xml", "]]><![CDATA[<x/>&#0;"},
		{"json-pointer", "/a~0b~1c/"},
		{"shell", "$(touch PWNED); `id` && rm -rf ~"},
		{"percent-verbs", "%s%d%v%!%n"},
		{"emoji-cjk", "表🙂e\u0301"},
		{"invalid-utf8", "k\xff\xfe\xc0v"},
		{"long", strings.Repeat("A\"'\\<|", 20000)},
		{"empty", ""},
	}
	var all strings.Builder
	for _, c := range cs {
		if c.Name != "long" {
			all.WriteString(c.S)
		}
	}
	return append(cs, Case{"all", all.String()})
}

// Strings lists the corpus's strings only.
func Strings() []string {
	cs := Cases()
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.S
	}
	return out
}

// ID makes an identifier-like variant of c.S that keeps its hostile characters but is short
// enough and distinct for a place that needs a name (a fixture id, a lane): the case's name,
// then the string cut to n bytes (at a character boundary).
func ID(c Case, n int) string {
	s := c.S
	for i := range s {
		if i > n {
			s = s[:i]
			break
		}
	}
	return fmt.Sprintf("%s-%s", c.Name, s)
}
