package bindpath

import (
	"reflect"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// FuzzParse: Parse never panics; a path without "[" or "~2" parses exactly when it is an RFC 6901
// pointer, to its reference tokens; and a path that parses reads a document without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "/", "/a/0", "/a~1b~0", `/o[a="x",b=true]/c`, `/o["a b"=null]`, `/o[a="\u2028"]`, "/o[", `/o[a="x"]]`, "/~2", "/a~", `/o[a="\"]"]`} {
		f.Add(s)
	}
	doc, err := strictjson.Decode("doc", []byte(`{"o":[{"a":"x","b":true},{"a b":null}],"a":[1,{"b":2}]}`), strictjson.DefaultLimits)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if !strings.Contains(s, "[") && !strings.Contains(s, "~2") {
			ptr, perr := strictjson.ParsePointer(s)
			if (err == nil) != (perr == nil) {
				t.Fatalf("Parse(%q) = %v, ParsePointer = %v", s, err, perr)
			}
			if err == nil {
				var toks []string
				for _, st := range p.Steps() {
					toks = append(toks, st.Token)
				}
				if len(toks) != len(ptr) || (len(toks) > 0 && !reflect.DeepEqual(toks, []string(ptr))) {
					t.Fatalf("Parse(%q) tokens %q, pointer %q", s, toks, ptr)
				}
			}
		}
		if err != nil {
			return
		}
		if p.String() != s {
			t.Fatalf("String() = %q, want %q", p.String(), s)
		}
		p.Read(doc)
	})
}
