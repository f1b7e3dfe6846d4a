package record

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// TestRedact: a pointer's value is replaced in the result, and its strings' text is blanked in
// the result and the item at every escaping depth; numbers only at the pointer.
func TestRedact(t *testing.T) {
	t.Parallel()
	src := `{"content":[{"type":"text","text":"{\"email\":\"ann@example.com\",\"n\":42,\"tag\":\"<é>\"}"}],"structuredContent":{"email":"ann@example.com","n":42,"a/b":"x-y-z","tag":"<é>"}}`
	tests := []struct {
		name     string
		pointers []string
		item     string
		gone     []string // texts no output may hold
		kept     []string // texts the result must still hold
		applied  []string
	}{
		{name: "a string, everywhere", pointers: []string{"/structuredContent/email"},
			item: `{"role":"tool","content":"{\"email\":\"ann@example.com\"}"}`, gone: []string{"ann@example.com"}, kept: []string{`"n":42`}, applied: []string{"/structuredContent/email"}},
		{name: "an object's strings", pointers: []string{"/structuredContent"},
			item: `{"output":"ann@example.com x-y-z"}`, gone: []string{"ann@example.com", "x-y-z"}, kept: []string{`"structuredContent":"[redacted]"`}, applied: []string{"/structuredContent"}},
		{name: "a number at the pointer only", pointers: []string{"/structuredContent/n"},
			item: `{"output":"42"}`, kept: []string{`\"n\":42`, `"n":"[redacted]"`}, applied: []string{"/structuredContent/n"}},
		{name: "an escaped token", pointers: []string{"/structuredContent/a~1b"},
			item: `{"output":"x-y-z"}`, gone: []string{"x-y-z"}, applied: []string{"/structuredContent/a~1b"}},
		{name: "HTML and Python escapes", pointers: []string{"/structuredContent/tag"},
			item: `{"a":"\u003c\u00e9\u003e","b":"<\u00e9>"}`, gone: []string{`\u003c\u00e9\u003e`, `<\u00e9>`, "<é>"}, applied: []string{"/structuredContent/tag"}},
		{name: "a pointer that selects nothing", pointers: []string{"/structuredContent/none"},
			item: `{"output":"ann@example.com"}`, kept: []string{"ann@example.com"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ps []pointer
			for _, p := range tc.pointers {
				pp, err := parsePointer(p)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, pp)
			}
			out, item, applied, err := redact(ps, []byte(src), []byte(tc.item))
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) || !json.Valid(item) {
				t.Fatalf("not JSON: %s / %s", out, item)
			}
			for _, g := range tc.gone {
				if strings.Contains(string(out), g) || strings.Contains(string(item), g) {
					t.Errorf("%q is still there:\n%s\n%s", g, out, item)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(string(out)+string(item), k) {
					t.Errorf("%q is gone:\n%s\n%s", k, out, item)
				}
			}
			if !slices.Equal(applied, tc.applied) {
				t.Errorf("applied %q, want %q", applied, tc.applied)
			}
		})
	}
}

// TestParsePointer: RFC 6901 syntax, the flag value named in the error.
func TestParsePointer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		tokens   []string
		err      string
	}{
		{name: "the whole document", in: "", tokens: nil},
		{name: "members", in: "/a/0/b", tokens: []string{"a", "0", "b"}},
		{name: "escapes", in: "/a~1b/c~0d", tokens: []string{"a/b", "c~d"}},
		{name: "an empty member", in: "/", tokens: []string{""}},
		{name: "no slash", in: "a", err: `--redact "a"`},
		{name: "a bad escape", in: "/a~x", err: `--redact "/a~x"`},
		{name: "a trailing tilde", in: "/a~", err: "~ must be followed by 0 or 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parsePointer(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(p.tokens, tc.tokens) {
				t.Errorf("tokens %q, %v; want %q", p.tokens, err, tc.tokens)
			}
		})
	}
}

// TestProviderResults: each API's results are found with their call's name and arguments from
// the history, the item's exact bytes, and a result whose call the history lacks is an orphan.
func TestProviderResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		api     fakeprovider.API
		body    string
		keys    []string
		item    string
		orphans int
	}{
		{name: "responses", api: fakeprovider.OpenAIResponses,
			body: `{"input":[{"type":"function_call","call_id":"c1","name":"srv_lookup","arguments":"{\"n\":1.0}"},{"type":"function_call_output","call_id":"c1","output":"R"},{"type":"function_call_output","call_id":"c9","output":"X"}]}`,
			keys: []string{"c1"}, item: `{"type":"function_call_output","call_id":"c1","output":"R"}`, orphans: 1},
		{name: "chat", api: fakeprovider.OpenAIChat,
			body: `{"messages":[{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"lookup","arguments":"{\"n\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"R"}]}`,
			keys: []string{"c1"}, item: `{"role":"tool","tool_call_id":"c1","content":"R"}`},
		{name: "anthropic", api: fakeprovider.Anthropic,
			body: `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"lookup","input":{"n":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"R"}]}]}`,
			keys: []string{"c1"}, item: `{"type":"tool_result","tool_use_id":"c1","content":"R"}`},
		{name: "gemini without ids", api: fakeprovider.Gemini,
			body: `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"n":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"output":"R"}}}]}]}`,
			item: `{"functionResponse":{"name":"lookup","response":{"output":"R"}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, orphans, err := providerResults(tc.api, []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || orphans != tc.orphans {
				t.Fatalf("%d results, %d orphans; want 1, %d", len(got), orphans, tc.orphans)
			}
			r := got[0]
			if tc.keys != nil && r.key != tc.keys[0] {
				t.Errorf("key %q, want %q", r.key, tc.keys[0])
			}
			if string(r.item.mem) != tc.item {
				t.Errorf("item %s, want %s", r.item.mem, tc.item)
			}
			if !nameMatches("lookup", r.name) || !sameArgs(r.args, decodeArgs([]byte(`{"n":1}`))) {
				t.Errorf("call %s %v does not match lookup {\"n\":1}", r.name, r.args)
			}
		})
	}
	if nameMatches("lookup", "xlookup") || nameMatches("lookup", "lookup2") {
		t.Error("nameMatches matched a name that only contains the tool's")
	}
}
