package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// indentCases are compact JSON values that exercise every rule of json.Indent's layout.
var indentCases = []struct{ name, in string }{
	{name: "scalar", in: `7`},
	{name: "string with every escape", in: `"a\"b\\c\n\u0001\u2028é{[,:]}"`},
	{name: "empty object and array", in: `{"a":{},"b":[],"c":[{}],"d":[[]]}`},
	{name: "nested", in: `{"fixture":"C01","readout":{"keys":["a/b","c"],"n":-1.5e3},"diagnostics":[{"atom":"x","path":""}],"ok":true,"none":null}`},
	{name: "key with separators", in: `{"a:b,c{":"]}"}`},
	{name: "array of numbers", in: `[1,2.5,-3e-7,0]`},
	{name: "backslash before closing quote", in: `["\\",":"]`},
}

// TestIndentIsJSONIndent: indent lays out compact JSON byte for byte as json.Indent does, at the
// prefixes the report uses.
func TestIndentIsJSONIndent(t *testing.T) {
	for _, tc := range indentCases {
		for _, prefix := range []string{"", "    "} {
			t.Run(tc.name, func(t *testing.T) {
				var want bytes.Buffer
				if err := json.Indent(&want, []byte(tc.in), prefix, "  "); err != nil {
					t.Fatal(err)
				}
				if got := indent(nil, []byte(tc.in), prefix, "  "); !bytes.Equal(got, want.Bytes()) {
					t.Errorf("indent\n%s\nwant\n%s", got, want.Bytes())
				}
			})
		}
	}
}

// FuzzIndent holds indent to json.Indent on any JSON value, compacted as encoding/json writes it.
func FuzzIndent(f *testing.F) {
	for _, tc := range indentCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(in)); err != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "  ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indent(nil, compact.Bytes(), "  ", "  "); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("indent(%q)\n%q\nwant\n%q", compact.Bytes(), got, want.Bytes())
		}
	})
}

// BenchmarkIndent lays out a result as the JSON format writes it: the sample's unmet binding,
// with its readout, diagnostics and records.
func BenchmarkIndent(b *testing.B) {
	r := sample().Results.At(0)
	src, err := strictjson.MarshalGo(r)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	var out []byte
	for b.Loop() {
		out = indent(out[:0], src, "    ", "  ")
	}
}
