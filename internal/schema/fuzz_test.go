package schema

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// FuzzValidateSource validates any JSON document as a source under each of the three pinned
// revisions: no panic, and every refusal is a *ValidationError naming the file and, below the
// document, a JSON pointer that exists in it. Seeds: testdata/fuzz/FuzzValidateSource and every
// catalogued source.
func FuzzValidateSource(f *testing.F) {
	v := newValidator(f)
	if !slices.Equal(v.Revisions(), pinned) {
		f.Fatalf("revisions %v, want %v", v.Revisions(), pinned)
	}
	sources, _ := filepath.Glob("../../fixtures/sources/*/*.json")
	for _, p := range sources {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{`{"content":[]}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"=","mimeType":"audio/wav"}]}}`, `[]`, `{"content":[{"type":"resource_link","uri":"::"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := strictjson.Decode("src.json", data, strictjson.DefaultLimits)
		if err != nil {
			return
		}
		for _, rev := range pinned {
			_, err := v.ValidateSource("src.json", rev, doc)
			if err == nil {
				continue
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.File != "src.json" || !strings.HasPrefix(err.Error(), "src.json: ") {
				t.Fatalf("%s: error %T %v does not name the file", rev, err, err)
			}
			if ve.Pointer != "" && !resolves(doc, ve.Pointer) {
				t.Fatalf("%s: pointer %q is not in the document", rev, ve.Pointer)
			}
		}
	})
}

// resolves reports whether the RFC 6901 pointer p names a value of doc, or a member the schema
// requires and doc lacks (its parent exists).
func resolves(doc any, p string) bool {
	toks := strings.Split(p, "/")[1:]
	cur := doc
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return i == len(toks)-1
			}
			cur = next
		case []any:
			n := 0
			for _, c := range tok {
				if c < '0' || c > '9' {
					return false
				}
				n = n*10 + int(c-'0')
			}
			if n >= len(x) {
				return false
			}
			cur = x[n]
		default:
			return false
		}
	}
	return true
}
