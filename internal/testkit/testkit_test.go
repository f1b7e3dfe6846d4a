package testkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
)

// recorder is a testing.TB that keeps what a helper fails with and, like testing.T, stops the
// goroutine on Fatal.
type recorder struct {
	testing.TB
	fatal, errored string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) { r.errored = fmt.Sprintf(format, args...) }

func (r *recorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic(r)
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(r)
}

// call runs f with a recorder and says what f returned, or the message it failed with.
func call(f func(t testing.TB) bool) (done bool, fatal string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	defer func() { fatal = r.fatal }()
	return f(r), ""
}

// TestPaceSetsPaceVars: every variable a test passes on to its children as the pacing
// (PaceVars) is one Pace sets where the caller left it unset.
func TestPaceSetsPaceVars(t *testing.T) {
	for _, v := range PaceVars {
		t.Setenv(v, "")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	Pace()
	for _, v := range PaceVars {
		if os.Getenv(v) == "" {
			t.Errorf("Pace left %s unset", v)
		}
	}
}

func TestErrCase(t *testing.T) {
	tests := []struct {
		name      string
		prefix    bool // ErrPrefixCase, not ErrCase
		err       error
		want      string
		wantDone  bool
		wantFatal string
	}{
		{name: "no error wanted, none", err: nil, want: "", wantDone: false},
		{name: "no error wanted, one", err: errors.New("boom"), want: "", wantFatal: "boom"},
		{name: "error wanted, it holds want", err: errors.New("a: bad input"), want: "bad", wantDone: true},
		{name: "error wanted, another", err: errors.New("a: other"), want: "bad", wantFatal: `error a: other, want one containing "bad"`},
		{name: "error wanted, none", err: nil, want: "bad", wantFatal: `error <nil>, want one containing "bad"`},
		{name: "prefix wanted, it starts so", prefix: true, err: errors.New("a: bad"), want: "a:", wantDone: true},
		{name: "prefix wanted, it holds it later", prefix: true, err: errors.New("a: bad"), want: "bad", wantFatal: `error a: bad, want one starting "bad"`},
		{name: "prefix case, no error wanted", prefix: true, err: nil, want: "", wantDone: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := ErrCase
			if tc.prefix {
				check = ErrPrefixCase
			}
			done, fatal := call(func(r testing.TB) bool { return check(r, tc.err, tc.want) })
			if fatal != tc.wantFatal {
				t.Errorf("failed with %q, want %q", fatal, tc.wantFatal)
			}
			if tc.wantFatal == "" && done != tc.wantDone {
				t.Errorf("ErrCase = %v, want %v", done, tc.wantDone)
			}
		})
	}
}

func TestTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"top.json": "1", "a/b/deep.jsonl": "2\n"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := Tree(t, dir)
	want := map[string][]byte{"top.json": []byte("1"), "a/b/deep.jsonl": []byte("2\n")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tree = %q, want %q", got, want)
	}
	if _, fatal := call(func(r testing.TB) bool { Tree(r, filepath.Join(dir, "absent")); return true }); fatal == "" {
		t.Error("Tree of a directory that does not exist did not fail")
	}
}

// TestTreeLacks: a file below the directory that holds a value fails t naming both; values
// elsewhere, or nowhere, do not.
func TestTreeLacks(t *testing.T) {
	dir := t.TempDir()
	WriteTree(t, dir, map[string]string{"a.json": `{"k":"sk-secret"}`, "sub/b.jsonl": "plain\n"})
	tests := []struct {
		name    string
		values  []string
		wantErr string
	}{
		{name: "no value held", values: []string{"sk-other", "absent"}},
		{name: "a value held below", values: []string{"plain"}, wantErr: `sub/b.jsonl holds "plain"`},
		{name: "a value held at the top", values: []string{"absent", "sk-secret"}, wantErr: `a.json holds "sk-secret"`},
		{name: "no values", values: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := record(func(r *recorder) { TreeLacks(r, dir, tc.values...) })
			if r.fatal != "" || !matches(r.errored, tc.wantErr) {
				t.Errorf("failed with %q, then %q; want %q", r.fatal, r.errored, tc.wantErr)
			}
		})
	}
}

