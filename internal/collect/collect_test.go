package collect

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/decisionlog"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// directPaper is a scope whose matrix the built-in records cover whole, with no visibility
// readout (a decision log holds no carrier to read it from).
var directPaper = inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Suites: []string{"paper"}}}

// chunks cuts events into batches of n.
func chunks(events []map[string]any, n int) [][]map[string]any {
	var out [][]map[string]any
	for len(events) > 0 {
		k := min(n, len(events))
		out = append(out, events[:k])
		events = events[k:]
	}
	return out
}

// post sends a batch as OPA's plugin does (v1/plugins/logs/plugin.go doUploadChunk): POST,
// Content-Type application/json, Content-Encoding gzip, the bearer token when given.
func post(t testing.TB, url, token string, body []byte, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the answer is not a JSON object: %v: %s", err, data)
	}
	return resp.StatusCode, doc
}

func loaded(t testing.TB, opts inputs.Options) *instrument.Instrument {
	t.Helper()
	in, err := instrument.Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// consoleLog writes events as OPA's console plugin does, one JSON object per line.
func consoleLog(t *testing.T, events []map[string]any) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "opa.log")
	if err := os.WriteFile(p, reportkit.ConsoleLog(t, events), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCollectAgreesWithCheck: the decisions on the built-in records of a scope, uploaded in gzip
// batches to collect (half to one collector, the rest to another started on the same directory
// after the first stopped, with the temporary file of a write a crash cut short left behind),
// are all on disk, numbered on from the first run; check --decision-logs DIR gives check's own
// report, byte for byte in JSON and text, and the report of the same decisions logged to the
// console; and it says the batches' window.
func TestCollectAgreesWithCheck(t *testing.T) {
	ctx := context.Background()
	events := reportkit.DecisionEvents(t, directPaper)
	want, err := check.Run(ctx, directPaper)
	if err != nil {
		t.Fatal(err)
	}
	in := loaded(t, inputs.Options{})
	dir := filepath.Join(t.TempDir(), "batches")
	batches := chunks(events, 17)
	first := len(batches) / 2
	serve := func() (*Collector, *httptest.Server) {
		c, err := New(in, Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return c, httptest.NewServer(c)
	}
	c1, s1 := serve()
	for i, b := range batches[:first] {
		status, doc := post(t, s1.URL+DefaultPath, "", reportkit.GzipBatch(t, b), nil)
		if status != http.StatusOK || doc["batch"] != float64(i+1) || doc["decisions"] != float64(len(b)) {
			t.Fatalf("batch %d: HTTP %d %v", i+1, status, doc)
		}
	}
	s1.Close() // a restart: what was acknowledged is on disk
	if _, err := New(in, Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "another collect writes to it") {
		t.Errorf("a second collector on the directory of a running one: %v", err)
	}
	if err := c1.Close(); err != nil {
		t.Fatal(err)
	}
	if st := c1.Status(); st.Accepted.Batches != int64(first) || st.LastBatch != uint64(first) {
		t.Errorf("status after the first run: %+v", st)
	}
	stale := filepath.Join(dir, tmpPrefix+decisionlog.BatchFileName(99, c1.opts.Now()))
	if err := os.WriteFile(stale, []byte("\x1f\x8b half a batch"), 0o600); err != nil {
		t.Fatal(err)
	}
	c2, s2 := serve()
	defer s2.Close()
	defer c2.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the unfinished write %s is still there after the restart (%v)", stale, err)
	}
	for i, b := range batches[first:] {
		status, doc := post(t, s2.URL+DefaultPath, "", reportkit.GzipBatch(t, b), nil)
		if status != http.StatusOK || doc["batch"] != float64(first+i+1) {
			t.Fatalf("batch %d after the restart: HTTP %d %v", first+i+1, status, doc)
		}
	}
	names, err := Batches(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(batches) {
		t.Fatalf("%d batch files, want %d: %v", len(names), len(batches), names)
	}
	st := c2.Status()
	if st.Accepted.Decisions != int64(len(events)-len(events[:first*17])) || st.LastBatch != uint64(len(batches)) {
		t.Errorf("status after the restart: %+v", st)
	}
	got, counts, err := check.RunDecisionLogs(ctx, directPaper, check.DecisionLogs{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	console, _, err := check.RunDecisionLogs(ctx, directPaper, check.DecisionLogs{Paths: []string{consoleLog(t, events)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "text"} {
		g := reportkit.Render(t, got, format)
		if w := reportkit.Render(t, want, format); g != w {
			t.Errorf("%s report from collect's directory differs from check's", format)
		}
		if w := reportkit.Render(t, console, format); g != w {
			t.Errorf("%s report from collect's directory differs from the console log's", format)
		}
	}
	if w := counts.Window; w.Batches != len(batches) || w.FirstSeq != 1 || w.LastSeq != uint64(len(batches)) || w.First.IsZero() {
		t.Errorf("window %+v, want %d batches from 1", w, len(batches))
	}
	if !strings.Contains(counts.String(), fmt.Sprintf("%d batches collected, sequence 1 to %d", len(batches), len(batches))) {
		t.Errorf("the note does not say the window: %s", counts)
	}
}

// TestCollectReadWhileWriting: a report over collect's directory while a batch is being written
// reads the batches before it and never the half-written one (it is under a name the reader
// skips until it is renamed whole).
func TestCollectReadWhileWriting(t *testing.T) {
	ctx := context.Background()
	events := reportkit.DecisionEvents(t, directPaper)
	dir := t.TempDir()
	checked := 0
	var c *Collector
	var err error
	opts := Options{Dir: dir, midWrite: func(tmp string) {
		checked++
		// The batch half on disk is not read: the report holds the batches before it (and
		// before the first there is none to read).
		written := int(c.Status().Accepted.Batches)
		_, counts, err := check.RunDecisionLogs(ctx, directPaper, check.DecisionLogs{Paths: []string{dir}})
		if written == 0 {
			if err == nil || !strings.Contains(err.Error(), "holds no file") {
				t.Errorf("a report while the first batch is half written: %v, want no file read", err)
			}
			return
		}
		if err != nil {
			t.Errorf("a report while batch %s is half written: %v", filepath.Base(tmp), err)
			return
		}
		if counts.Window.Batches != written {
			t.Errorf("a report while a batch is half written reads %d batches, want the %d written", counts.Window.Batches, written)
		}
	}}
	c, err = New(loaded(t, inputs.Options{}), opts)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(c)
	defer s.Close()
	for _, b := range chunks(events, len(events)/3+1) {
		if status, doc := post(t, s.URL+DefaultPath, "", reportkit.GzipBatch(t, b), nil); status != http.StatusOK {
			t.Fatalf("HTTP %d %v", status, doc)
		}
	}
	if checked < 3 {
		t.Fatalf("the write hook ran %d times", checked)
	}
}

// TestCollectRefuses: each kind of bad request is refused with its status and a JSON body naming
// the reason (and for an event, its place in the batch, its decision id and the member at
// fault), counted by reason, and nothing of the batch is written: a batch is never half taken.
func TestCollectRefuses(t *testing.T) {
	events := reportkit.DecisionEvents(t, inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Fixtures: []string{"C05"}}})
	if len(events) < 3 {
		t.Fatalf("%d events", len(events))
	}
	good := events[:3]
	edit := func(i int, f func(ev map[string]any)) []byte {
		evs := make([]map[string]any, len(good))
		for j, ev := range good {
			evs[j] = maps.Clone(ev)
			evs[j]["result"] = maps.Clone(ev["result"].(map[string]any))
		}
		f(evs[i])
		return reportkit.GzipBatch(t, evs)
	}
	const token = "s3cret-token"
	for _, tc := range []struct {
		name     string
		body     []byte
		headers  map[string]string
		token    string
		status   int
		reason   string
		event    int
		member   string
		decision string
		pointer  string // the JSON pointer in the batch, "" for none
	}{
		{name: "no bearer token", body: reportkit.GzipBatch(t, good), status: http.StatusUnauthorized, reason: ReasonUnauthorized},
		{name: "a wrong bearer token", body: reportkit.GzipBatch(t, good), token: "s3cret-tokem", status: http.StatusUnauthorized, reason: ReasonUnauthorized},
		{name: "not gzip", body: []byte(`[]`), token: token, status: http.StatusBadRequest, reason: ReasonNotGzip},
		{name: "no Content-Encoding", body: []byte(`[]`), token: token, headers: map[string]string{"Content-Encoding": ""}, status: http.StatusUnsupportedMediaType, reason: ReasonNotGzip},
		{name: "a truncated gzip stream", body: reportkit.GzipBatch(t, good)[:40], token: token, status: http.StatusBadRequest, reason: ReasonNotGzip},
		{name: "not JSON", body: reportkit.Gzip(t, []byte(`[{"decision_id": "a",`)), token: token, status: http.StatusBadRequest, reason: ReasonNotJSON, event: 1, pointer: "/0"},
		{name: "a duplicate key", body: reportkit.Gzip(t, []byte(`[{"decision_id": "a", "decision_id": "b"}]`)), token: token, status: http.StatusBadRequest, reason: ReasonNotJSON, event: 1, pointer: "/0"},
		{name: "a duplicate key in the second event", body: reportkit.Gzip(t, []byte(`[1, {"decision_id": "a", "decision_id": "b"}]`)), token: token, status: http.StatusBadRequest, reason: ReasonNotJSON, event: 2, pointer: "/1"},
		{name: "a bad event, then bad JSON", body: reportkit.Gzip(t, []byte(`[1, 2, {"decision_id": "a"`)), token: token, status: http.StatusBadRequest, reason: ReasonNotJSON, event: 3, pointer: "/2"},
		{name: "bad JSON between events", body: reportkit.Gzip(t, []byte(`[{} {}]`)), token: token, status: http.StatusBadRequest, reason: ReasonNotJSON},
		{name: "a bad event, then over the batch limit", token: token, body: reportkit.Gzip(t, append([]byte(`[1, "`), bytes.Repeat([]byte{'x'}, 300<<10)...)), status: http.StatusRequestEntityTooLarge, reason: ReasonTooLarge},
		{name: "a bad event, then a gzip stream cut short", token: token, body: func() []byte {
			b := reportkit.Gzip(t, append([]byte(`[1, "`), bytes.Repeat([]byte("xyz"), 1000)...))
			return b[:len(b)-4]
		}(), status: http.StatusBadRequest, reason: ReasonNotGzip},
		{name: "not an array", body: reportkit.Gzip(t, []byte(`{"decision_id": "a"}`)), token: token, status: http.StatusBadRequest, reason: ReasonNotJSON},
		{name: "an event that is not an object", body: reportkit.Gzip(t, []byte(`[1]`)), token: token, status: http.StatusUnprocessableEntity, reason: ReasonShape, event: 1, pointer: "/0"},
		{name: "a repetition that is not a number", token: token, body: edit(1, func(ev map[string]any) { ev["result"].(map[string]any)["repetition"] = "two" }),
			status: http.StatusUnprocessableEntity, reason: ReasonShape, event: 2, member: "/result/repetition", decision: "id-1", pointer: "/1/result/repetition"},
		{name: "no result", token: token, body: edit(2, func(ev map[string]any) { delete(ev, "result") }),
			status: http.StatusUnprocessableEntity, reason: ReasonShape, event: 3, member: "/result", decision: "id-2", pointer: "/2/result"},
		{name: "an unknown fixture", token: token, body: edit(2, func(ev map[string]any) { ev["result"].(map[string]any)["fixture"] = "NOPE-1" }),
			status: http.StatusUnprocessableEntity, reason: ReasonUnknownFixture, event: 3, member: "/result/fixture", decision: "id-2", pointer: "/2/result/fixture"},
		{name: "an unknown lane", token: token, body: edit(1, func(ev map[string]any) { ev["result"].(map[string]any)["lane"] = "nolane" }),
			status: http.StatusUnprocessableEntity, reason: ReasonShape, event: 2, member: "/result/lane", decision: "id-1", pointer: "/1/result/lane"},
		{name: "another profile", token: token, body: edit(0, func(ev map[string]any) { ev["result"].(map[string]any)["profile"] = "optional-null" }),
			status: http.StatusUnprocessableEntity, reason: ReasonShape, event: 1, member: "/result/profile", decision: "id-0", pointer: "/0/result/profile"},
		{name: "a hostile decision id", token: token, body: edit(0, func(ev map[string]any) {
			ev["decision_id"] = "<script>\u2028::error::x"
			ev["result"].(map[string]any)["repetition"] = "x"
		}), status: http.StatusUnprocessableEntity, reason: ReasonShape, event: 1, member: "/result/repetition", decision: "<script>\u2028::error::x", pointer: "/0/result/repetition"},
		{name: "over the body limit", token: token, body: reportkit.Gzip(t, bytes.Repeat([]byte{'x'}, 1<<20)), status: http.StatusRequestEntityTooLarge, reason: ReasonTooLarge},
		{name: "over the batch limit decompressed", token: token, body: reportkit.Gzip(t, bytes.Repeat([]byte{' '}, 300<<10)), status: http.StatusRequestEntityTooLarge, reason: ReasonTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c, err := New(loaded(t, inputs.Options{}), Options{Dir: dir, Token: token, MaxBody: 64 << 10, MaxBatch: 256 << 10})
			if err != nil {
				t.Fatal(err)
			}
			s := httptest.NewServer(c)
			defer s.Close()
			status, doc := post(t, s.URL+DefaultPath, tc.token, tc.body, tc.headers)
			if status != tc.status || doc["reason"] != tc.reason {
				t.Fatalf("HTTP %d %v, want %d %s", status, doc, tc.status, tc.reason)
			}
			if msg, _ := doc["error"].(string); msg == "" {
				t.Errorf("no error message: %v", doc)
			}
			if tc.event != 0 && doc["event"] != float64(tc.event) {
				t.Errorf("event %v, want %d: %v", doc["event"], tc.event, doc)
			}
			if doc["member"] != nil && tc.member == "" || tc.member != "" && doc["member"] != tc.member {
				t.Errorf("member %v, want %q: %v", doc["member"], tc.member, doc)
			}
			if p, _ := doc["pointer"].(string); p != tc.pointer {
				t.Errorf("pointer %q, want %q: %v", p, tc.pointer, doc)
			}
			if tc.decision != "" && doc["decision_id"] != tc.decision {
				t.Errorf("decision_id %v, want %q", doc["decision_id"], tc.decision)
			}
			if names, err := Batches(dir); err != nil || len(names) != 0 {
				t.Errorf("a refused batch was written: %v %v", names, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != lockName {
				t.Errorf("the directory holds %d files after a refusal, want only %s", len(entries), lockName)
			}
			if st := c.Status(); st.Refused[tc.reason] != 1 || st.Accepted.Batches != 0 {
				t.Errorf("status %+v, want 1 refused for %s", st, tc.reason)
			}
			// The good batch is taken after the bad one.
			if status, doc := post(t, s.URL+DefaultPath, token, reportkit.GzipBatch(t, good), nil); status != http.StatusOK {
				t.Errorf("the good batch after: HTTP %d %v", status, doc)
			}
		})
	}
	t.Run("the body escapes what it quotes", func(t *testing.T) {
		c, err := New(loaded(t, inputs.Options{}), Options{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, DefaultPath, bytes.NewReader(edit(0, func(ev map[string]any) {
			ev["decision_id"] = "<script>\u2028"
			ev["result"].(map[string]any)["repetition"] = "x"
		})))
		req.Header.Set("Content-Encoding", "gzip")
		c.ServeHTTP(rec, req)
		if body := rec.Body.String(); strings.Contains(body, "<script>") || strings.Contains(body, "\u2028") {
			t.Errorf("the refusal quotes a hostile id raw: %s", body)
		}
	})
	t.Run("method and path", func(t *testing.T) {
		c, err := New(loaded(t, inputs.Options{}), Options{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			name, method, path string
			status             int
		}{
			{"GET the upload path", http.MethodGet, DefaultPath, http.StatusMethodNotAllowed},
			{"POST the status", http.MethodPost, StatusPath, http.StatusMethodNotAllowed},
			{"another path", http.MethodPost, "/v1/logs", http.StatusNotFound},
			{"GET the status", http.MethodGet, StatusPath, http.StatusOK},
		} {
			rec := httptest.NewRecorder()
			c.ServeHTTP(rec, httptest.NewRequest(r.method, r.path, nil))
			if rec.Code != r.status || !json.Valid(rec.Body.Bytes()) {
				t.Errorf("%s: HTTP %d %s, want %d", r.name, rec.Code, rec.Body, r.status)
			}
		}
		if st := c.Status(); st.Refused[ReasonMethod] != 2 || st.Refused[ReasonNotFound] != 1 {
			t.Errorf("status %+v", st)
		}
	})
}

// TestCollectListen: an address beyond loopback needs TLS and a bearer token, or collect does not
// start (an input error, exit 2); half a TLS pair and an empty token file are refused too.
func TestCollectListen(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	empty := filepath.Join(dir, "empty")
	os.WriteFile(token, []byte("  tok\n"), 0o600)
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" to start
	}{
		{name: "loopback", cfg: Config{Listen: "127.0.0.1:0"}},
		{name: "the default", cfg: Config{}},
		{name: "ipv6 loopback", cfg: Config{Listen: "[::1]:0"}},
		{name: "every address, no TLS", cfg: Config{Listen: "0.0.0.0:8282", TokenFile: token}, want: "not a loopback address"},
		{name: "every address, no token", cfg: Config{Listen: ":8282", TLSCert: "c.pem", TLSKey: "k.pem"}, want: "not a loopback address"},
		{name: "half a TLS pair", cfg: Config{Listen: "127.0.0.1:0", TLSCert: "c.pem"}, want: "both --tls-cert and --tls-key"},
		{name: "an empty token file", cfg: Config{Listen: "127.0.0.1:0", TokenFile: empty}, want: "holds no token"},
		{name: "no port", cfg: Config{Listen: "127.0.0.1"}, want: "--listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Dir = filepath.Join(t.TempDir(), "b")
			cfg.Instrument = inputs.Options{}
			_, err := Prepare(context.Background(), &cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if code := result.ExitCode(err); code != result.ExitInputError {
				t.Errorf("exit %d, want %d", code, result.ExitInputError)
			}
		})
	}
	cfg := Config{Listen: "127.0.0.1:0", TokenFile: token, Options: Options{Dir: filepath.Join(dir, "b")}}
	c, err := Prepare(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.opts.Token != "tok" {
		t.Errorf("token %q, want the file's trimmed as OPA trims a token_path", c.opts.Token)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key to dir, and returns their paths and
// the certificate pool that trusts it.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "collect"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestCollectServesTLS: with a certificate and a token collect serves HTTPS: an upload with the
// token over TLS is taken, one without is refused (401) and said on the log, plain HTTP gets
// no answer of collect's; on cancel it stops and says its counters.
func TestCollectServesTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte("tls-token\n"), 0o600)
	var log bytes.Buffer
	cfg := Config{Listen: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile, TokenFile: tokenFile,
		Options: Options{Dir: filepath.Join(dir, "batches"), Log: &log}}
	c, err := Prepare(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, c, ln, cfg, &stderr) }()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	events := reportkit.DecisionEvents(t, inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Fixtures: []string{"C05"}}})
	upload := func(url, token string) (int, error) {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(reportkit.GzipBatch(t, events)))
		req.Header.Set("Content-Encoding", "gzip")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	base := "https://" + ln.Addr().String() + DefaultPath
	for _, tc := range []struct {
		name, url, token string
		status           int
	}{
		{"HTTPS with the token", base, "tls-token", http.StatusOK},
		{"HTTPS without it", base, "", http.StatusUnauthorized},
		{"plain HTTP", "http://" + ln.Addr().String() + DefaultPath, "tls-token", http.StatusBadRequest},
	} {
		status, err := upload(tc.url, tc.token)
		if err != nil || status != tc.status {
			t.Errorf("%s: HTTP %d %v, want %d", tc.name, status, err, tc.status)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := c.Status(); st.Accepted.Batches != 1 || st.Refused[ReasonUnauthorized] != 1 {
		t.Errorf("status %+v", st)
	}
	if !strings.Contains(log.String(), `collect: refused POST "/logs" from 127.0.0.1:`) || !strings.Contains(log.String(), "401 unauthorized") {
		t.Errorf("the refusal is not on the log:\n%s", log.String())
	}
	if !strings.Contains(stderr.String(), "https://") || !strings.Contains(stderr.String(), "collect: stopped; accepted 1 batches") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestCollectStorageFailure: a batch that cannot be written durably (here its directory is gone)
// is answered 500, which OPA retries, counted as storage, and leaves nothing behind; the same
// batch posted again once the directory is back is taken.
func TestCollectStorageFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "batches")
	c, err := New(loaded(t, inputs.Options{}), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(c)
	defer s.Close()
	body := reportkit.GzipBatch(t, reportkit.DecisionEvents(t, inputs.Options{Scope: result.Scope{Lanes: []string{"direct"}, Fixtures: []string{"C05"}}}))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	status, doc := post(t, s.URL+DefaultPath, "", body, nil)
	if status != http.StatusInternalServerError || doc["reason"] != ReasonStorage {
		t.Fatalf("HTTP %d %v, want 500 %s", status, doc, ReasonStorage)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if status, doc := post(t, s.URL+DefaultPath, "", body, nil); status != http.StatusOK {
		t.Fatalf("the batch posted again: HTTP %d %v", status, doc)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("the directory holds %d files (%v), want the one batch", len(entries), err)
	}
	if st := c.Status(); st.Refused[ReasonStorage] != 1 || st.Accepted.Batches != 1 {
		t.Errorf("status %+v", st)
	}
}
