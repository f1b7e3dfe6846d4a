package escape

import (
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/hostile"
)

// literalCases are the hostile corpus and the strings on which CUE's and Rego's grammars differ
// from the other languages': an interpolation, a byte order mark (CUE refuses it raw), a
// character beyond the basic plane (Rego has no \U escape) and invalid UTF-8 (a string of either
// holds valid UTF-8 only: each invalid byte reads back as U+FFFD, as ValidUTF8 has it).
func literalCases() []hostile.Case {
	return append(hostile.Cases(),
		hostile.Case{Name: "interpolation", S: `k\(x)"\(y)`},
		hostile.Case{Name: "byte-order-mark", S: "\ufeffk\ufeff"},
		hostile.Case{Name: "astral", S: "k\U0001F600\U000E0001"},
		hostile.Case{Name: "truncated-utf8", S: "k\xe2\x82v"},
		hostile.Case{Name: "lone-bytes", S: "\xff\xfe\x80"},
		hostile.Case{Name: "surrogate-bytes", S: "\xed\xa0\x80"},
	)
}

// TestCUE holds CUE's literal to CUE's own parser and evaluator: the literal is printable
// ASCII, and the value of a field set to it is s (invalid UTF-8 byte by byte as U+FFFD).
func TestCUE(t *testing.T) {
	ctx := cuecontext.New()
	for _, c := range literalCases() {
		t.Run(c.Name, func(t *testing.T) {
			lit := CUE(c.S)
			for i := 0; i < len(lit); i++ {
				if b := lit[i]; b < 0x20 || b >= 0x7f {
					t.Fatalf("CUE(%q) = %s: byte %#x is not printable ASCII", short(c.S), short(lit), b)
				}
			}
			v := ctx.CompileString("x: " + lit + "\n")
			if err := v.Err(); err != nil {
				t.Fatalf("CUE(%q) = %s: CUE refuses it: %v", short(c.S), short(lit), err)
			}
			got, err := v.LookupPath(cue.ParsePath("x")).String()
			if err != nil {
				t.Fatalf("CUE(%q) = %s: %v", short(c.S), short(lit), err)
			}
			if got != ValidUTF8(c.S) {
				t.Fatalf("CUE(%q) = %s reads back as %q, want %q", short(c.S), short(lit), short(got), short(ValidUTF8(c.S)))
			}
		})
	}
}

// TestJSONIsRego holds JSON's string to OPA's parser: as a Rego term it is the string s (invalid
// UTF-8 byte by byte as U+FFFD).
func TestJSONIsRego(t *testing.T) {
	for _, c := range literalCases() {
		t.Run(c.Name, func(t *testing.T) {
			lit := JSON(c.S)
			term, err := ast.ParseTerm(lit)
			if err != nil {
				t.Fatalf("JSON(%q) = %s: OPA refuses it: %v", short(c.S), short(lit), err)
			}
			got, ok := term.Value.(ast.String)
			if !ok || string(got) != ValidUTF8(c.S) {
				t.Fatalf("JSON(%q) = %s reads back in Rego as %s, want %q", short(c.S), short(lit), short(term.Value.String()), short(ValidUTF8(c.S)))
			}
		})
	}
}

// TestValidUTF8: each byte of invalid UTF-8 becomes one U+FFFD (a run of them is not folded into
// one, as strings.ToValidUTF8 would), and valid text, U+FFFD itself included, is kept as it is.
func TestValidUTF8(t *testing.T) {
	checkCases(t, "ValidUTF8", ValidUTF8, []fnCase[string, string]{
		{name: "valid", in: "k表🙂\ufffd", want: "k表🙂\ufffd"},
		{name: "empty", in: "", want: ""},
		{name: "truncated sequence", in: "k\xe2\x82v", want: "k\ufffd\ufffdv"},
		{name: "lone bytes", in: "\xff\xfe\x80", want: "\ufffd\ufffd\ufffd"},
		{name: "encoded surrogate", in: "\xed\xa0\x80", want: "\ufffd\ufffd\ufffd"},
		{name: "overlong slash", in: "a\xc0\xafb", want: "a\ufffd\ufffdb"},
	})
}