// TestWriteTree: the files WriteTree writes, directories made, are what Tree reads back; a path
// below a file cannot be written and fails t.
func TestWriteTree(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"top.json": "1", "a/b/deep.jsonl": "2\n"}
	WriteTree(t, dir, files)
	want := map[string][]byte{"top.json": []byte("1"), "a/b/deep.jsonl": []byte("2\n")}
	if got := Tree(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("Tree after WriteTree = %q, want %q", got, want)
	}
	if _, fatal := call(func(r testing.TB) bool { WriteFile(r, filepath.Join(dir, "top.json", "x"), ""); return true }); fatal == "" {
		t.Error("WriteFile below a file did not fail")
	}
}

// TestJSONLines: each non-blank line is one value, in order; a file that cannot be read, or a line
// that does not decode, fails t naming the file and the line.
func TestJSONLines(t *testing.T) {
	type rec struct {
		A int `json:"a"`
	}
	tests := []struct {
		name      string
		content   string // "" with absent: no file
		absent    bool
		want      []rec
		wantFatal string
	}{
		{name: "lines in order", content: `{"a":2}` + "\n" + `{"a":1}` + "\n", want: []rec{{A: 2}, {A: 1}}},
		{name: "blank lines and no final newline", content: "\n" + `{"a":1}` + "\n \n" + `{"a":3}`, want: []rec{{A: 1}, {A: 3}}},
		{name: "empty file", content: "", want: nil},
		{name: "a line that does not decode", content: `{"a":1}` + "\n" + `{"a":"x"}` + "\n", wantFatal: "f.jsonl:2: json: cannot unmarshal"},
		{name: "no file", absent: true, wantFatal: "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f.jsonl")
			if !tc.absent {
				WriteFile(t, file, tc.content)
			}
			var got []rec
			_, fatal := call(func(r testing.TB) bool { got = JSONLines[rec](r, file); return true })
			if !matches(fatal, tc.wantFatal) {
				t.Fatalf("failed with %q, want %q", fatal, tc.wantFatal)
			}
			if tc.wantFatal == "" && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("JSONLines = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestBuffer: writes from several goroutines at once all reach the buffer, whole, and it can be
// read meanwhile (go test -race finds a buffer that is not locked).
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if _, err := b.Write([]byte("ab")); err != nil {
					t.Error(err)
				}
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got, want := b.String(), strings.Repeat("ab", 800); got != want {
		t.Errorf("Buffer holds %d bytes, want %d", len(got), len(want))
	}
}

func TestJSON(t *testing.T) {
	if got, want := JSON(t, map[string]any{"b": json.Number("1.50"), "a": "<x>"}), `{"a":"<x>","b":1.50}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	if _, fatal := call(func(r testing.TB) bool { JSON(r, struct{}{}); return true }); fatal == "" {
		t.Error("JSON of a value Marshal does not take did not fail")
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	WriteFile(t, good, `{"a": "b"}`)
	WriteFile(t, bad, `{"a": `)
	var m map[string]string
	if ReadJSON(t, good, &m); m["a"] != "b" || len(m) != 1 {
		t.Errorf("ReadJSON read %v", m)
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.json")} {
		if _, fatal := call(func(r testing.TB) bool { ReadJSON(r, path, &m); return true }); fatal == "" {
			t.Errorf("ReadJSON of %s did not fail", path)
		}
	}
}

func TestDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s %q", r.Method, r.URL.Path, r.Header.Get("X-T"), b)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name, method, body, header, want string
	}{
		{name: "a post with a body and a header", method: http.MethodPost, body: "x", header: "h", want: `POST /p h "x"`},
		{name: "a get without", method: http.MethodGet, want: `GET /p  ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := map[string]string{}
			if tc.header != "" {
				header["X-T"] = tc.header
			}
			b, err := io.ReadAll(Do(t, tc.method, srv.URL+"/p", header, tc.body).Body)
			if err != nil || string(b) != tc.want {
				t.Errorf("answer %q, %v; want %q", b, err, tc.want)
			}
		})
	}
	if _, fatal := call(func(r testing.TB) bool { Do(r, http.MethodGet, "http://[::1", nil, ""); return true }); fatal == "" {
		t.Error("Do of a URL that does not parse did not fail")
	}
}

