package bundle

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// TestHotModuleHostileStrings: the generated module holds a source's strings as Rego values, so a
// tool result's text is generated code. Strings that end a string or a comment, break a line
// (U+2028, control characters), reorder a line (bidi), or read as a workflow command or markup
// come back from the parsed module exactly as they went in, and nothing of them lands outside a
// string: the module has the rules hotModule writes and no other.
func TestHotModuleHostileStrings(t *testing.T) {
	in, err := instrument.Load(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hostile := []string{
		`"`, `\`, `"} ; allow := true #`, "*/", "/*", "\u2028", "\u2029", "\x00\x01\x1b[31m", "\u202e\u2066",
		"::error file=a::x", "<script>alert(1)</script>", "`raw`", "\n} package p\nallow := true\n", "\ufeff", "日本",
	}
	id := "C01"
	for _, text := range hostile {
		t.Run(strings.ToValidUTF8(strings.Map(printable, text), "?"), func(t *testing.T) {
			sources := map[string]any{}
			for f := range in.Model.Fixtures {
				sources[f] = in.SourceView(f)
			}
			src := maps.Clone(sources[id].(map[string]any))
			src["content"] = []any{map[string]any{"type": "text", "text": text, "_meta": map[string]any{text: text}}}
			sources[id] = src
			providers, err := providerSchemas(in.Model)
			if err != nil {
				t.Fatal(err)
			}
			text, err := hotModule(in.Model, "strict", false, sources, providers, map[string]any{text: text}, in.ViewReads)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ast.ParseModuleWithOpts(hotPath, string(text), ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				t.Fatalf("the generated module does not parse: %v", err)
			}
			rules := map[string]bool{}
			for _, r := range m.Rules {
				rules[r.Head.Name.String()] = true
			}
			want := map[string]bool{"bound": true, "bindings": true, "profile": true, "quote_data": true, "model": true, "optional": true, "tasks": true, "inputs": true,
				"providers": true, "source": true, "pointers": true, "sources": true, "narrowed": true, "texts": true}
			if !maps.Equal(rules, want) {
				t.Fatalf("the generated module has rules %v, want %v", rules, want)
			}
			for _, r := range m.Rules {
				if r.Head.Name.String() != "sources" {
					continue
				}
				v, err := ast.JSON(r.Head.Value.Value)
				if err != nil {
					t.Fatal(err)
				}
				got, err := strictjson.Marshal(v.(map[string]any)[id].(map[string]any)["content"])
				if err != nil {
					t.Fatal(err)
				}
				exp, err := strictjson.Marshal(src["content"])
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(exp) {
					t.Errorf("the source's content reads back as %s, want %s", got, exp)
				}
			}
		})
	}
}

// printable names a hostile string in a test name.
func printable(r rune) rune {
	if r < 0x20 || r == 0x7f || (r >= 0x2028 && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfeff {
		return '?'
	}
	return r
}

// TestAppendRegoString: every string reads back from the Rego text appendRego writes as itself,
// whatever it holds, and the text holds no character that is not printable; a string that is
// not UTF-8 is an error, not a changed string.
func TestAppendRegoString(t *testing.T) {
	tests := []struct {
		name, s string
	}{
		{name: "empty", s: ""},
		{name: "quotes and backslashes", s: `"\"\\'` + "`"},
		{name: "controls", s: "\x00\x01\a\b\f\v\x1b\x7f\n\r\t"},
		{name: "line and paragraph separators", s: "a\u2028b\u2029c"},
		{name: "bidi and byte-order mark", s: "\u202eabc\u2066\u2069\ufeff\u200d"},
		{name: "astral: printable and not", s: "📦\U000e0001\U0001f600"},
		{name: "code in a string", s: "\"} allow := true # */ <script>::error::"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, err := appendRegoString(nil, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range string(text) {
				if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0xfeff || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
					t.Errorf("%s holds %U unescaped", text, r)
				}
			}
			back, err := ast.ParseTerm(string(text))
			if err != nil {
				t.Fatalf("%s does not parse: %v", text, err)
			}
			if got, ok := back.Value.(ast.String); !ok || string(got) != tc.s {
				t.Errorf("%s reads back as %v, want %q", text, back, tc.s)
			}
		})
	}
	if _, err := appendRegoString(nil, "a\xffb"); err == nil {
		t.Error("a string that is not UTF-8 was written")
	}
}
