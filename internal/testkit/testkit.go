// Package testkit holds the small checks that the tests of many packages share, so that each is
// written once. It imports nothing of this module but strictjson, escape and hostile (which
// import nothing of it), so the tests of any package but those three can use it (package
// reportkit holds the helpers that need the engine).
package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MCPAnswer writes a stand-in MCP server's Streamable HTTP answer to one JSON-RPC message, resp
// (nil for a notification, which gets 202 Accepted and no body). With sse it is an SSE stream
// whose first event is a log notification and whose second is resp, as a server that reports
// progress before its result sends it; otherwise resp is the JSON body. The body is written to
// out, w itself or a writer over it (a compressor whose header the caller set).
func MCPAnswer(w http.ResponseWriter, out io.Writer, resp []byte, sse bool) {
	switch {
	case resp == nil:
		w.WriteHeader(http.StatusAccepted)
	case sse:
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(out, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
		_, _ = io.WriteString(out, "event: message\ndata: "+string(resp)+"\n\n")
	default:
		w.Header().Set("Content-Type", "application/json")
		_, _ = out.Write(resp)
	}
}

// ErrCase holds err to a table case's expected error want: with want empty, err must be nil (t
// fails at once otherwise) and ErrCase returns false, the case goes on; with want given, err must
// hold want (t fails at once otherwise) and ErrCase returns true, the case is done.
func ErrCase(t testing.TB, err error, want string) bool {
	t.Helper()
	return errCase(t, err, want, strings.Contains, "containing")
}

// ErrPrefixCase is ErrCase for an error that must start with want.
func ErrPrefixCase(t testing.TB, err error, want string) bool {
	t.Helper()
	return errCase(t, err, want, strings.HasPrefix, "starting")
}

func errCase(t testing.TB, err error, want string, match func(s, want string) bool, how string) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return false
	}
	if err == nil || !match(err.Error(), want) {
		t.Fatalf("error %v, want one %s %q", err, how, want)
	}
	return true
}

// Tree reads every file below dir, keyed by its slash-separated path relative to dir; t fails
// at once when dir cannot be walked or a file read.
func Tree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TreeLacks fails t (and goes on) for each file below dir that holds one of values, naming the
// file and the value: what a test asks of an output that must not keep a credential or a redacted
// value. t fails at once when dir cannot be read (Tree).
func TreeLacks(t testing.TB, dir string, values ...string) {
	t.Helper()
	files := Tree(t, dir)
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		for _, v := range values {
			if bytes.Contains(files[p], []byte(v)) {
				t.Errorf("%s holds %q", p, v)
			}
		}
	}
}

// Buffer is a bytes.Buffer that goroutines (a server's output, a command's log) may write while
// a test reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// FreeAddr is a loopback address (host:port) no one listens on: a port the system handed out
// and that was closed again, for a server a test starts or for a refused connection. t fails at
// once when no port can be had.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// WriteFile writes content to path, making its directories; t fails at once when it cannot.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteTree writes files (slash-separated path relative to dir → content) below dir with
// WriteFile: Tree's inverse.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		WriteFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
}

// ReadJSON decodes the JSON file at path into v (encoding/json); t fails at once when it cannot
// be read or decoded: test data several packages' tests share (a table of cases beside a layer).
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// JSON is v as strictjson.Marshal writes it (canonical: sorted keys, numbers as spelled); t fails
// at once when v is not a tree Marshal takes.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := strictjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// JSONLines is each line of the JSON Lines file file decoded into a T with encoding/json, in
// order; blank lines are passed over. t fails at once when file cannot be read or a line decoded,
// naming the file and the line.
func JSONLines[T any](t testing.TB, file string) []T {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%s:%d: %v", file, i+1, err)
		}
		out = append(out, v)
	}
	return out
}

// Do sends one request with http.DefaultClient, header's members set and body (none when empty),
// and returns the response, its body unread and closed when t ends; t fails at once when the
// request cannot be made or sent.
func Do(t testing.TB, method, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Golden holds got to the golden file file and says whether they are the same bytes; with update
// (the test package's -update flag) it first writes got to file. t fails at once when file
// cannot be written or read, and fails (goes on) when the bytes differ, naming file.
func Golden(t testing.TB, file string, got []byte, update bool) bool {
	t.Helper()
	if update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the output differs from %s (go test -update in its package rewrites it)", file)
		return false
	}
	return true
}

// SARIFSchemaError is why log is not a valid SARIF 2.1.0 log by the schema at schemaFile (the
// pinned one: internal/report/testdata/sarif/sarif-schema-2.1.0.json), formats asserted (a
// result's uri must be a URI reference), or nil when it is; t fails at once when the schema does
// not load or log is not JSON.
func SARIFSchemaError(t testing.TB, schemaFile string, log []byte) error {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		t.Fatalf("the SARIF output is not JSON: %v", err)
	}
	return s.Validate(inst)
}