// TestMCPAnswer: a notification gets 202 and no body; a response is JSON, or an SSE stream of a
// log notification and then the response, written to the body writer given.
func TestMCPAnswer(t *testing.T) {
	const resp = `{"jsonrpc":"2.0","id":1,"result":{}}`
	for _, tc := range []struct {
		name   string
		resp   []byte
		sse    bool
		status int
		ctype  string
		events []string // the SSE events' data, or
		body   string   // the JSON body
	}{
		{name: "a notification", status: http.StatusAccepted},
		{name: "a notification, sse asked", sse: true, status: http.StatusAccepted},
		{name: "json", resp: []byte(resp), status: http.StatusOK, ctype: "application/json", body: resp},
		{name: "sse", resp: []byte(resp), sse: true, status: http.StatusOK, ctype: "text/event-stream",
			events: []string{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`, resp}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			var out strings.Builder
			MCPAnswer(w, &out, tc.resp, tc.sse)
			if w.Code != tc.status || w.Header().Get("Content-Type") != tc.ctype || w.Body.Len() != 0 {
				t.Fatalf("status %d, Content-Type %q, %d bytes to w; want %d, %q and the body to out", w.Code, w.Header().Get("Content-Type"), w.Body.Len(), tc.status, tc.ctype)
			}
			body := tc.body
			for _, e := range tc.events {
				body += "event: message\ndata: " + e + "\n\n"
			}
			if out.String() != body {
				t.Errorf("body %q, want %q", out.String(), body)
			}
		})
	}
}

// TestGolden: the same bytes pass; other bytes fail naming the file, and -update writes them
// first, so they pass; a golden file that is not there is fatal.
func TestGolden(t *testing.T) {
	tests := []struct {
		name        string
		golden      string // the file's bytes; "-" for no file
		got         string
		update      bool
		wantSame    bool
		wantErrored string
		wantFatal   string
	}{
		{name: "the same bytes", golden: "a\nb\n", got: "a\nb\n", wantSame: true},
		{name: "other bytes", golden: "a\nb\n", got: "a\nc\n", wantErrored: "the output differs from"},
		{name: "other bytes with -update", golden: "a\nb\n", got: "a\nc\n", update: true, wantSame: true},
		{name: "no golden file", golden: "-", got: "a\n", wantFatal: "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.golden")
			if tc.golden != "-" {
				if err := os.WriteFile(file, []byte(tc.golden), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var same bool
			r := record(func(r *recorder) { same = Golden(r, file, []byte(tc.got), tc.update) })
			if same != tc.wantSame {
				t.Errorf("Golden = %v, want %v", same, tc.wantSame)
			}
			if !matches(r.errored, tc.wantErrored) || !matches(r.fatal, tc.wantFatal) {
				t.Errorf("errored %q, fatal %q; want %q, %q", r.errored, r.fatal, tc.wantErrored, tc.wantFatal)
			}
			if data, err := os.ReadFile(file); tc.update && (err != nil || string(data) != tc.got) {
				t.Errorf("-update left %q (%v), want %q", data, err, tc.got)
			}
		})
	}
}

// TestSARIFSchemaError: a minimal SARIF 2.1.0 log validates against the pinned schema; a log
// without its version does not; a log that is not JSON is fatal.
func TestSARIFSchemaError(t *testing.T) {
	schemaFile := filepath.Join("..", "report", "testdata", "sarif", "sarif-schema-2.1.0.json")
	tests := []struct {
		name      string
		log       string
		wantErr   string
		wantFatal string
	}{
		{name: "valid", log: `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"contractcheck"}},"results":[]}]}`},
		{name: "no version", log: `{"runs":[]}`, wantErr: "version"},
		{name: "a result uri that is no URI reference", log: `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"c"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a b%"}}}]}]}]}`, wantErr: "uri"},
		{name: "not JSON", log: `{`, wantFatal: "the SARIF output is not JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			r := record(func(r *recorder) { err = SARIFSchemaError(r, schemaFile, []byte(tc.log)) })
			if !matches(r.fatal, tc.wantFatal) {
				t.Fatalf("fatal %q, want %q", r.fatal, tc.wantFatal)
			}
			if tc.wantFatal != "" {
				return
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("SARIFSchemaError = %v, want one naming %q", err, tc.wantErr)
			}
		})
	}
}

