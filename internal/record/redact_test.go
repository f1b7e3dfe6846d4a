package record

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/testkit"
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
			if testkit.ErrCase(t, err, tc.err) {
				return
			}
			if !slices.Equal(p.tokens, tc.tokens) {
				t.Errorf("tokens %q, want %q", p.tokens, tc.tokens)
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

// echoServer is an MCP server whose tools/call result is one text block whose JSON string
// content is the call's "raw" argument as given: the test chooses the spelling the server
// writes (a JSON escape a Go encoder would not use, say).
func echoServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(toolsCallServer(func(_ string, args struct {
		Raw string `json:"raw"`
	}) (string, bool) {
		return `{"content":[{"type":"text","text":"` + args.Raw + `"}]}`, false
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// echoPair makes one tools/call of lookup through the MCP proxy whose result text is raw (JSON
// string content, spelled as given) and one Chat Completions request that carries the same
// spelling through the provider proxy; both requests carry header.
func echoPair(t *testing.T, ep Endpoints, n int, raw string, header map[string]string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"raw": raw})
	post(t, ep.MCP, header, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup","arguments":%s}}`, n, args))
	argText, _ := json.Marshal(string(args))
	id := fmt.Sprintf("call_%d", n)
	body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":%q,"type":"function","function":{"name":"lookup","arguments":%s}}]},{"role":"tool","tool_call_id":%q,"content":"%s"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`, id, argText, id, raw)
	post(t, ep.Provider+"/v1/chat/completions", header, body)
}

// TestCredentialEchoes: the holes of issue 41 item 2, each through a whole recording. A server
// that echoes a credential the traffic carried (the 1,100th of rotating tokens, a Cookie value,
// a Basic-auth password, a token in JSON's \/ spelling) has that pair refused, exit 3's count,
// the header named and never the value; a clean pair beside it is written, and no written file
// holds the secret in any spelling.
func TestCredentialEchoes(t *testing.T) {
	t.Parallel()
	basic := base64.StdEncoding.EncodeToString([]byte("alice:correct-horse-battery"))
	tests := []struct {
		name    string
		before  func(t *testing.T, ep Endpoints) // traffic before the pair
		header  map[string]string
		echo    string   // the result text's JSON string content, as the server spells it
		secrets []string // what no file and no log line may hold
		named   string   // what the refusal names
		secretH []string // --secret-header
	}{
		{name: "a token after 1,024 others",
			before: func(t *testing.T, ep Endpoints) {
				for i := range 1100 {
					get(t, ep.Provider+"/v1/models", map[string]string{"Authorization": fmt.Sprintf("Bearer rot-%04d-0123456789", i)})
				}
			},
			header: map[string]string{"Authorization": "Bearer rot-1099-0123456789"},
			echo:   "the token is rot-1099-0123456789", secrets: []string{"rot-1099-0123456789"}, named: "Authorization"},
		{name: "a Cookie value", header: map[string]string{"Cookie": "sid=COOKIESECRET99; theme=dark"},
			echo: "your session: COOKIESECRET99", secrets: []string{"COOKIESECRET99"}, named: "Cookie"},
		{name: "a Basic-auth password", header: map[string]string{"Authorization": "Basic " + basic},
			echo: "password correct-horse-battery", secrets: []string{"correct-horse-battery", basic}, named: "Authorization"},
		{name: "a token JSON-escaped", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"},
			echo: `key sk-SEC\/RET\/123`, secrets: []string{"sk-SEC/RET/123", `sk-SEC\/RET\/123`, `sk-SEC\\/RET\\/123`}, named: "Authorization"},
		{name: "a --secret-header", header: map[string]string{"X-Tenant-Secret": "tenant-0123456789"}, secretH: []string{"x-tenant-secret"},
			echo: "tenant tenant-0123456789", secrets: []string{"tenant-0123456789"}, named: "X-Tenant-Secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "rec")
			o := Options{Lane: "echoes", Version: "1", Output: out, MCPURL: echoServer(t), ProviderURL: upstream(t, "k", nil), SecretHeaders: tc.secretH}
			res, log, err := recording(t, o, func(ep Endpoints) error {
				if tc.before != nil {
					tc.before(t, ep)
				}
				echoPair(t, ep, 1, "nothing to hide here", tc.header)
				echoPair(t, ep, 2, tc.echo, tc.header)
				return nil
			})
			if err != nil {
				t.Fatalf("record: %v\n%s", err, log)
			}
			if res.Pairs != 1 || res.Refused != 1 || !res.Lost() {
				t.Errorf("%s; want 1 pair written and 1 refused\n%s", res.Stats, log)
			}
			if !strings.Contains(log, "holds a credential of the traffic") || !strings.Contains(log, tc.named) {
				t.Errorf("the refusal does not name %s:\n%s", tc.named, log)
			}
			testkit.TreeLacks(t, out, tc.secrets...)
			for _, s := range tc.secrets {
				if strings.Contains(log, s) {
					t.Errorf("the log shows %q:\n%s", s, log)
				}
			}
		})
	}
}

// get sends one GET and discards its answer.
func get(t *testing.T, url string, header map[string]string) {
	t.Helper()
	resp := testkit.Do(t, http.MethodGet, url, header, "")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// TestCredentialSpellings: each credential position the agent can send, and each spelling a
// JSON or URL encoder can give the value in what would be written, is found and named; values
// that only look alike (the same length and last bytes, a short cookie value) are not.
func TestCredentialSpellings(t *testing.T) {
	t.Parallel()
	basic := func(pair string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(pair)) }
	tests := []struct {
		name   string
		header map[string]string
		url    string
		extra  []string // --secret-header
		text   string   // what would be written
		want   string   // the source named; "" when nothing may be found
	}{
		{name: "bearer, raw", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"}, text: `{"t":"sk-SEC/RET/123"}`, want: "the Authorization header"},
		{name: "bearer, \\/", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"}, text: `{"t":"sk-SEC\/RET\/123"}`, want: "Authorization"},
		{name: "every character \\u-escaped, upper-case hex", header: map[string]string{"x-api-key": "sk-SEC/RET/123"},
			text: `{"t":"\u0073\u006B\u002D\u0053\u0045\u0043\u002F\u0052\u0045\u0054\u002f\u0031\u0032\u0033"}`, want: "the X-Api-Key header"},
		{name: "a character beyond the BMP as a surrogate pair", header: map[string]string{"x-api-key": "key-\U0001F600-0123"},
			text: `{"t":"key-\ud83d\uDE00-0123"}`, want: "X-Api-Key"},
		{name: "in a key", header: map[string]string{"api-key": "azure-0123456789"}, text: `{"azure-0123456789":1}`, want: "the Api-Key header"},
		{name: "JSON in a JSON string", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"},
			text: `{"text":"{\"t\":\"sk-SEC\\\/RET\\\/123\"}"}`, want: "Authorization"},
		{name: "JSON in text in an item's string", header: map[string]string{"Authorization": "Bearer tok\"quoted\"1"},
			text: `{"content":"{\"text\":\"{\\\"t\\\":\\\"tok\\\\\\\"quoted\\\\\\\"1\\\"}\"}"}`, want: "Authorization"},
		{name: "percent-encoded, lower-case hex", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"},
			text: `{"uri":"https://x.example/?t=sk-SEC%2fRET%2F123"}`, want: "Authorization"},
		{name: "percent-encoded then \\u-escaped", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"},
			text: `{"uri":"https://x.example/?t=sk-SEC\u00252fRET%2F123"}`, want: "Authorization"},
		{name: "JSON text in a URL parameter", header: map[string]string{"Authorization": "Bearer sk-SEC/RET/123"},
			text: `{"uri":"https://x.example/?q=%7B%22t%22%3A%22sk-SEC%5C%2FRET%5C%2F123%22%7D"}`, want: "Authorization"},
		{name: "a Basic password", header: map[string]string{"Authorization": basic("alice:correct-horse")}, text: `{"t":"correct-horse"}`, want: "the Basic user:password of the Authorization header"},
		{name: "a Basic user", header: map[string]string{"Authorization": basic("alice@example.com:pw")}, text: `{"t":"alice@example.com"}`, want: "Basic"},
		{name: "the Basic pair in URL base64", header: map[string]string{"Authorization": basic("al?ce:p>ss>w?rd")},
			text: `{"t":"` + base64.RawURLEncoding.EncodeToString([]byte("al?ce:p>ss>w?rd")) + `"}`, want: "Basic"},
		{name: "a URL's password as a Basic pair", url: "https://bob:hunter2hunter2@up.example/", text: `{"h":"` + base64.StdEncoding.EncodeToString([]byte("bob:hunter2hunter2")) + `"}`, want: "the user:password of a URL"},
		{name: "a Cookie value", header: map[string]string{"Cookie": "sid=COOKIESECRET99; theme=dark"}, text: `{"t":"COOKIESECRET99"}`, want: "a value of the Cookie header"},
		{name: "a Cookie value decoded", header: map[string]string{"Cookie": "sid=abc%3D%3Ddefgh"}, text: `{"t":"abc==defgh"}`, want: "Cookie"},
		{name: "a Cookie value without a name", header: map[string]string{"Cookie": "theme=dark; NAMELESS-VALUE-42"}, text: `{"t":"NAMELESS-VALUE-42"}`, want: "Cookie"},
		{name: "a short Cookie value is not sought", header: map[string]string{"Cookie": "sid=COOKIESECRET99; theme=dark"}, text: `{"theme":"dark"}`},
		{name: "a query parameter with +, as sent", url: "https://up.example/v1?access_token=ab+cd/ef%3D", text: `{"u":"ab+cd/ef="}`, want: "the access_token query parameter"},
		{name: "a query parameter key", url: "https://up.example/v1?KEY=AIza0123456789", text: `{"u":"AIza0123456789"}`, want: "the key query parameter"},
		{name: "a --secret-header", header: map[string]string{"X-Tenant-Secret": "tenant-0123456789"}, extra: []string{"x-tenant-secret"}, text: `{"t":"tenant-0123456789"}`, want: "the X-Tenant-Secret header"},
		{name: "an unnamed header is not sought", header: map[string]string{"X-Tenant-Secret": "tenant-0123456789"}, text: `{"t":"tenant-0123456789"}`},
		{name: "a Digest response", header: map[string]string{"Authorization": `Digest username="bob", response="6629fae49393a05397450978507c4ef1"`},
			text: `{"t":"6629fae49393a05397450978507c4ef1"}`, want: "Authorization"},
		{name: "a long token, JSON-escaped", header: map[string]string{"Authorization": "Bearer " + longToken('A')},
			text: `{"t":"x ` + strings.ReplaceAll(longToken('A'), "/", `\/`) + ` y"}`, want: "Authorization"},
		{name: "a long token's length and last bytes, another value", header: map[string]string{"Authorization": "Bearer " + longToken('A')},
			text: `{"t":"x ` + longToken('B') + ` y"}`},
		{name: "a long value after a run of its last bytes", header: map[string]string{"X-Api-Key": "x" + strings.Repeat("a", 2999)},
			text: `{"t":"` + strings.Repeat("a", 4000) + "x" + strings.Repeat("a", 2999) + `|"}`, want: "X-Api-Key"},
		{name: "a run of a long value's last bytes, another value", header: map[string]string{"X-Api-Key": "x" + strings.Repeat("a", 2999)},
			text: `{"t":"` + strings.Repeat("a", 4000) + "x" + strings.Repeat("a", 1500) + "y" + strings.Repeat("a", 1498) + `|"}`},
		{name: "the same length and last bytes, another value", header: map[string]string{"Authorization": "Bearer sk-AAAA-0123456789"}, text: `{"t":"sk-BBBB-0123456789"}`},
		{name: "part of a value", header: map[string]string{"Authorization": "Bearer sk-AAAA-0123456789"}, text: `{"t":"AAAA-0123456789"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCredentials(tc.extra)
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			c.noteRequest(h, u)
			if !json.Valid([]byte(tc.text)) {
				t.Fatalf("the case's text is not JSON: %s", tc.text)
			}
			got := c.find([]byte(`{"other":"item"}`), []byte(tc.text))
			switch {
			case tc.want == "" && got != "":
				t.Errorf("found a credential (%s) in %s", got, tc.text)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("found %q in %s, want %q", got, tc.text, tc.want)
			}
		})
	}
}

// longToken is a 3,000-byte token (longer than shortValue: sought by rolling hash first) that
// starts with first and holds slashes.
func longToken(first byte) string {
	return string(first) + strings.Repeat("eyJhbGciOi/JIUzI1NiJ9", 3000/21) + "/0123456789"
}

// TestCredentialsUnbounded: no value is forgotten, however many: the first and the last of
// 200,000 distinct tokens are both found, and a value noted again is one value.
func TestCredentialsUnbounded(t *testing.T) {
	t.Parallel()
	c := newCredentials(nil)
	const n = 200000
	for i := range n {
		c.noteRequest(http.Header{"Authorization": {fmt.Sprintf("Bearer rot-%07d-abcdef", i)}}, &url.URL{})
	}
	c.noteRequest(http.Header{"Authorization": {"Bearer rot-0000000-abcdef"}}, &url.URL{})
	for _, i := range []int{0, n / 2, n - 1} {
		if got := c.find(fmt.Appendf(nil, `{"t":"rot-%07d-abcdef"}`, i)); got == "" {
			t.Errorf("token %d of %d was forgotten", i, n)
		}
	}
	if got := c.find([]byte(`{"t":"rot-9999999-abcdef"}`)); got != "" {
		t.Errorf("found %s, a token never sent", got)
	}
	// Each request noted two values: "Bearer …" and the token.
	if len(c.seen) != 2*n {
		t.Errorf("%d values kept, want %d", len(c.seen), 2*n)
	}
}

// TestCredentialsConcurrent: values are added while a search runs (go test -race says whether
// that is safe), and a value added before find is found by it.
func TestCredentialsConcurrent(t *testing.T) {
	t.Parallel()
	c := newCredentials(nil)
	big := bytes.Repeat([]byte(`{"t":"ordinary text, nothing secret"}`), 1<<14)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20000 {
			c.noteRequest(http.Header{"X-Api-Key": {fmt.Sprintf("concurrent-%06d", i)}}, &url.URL{})
		}
	}()
	for range 20 {
		if got := c.find(big); got != "" {
			t.Fatalf("found %s in text without a credential", got)
		}
	}
	<-done
	if got := c.find([]byte(`"concurrent-019999"`)); got == "" {
		t.Error("the last value added was not found")
	}
}

// spellJSON is s as JSON string content in one of the spellings an encoder may give it, chosen
// by rng: each character raw or \uXXXX (hex in either case), / raw or \/, the characters that
// must be escaped by their short escape or \uXXXX.
func spellJSON(s string, rng *rand.Rand) string {
	var b strings.Builder
	u := func(r rune) {
		hex := fmt.Sprintf("%04x", r)
		if rng.IntN(2) == 0 {
			hex = strings.ToUpper(hex)
		}
		b.WriteString(`\u` + hex)
	}
	for _, r := range s {
		short := map[rune]string{'"': `\"`, '\\': `\\`, '\n': `\n`, '\t': `\t`, '\r': `\r`, '\b': `\b`, '\f': `\f`}[r]
		switch {
		case short != "" || r < 0x20:
			if short != "" && rng.IntN(2) == 0 {
				b.WriteString(short)
			} else {
				u(r)
			}
		case r == '/' && rng.IntN(2) == 0:
			b.WriteString(`\/`)
		case rng.IntN(3) == 0:
			if r > 0xFFFF {
				r1, r2 := utf16.EncodeRune(r)
				u(r1)
				u(r2)
			} else {
				u(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// spellPercent is s percent-encoded as a URL encoder may: every byte other than the unreserved
// ones as %XX (hex in either case), the unreserved ones raw or encoded, chosen by rng.
func spellPercent(s string, rng *rand.Rand) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		unreserved := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0
		if unreserved && rng.IntN(4) != 0 {
			b.WriteByte(c)
			continue
		}
		hex := fmt.Sprintf("%%%02x", c)
		if rng.IntN(2) == 0 {
			hex = strings.ToUpper(hex)
		}
		b.WriteString(hex)
	}
	return b.String()
}

// FuzzCredentialEcho: a credential the agent sent (in a Bearer token, x-api-key, a Cookie
// value, a Basic password or an access_token query parameter) echoed in a result in any
// spelling a JSON or URL encoder gives it (chosen by spell), at any position (text content, a
// structuredContent string, a key, JSON inside a text block, a percent-encoded URL in a
// resource link; in the source or wrapped as a provider item's string), is always found.
func FuzzCredentialEcho(f *testing.F) {
	f.Add("sk-SEC/RET/123", uint64(1), uint8(0))
	f.Add("COOKIESECRET99", uint64(2), uint8(2))
	f.Add("correct-horse-battery", uint64(3), uint8(3))
	f.Add(`tok"with\quotes/`, uint64(4), uint8(8))
	f.Add("a%41b%2Fc&d=e+f", uint64(5), uint8(24))
	f.Add("短い秘密の値です", uint64(6), uint8(16))
	f.Add("emoji-\U0001F600-key", uint64(7), uint8(21))
	f.Add("x", uint64(8), uint8(49))
	f.Fuzz(func(t *testing.T, secret string, spell uint64, pos uint8) {
		// A header value: valid UTF-8, no control characters, no surrounding space.
		secret = strings.TrimSpace(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f || r == utf8.RuneError {
				return -1
			}
			return r
		}, secret))
		if len(secret) < minCredential {
			secret += "-padding"[:minCredential-len(secret)]
		}
		if strings.TrimSpace(secret) != secret {
			secret = "p" + strings.TrimSpace(secret) + "p"
		}
		h, u := http.Header{}, &url.URL{Scheme: "https", Host: "up.example", Path: "/v1"}
		switch pos % 5 {
		case 0:
			h.Set("Authorization", "Bearer "+secret)
		case 1:
			h.Set("X-Api-Key", secret)
		case 2:
			secret = strings.NewReplacer(";", "_", `"`, "_", " ", "_").Replace(secret)
			h.Set("Cookie", "theme=dark; sid="+secret)
		case 3:
			h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("user:"+secret)))
		case 4:
			u.RawQuery = "x=1&access_token=" + url.QueryEscape(secret)
		}
		c := newCredentials(nil)
		c.noteRequest(h, u)
		rng := rand.New(rand.NewPCG(spell, uint64(pos)))
		var src string
		switch pos / 5 % 5 {
		case 0:
			src = `{"content":[{"type":"text","text":"the value is ` + spellJSON(secret, rng) + `, see"}]}`
		case 1:
			src = `{"content":[],"structuredContent":{"k":"` + spellJSON(secret, rng) + `"}}`
		case 2:
			src = `{"content":[],"structuredContent":{"` + spellJSON(secret, rng) + `":1}}`
		case 3:
			inner := `{"token":"` + spellJSON(secret, rng) + `"}`
			src = `{"content":[{"type":"text","text":"` + spellJSON(inner, rng) + `"}]}`
		case 4:
			uri := "https://example.com/cb?x=1&token=" + spellPercent(secret, rng)
			src = `{"content":[{"type":"resource_link","uri":"` + spellJSON(uri, rng) + `","name":"n"}]}`
		}
		data := [][]byte{[]byte(src), []byte(`{"role":"tool","content":"ok"}`)}
		if pos/25%2 == 1 { // the item carries the result as a string; the source is clean
			data = [][]byte{[]byte(`{"content":[]}`), []byte(`{"role":"tool","content":"` + spellJSON(src, rng) + `"}`)}
		}
		for _, d := range data {
			if !json.Valid(d) {
				t.Fatalf("the test spelled no JSON: %s", d)
			}
		}
		if got := c.find(data...); got == "" {
			t.Errorf("the credential %q (position %d) was not found in %s", secret, pos, bytes.Join(data, []byte(" / ")))
		}
	})
}

// findBefore is the credential search record did before issue 41 (each kept value, raw and in
// Go's JSON spelling, by bytes.Contains), kept as BenchmarkCredentialFind's baseline.
func findBefore(vals []string, data ...[]byte) bool {
	for _, v := range vals {
		forms := [][]byte{[]byte(v)}
		if q, err := json.Marshal(v); err == nil {
			forms = append(forms, q[1:len(q)-1])
		}
		for _, d := range data {
			for _, f := range forms {
				if bytes.Contains(d, f) {
					return true
				}
			}
		}
	}
	return false
}

// largeItem is a provider item of about size bytes that holds no credential: a Chat Completions
// tool message whose content is JSON text (records with text, numbers, escapes and
// percent-encoded URLs), so that its search undoes two layers of JSON escapes and percent-encoding.
func largeItem(size int) []byte {
	type rec struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
		Note string `json:"note"`
		URL  string `json:"url"`
	}
	var recs []rec
	for n := 0; n < size; n += 160 {
		recs = append(recs, rec{ID: n, Name: fmt.Sprintf("customer %d <é>", n), Note: "said \"hello\"\nand left/right", URL: fmt.Sprintf("https://shop.example/o?id=%d&q=a%%20b%%2Fc", n)})
	}
	inner, _ := json.Marshal(recs)
	content, _ := json.Marshal(string(inner))
	return []byte(`{"role":"tool","tool_call_id":"call_1","content":` + string(content) + `}`)
}

// BenchmarkCredentialFind: the search before a pair is written, on a 4 MiB item that holds no
// credential (the whole of it is searched), with 3 credentials (an API key, the same as a Bearer
// token, a cookie) and with 1,024 (rotating tokens: the old search's cap): "before" is the old
// search (raw and Go's JSON spelling only), "now" the search of every spelling.
func BenchmarkCredentialFind(b *testing.B) {
	item := largeItem(4 << 20)
	for _, n := range []int{3, 1024} {
		var vals []string
		c := newCredentials(nil)
		for i := range n {
			v := fmt.Sprintf("sk-proj-%04d-Zq8xT1mK9wLp", i)
			vals = append(vals, v)
			c.noteRequest(http.Header{"Authorization": {"Bearer " + v}}, &url.URL{})
		}
		b.Run(fmt.Sprintf("before/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(item)))
			for b.Loop() {
				if findBefore(vals, item) {
					b.Fatal("found a credential")
				}
			}
		})
		b.Run(fmt.Sprintf("now/%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(item)))
			for b.Loop() {
				if c.find(item) != "" {
					b.Fatal("found a credential")
				}
			}
		})
	}
}

// BenchmarkCredentialMemory reports the heap one distinct credential costs the set (values
// of 40 bytes, 100,000 of them; each request noted adds two: the header and its token).
func BenchmarkCredentialMemory(b *testing.B) {
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := newCredentials(nil)
		for i := range 50000 {
			c.noteRequest(http.Header{"Authorization": {fmt.Sprintf("Bearer rot-%07d-0123456789abcdefghijklmn", i)}}, &url.URL{})
		}
		c.find([]byte("x"))
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(c.seen)), "B/credential")
		runtime.KeepAlive(c)
	}
}

// BenchmarkCredentialFindRepetitive: the worst case of the anchor search, a 64 KiB credential
// of one repeated byte and a 1 MiB text of that byte with a break every 32 KiB (it never holds
// the credential): every window ends like the credential, and each costs a rolling-hash look-up
// rather than 64 KiB of SHA-256.
func BenchmarkCredentialFindRepetitive(b *testing.B) {
	c := newCredentials(nil)
	c.noteRequest(http.Header{"X-Api-Key": {strings.Repeat("a", 64<<10)}}, &url.URL{})
	text := []byte(strings.Repeat(strings.Repeat("a", 32<<10-1)+"|", 32))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if c.find(text) != "" {
			b.Fatal("found a credential")
		}
	}
}