// matches says whether got is empty when want is, and holds want when it is not.
func matches(got, want string) bool {
	if want == "" {
		return got == ""
	}
	return strings.Contains(got, want)
}

// record runs f with a recorder, which it returns with what f failed with.
func record(f func(r *recorder)) *recorder {
	r := &recorder{}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		f(r)
	}()
	return r
}

// TestTerminalSafe: a line that starts a CI runner's command, or holds a character a terminal
// must not receive, fails t naming the sink, the line and what is wrong (TerminalSafe), and is
// the problem TerminalProblem describes; escaped text, U+FFFD and line breaks pass, tabs where
// they are allowed.
func TestTerminalSafe(t *testing.T) {
	tests := []struct {
		name string
		out  string
		tabs bool
		want string // what TerminalSafe fails with, and TerminalProblem describes (without the sink); "" none
	}{
		{name: "plain lines", out: "ok\nstill ok \ufffd 表🙂\n"},
		{name: "escaped text", out: escape.Terminal("k\n::error::x\x1b[2J\u202e")},
		{name: "a workflow command", out: "ok\n::error file=X::pwned", want: `line 2 starts a CI command: "::error file=X::pwned"`},
		{name: "an azure command", out: "##vso[task.setvariable variable=x]1", want: `line 1 starts a CI command: "##vso[task.setvariable variable=x]1"`},
		{name: "ESC", out: "a\x1b[31mred", want: `line 1 holds U+001B at byte 1: "a\x1b[31mred"`},
		{name: "carriage return", out: "a\r\n", want: `line 1 holds U+000D at byte 1: "a\r"`},
		{name: "a tab where none is allowed", out: "a\tb", want: `line 1 holds U+0009 at byte 1: "a\tb"`},
		{name: "a tab where tabs are allowed", out: "a\tb", tabs: true},
		{name: "C1 control", out: "x\u009b31m", want: `line 1 holds U+009B at byte 1: "x\u009b31m"`},
		{name: "line separator", out: "x\u2028", want: `line 1 holds U+2028 at byte 1: "x\u2028"`},
		{name: "bidi override", out: "x\u202e", want: `line 1 holds U+202E at byte 1: "x\u202e"`},
		{name: "arabic letter mark", out: "x\u061c", want: `line 1 holds U+061C at byte 1: "x\u061c"`},
		{name: "invalid UTF-8", out: "x\xff", want: `line 1 holds invalid UTF-8 at byte 1: "x\xff"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			TerminalSafe(r, "stdout", tc.out, tc.tabs)
			want := ""
			if tc.want != "" {
				want = "stdout: " + tc.want
			}
			if r.errored != want {
				t.Errorf("TerminalSafe failed with %q, want %q", r.errored, want)
			}
			if got := TerminalProblem(tc.out, tc.tabs); got != tc.want {
				t.Errorf("TerminalProblem = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHostileText: a sink that writes each hostile string through escape.Terminal passes, in one
// subtest per case of the corpus.
func TestHostileText(t *testing.T) {
	var ran []string
	HostileText(t, "escaped", func(w io.Writer, s string) error {
		ran = append(ran, s)
		_, err := io.WriteString(w, "value: "+escape.Terminal(s)+"\n")
		return err
	})
	if len(ran) != len(hostile.Cases()) {
		t.Errorf("render ran %d times, want once per case (%d)", len(ran), len(hostile.Cases()))
	}
}

// TestOnceEach: each key is computed once however many goroutines ask for it at once, its error
// kept as its value is, and another key is computed apart.
func TestOnceEach(t *testing.T) {
	var o OnceEach[string, int]
	var mu sync.Mutex
	runs := map[string]int{}
	compute := func(key string) func() (int, error) {
		return func() (int, error) {
			mu.Lock()
			runs[key]++
			mu.Unlock()
			if key == "bad" {
				return 0, errors.New("boom")
			}
			return len(key), nil
		}
	}
	var wg sync.WaitGroup
	for range 8 {
		for _, key := range []string{"a", "abc", "bad"} {
			wg.Go(func() {
				v, err := o.Get(key, compute(key))
				switch {
				case key == "bad" && (err == nil || err.Error() != "boom"):
					t.Errorf("Get(bad) = %d, %v; want the error boom", v, err)
				case key != "bad" && (err != nil || v != len(key)):
					t.Errorf("Get(%s) = %d, %v; want %d", key, v, err, len(key))
				}
			})
		}
	}
	wg.Wait()
	for _, key := range []string{"a", "abc", "bad"} {
		if runs[key] != 1 {
			t.Errorf("%s computed %d times, want once", key, runs[key])
		}
	}
}

// TestFreeAddr: the address is on the loopback interface, a connection to it is refused, and a
// server can listen on it.
func TestFreeAddr(t *testing.T) {
	addr := FreeAddr(t)
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("FreeAddr = %q (%v), want a port of 127.0.0.1", addr, err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("something listens on %s", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("cannot listen on %s: %v", addr, err)
	}
	l.Close()
}

// TestLiveHeap: the figure counts what is held and not what was let go, which only a collection
// before reading it ensures.
func TestLiveHeap(t *testing.T) {
	const size = 32 << 20
	base := LiveHeap()
	held := make([]byte, size)
	for i := range held {
		held[i] = byte(i)
	}
	with := LiveHeap()
	runtime.KeepAlive(held)
	if grew := with - base; grew < size*3/4 {
		t.Errorf("holding %d bytes, the live heap grew only %d", size, grew)
	}
	if grew := LiveHeap() - base; grew >= size/2 {
		t.Errorf("after letting %d bytes go, the live heap is still %d above where it was", size, grew)
	}
}

// TestOnce: the shared value is computed on the first call only, and its error fails every
// test that asks for it.
func TestOnce(t *testing.T) {
	runs := 0
	get := Once(func() (int, error) { runs++; return 7, nil })
	var got []int
	if _, fatal := call(func(t testing.TB) bool { got = append(got, get(t), get(t)); return true }); fatal != "" || runs != 1 || !slices.Equal(got, []int{7, 7}) {
		t.Errorf("got %v, computed %d times, failed with %q; want 7 twice, computed once, no failure", got, runs, fatal)
	}
	failing := Once(func() (int, error) { runs++; return 0, errors.New("no built-in layer") })
	for range 2 {
		if _, fatal := call(func(t testing.TB) bool { failing(t); return true }); fatal != "no built-in layer" {
			t.Errorf("failed with %q, want the compute's error", fatal)
		}
	}
	if runs != 2 {
		t.Errorf("computed %d times in all, want 2", runs)
	}
}
