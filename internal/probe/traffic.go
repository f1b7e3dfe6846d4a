package probe

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/laneout"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/safeio"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// The traffic of a probe (--traffic) is every HTTP exchange of each run with the run's endpoints
// (the MCP server, over Streamable HTTP or relayed from stdio; the fake provider; the observe
// hook), in the order the requests arrived, one file per run:
//
//	<output>/traffic/<lane>/<version>/<configuration>/<fixture>/<repetition>.ndjson
//
// (_batch for a batch run, which no fixture id can be). The file is JSON Lines: a TrafficHeader,
// then one Exchange per line. Bodies are the exact bytes (Body). The extension is not .jsonl, so
// `check --observations DIR` never reads a traffic file as records.

// TrafficFormat and TrafficVersion name the format of a traffic file; a reader refuses another.
const (
	TrafficFormat  = "contractcheck-probe-traffic"
	TrafficVersion = 1
)

// TrafficDir is the directory below the output directory the traffic goes to, and TrafficExt the
// extension of a run's file.
const (
	TrafficDir = "traffic"
	TrafficExt = ".ndjson"
)

// batchRun is the directory of a batch run's traffic: a fixture id starts with a letter or digit.
const batchRun = "_batch"

// maxTrafficBody bounds the bytes of one body a traffic file keeps (the provider's and the MCP
// server's bound on a message); maxTrafficRun bounds a run's bodies in all (the provider's
// bound on a run's requests). Bytes past either are counted (Exchange.RequestOmitted,
// ResponseOmitted), not kept.
const (
	maxTrafficBody = fakeprovider.MaxBodyBytes
	maxTrafficRun  = fakeprovider.MaxRunBytes
)

// TrafficHeader is the first line of a run's traffic file: what ran.
type TrafficHeader struct {
	// Format is TrafficFormat; FormatVersion TrafficVersion.
	Format        string `json:"format"`
	FormatVersion int    `json:"formatVersion"`
	// Lane, LaneVersion and Configuration are the records' (--lane, --version, --configuration).
	Lane          string `json:"lane"`
	LaneVersion   string `json:"laneVersion"`
	Configuration string `json:"configuration"`
	// Run is the fixture id, or "batch" for a batch run; Fixtures the fixtures the run served.
	Run      string   `json:"run"`
	Fixtures []string `json:"fixtures"`
	// Repetition is the run's repetition, from 1.
	Repetition int `json:"repetition"`
	// Exchanges counts the lines after the header.
	Exchanges int `json:"exchanges"`
}

// Exchange is one HTTP request to a run's endpoints and the response probe gave it.
type Exchange struct {
	// Seq numbers the run's requests from 1, in the order they arrived.
	Seq int `json:"seq"`
	// Endpoint is "mcp" (the MCP server; a stdio client's messages arrive here through the
	// relay), "observe" (the observe hook) or "provider" (the fake model provider).
	Endpoint string `json:"endpoint"`
	// Method, Path and Query are the request's, the path as sent (percent-encoded) below the
	// run's base URL (its random port and token left out); credentials in the query are redacted.
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// RequestHeaders are the request's headers (canonical names), credentials redacted.
	RequestHeaders http.Header `json:"requestHeaders,omitempty"`
	// Request is the request body; RequestOmitted counts its bytes past the bounds.
	Request        Body  `json:"request"`
	RequestOmitted int64 `json:"requestOmitted,omitempty"`
	// Status is the response's status code.
	Status int `json:"status"`
	// ResponseHeaders are the headers the endpoint set (not the ones net/http adds: Date,
	// Content-Length), credentials redacted.
	ResponseHeaders http.Header `json:"responseHeaders,omitempty"`
	// Response is the response body, a stream (SSE) whole; ResponseOmitted counts its bytes
	// past the bounds.
	Response        Body  `json:"response"`
	ResponseOmitted int64 `json:"responseOmitted,omitempty"`
	// Redacted says a credential the run's requests carried (in a header or the query) was
	// found in a body of this exchange and written [redacted] there: the one change to a body's
	// bytes (an error message of the fake provider quotes the request's query, say).
	Redacted bool `json:"redacted,omitempty"`
	// Incomplete says the exchange was still under way when the run ended (a request of a
	// process the command left behind): the bodies are what had passed by then.
	Incomplete bool `json:"incomplete,omitempty"`
}

// Body is a message body's exact bytes. In JSON it is a string when the bytes are valid UTF-8
// (a JSON string holds any such text exactly), every character that is not graphic — controls,
// U+2028, U+2029, bidi and other format characters — written as a \u escape, so that the file
// itself is safe to print; and {"base64": "…"} (standard encoding, padded) when they are not.
type Body []byte

// MarshalJSON implements json.Marshaler.
func (b Body) MarshalJSON() ([]byte, error) {
	if utf8.Valid(b) {
		return []byte(escape.JSON(string(b))), nil
	}
	return json.Marshal(struct {
		Base64 string `json:"base64"`
	}{base64.StdEncoding.EncodeToString(b)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (b *Body) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*b = Body(s)
		return nil
	}
	var o struct {
		Base64 *string `json:"base64"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil || o.Base64 == nil {
		return fmt.Errorf("a body is a string or {\"base64\": …}, not %.40s", data)
	}
	raw, err := base64.StdEncoding.DecodeString(*o.Base64)
	if err != nil {
		return fmt.Errorf("a body's base64: %w", err)
	}
	*b = raw
	return nil
}

// Traffic is one run's traffic file, read back (ReadTraffic).
type Traffic struct {
	// File is the path the traffic was read from.
	File string `json:"file"`
	// Header is the file's first line; Exchanges the lines after it, in order.
	Header    TrafficHeader `json:"header"`
	Exchanges []Exchange    `json:"exchanges"`
}

// TrafficPath is the path, relative to the output directory and slash-separated, of the traffic
// of a run (a fixture's id, or _batch for a batch run) at repetition rep.
func TrafficPath(lane, version, configuration, run string, rep int) string {
	return path.Join(TrafficDir, lane, version, configuration, run, strconv.Itoa(rep)+TrafficExt)
}

// trafficRun names a run of fixtures as its traffic file does: the fixture's id, or _batch.
func trafficRun(fixtures []fixture) string {
	if len(fixtures) == 1 {
		return fixtures[0].id
	}
	return batchRun
}

// trafficLog writes each run's traffic to the output directory as the run's records are taken
// (at its end, or with --jobs once the runs before it have ended too): nothing of a run is kept
// past that, and the traffic of every run made is on disk whatever the probe ends with.
type trafficLog struct {
	o    *Options
	mu   sync.Mutex
	err  error           // the first write that failed
	runs map[string]bool // the runs written, by directory below the configuration
	// checked says the output directory was checked before the first write.
	checked bool
}

// newTrafficLog is the probe's traffic log, or nil when --traffic is off.
func newTrafficLog(o *Options) *trafficLog {
	if !o.Traffic {
		return nil
	}
	return &trafficLog{o: o, runs: map[string]bool{}}
}

// capture wraps a run's handler: every exchange through it is kept until end encodes the run's
// file, which write then writes. With no traffic log the handler is returned as it is and end
// returns nil.
func (t *trafficLog) capture(next http.Handler, fixtures []fixture, rep int) (http.Handler, func() *runTraffic) {
	if t == nil {
		return next, func() *runTraffic { return nil }
	}
	c := &runCapture{next: next, maxBody: maxTrafficBody, maxRun: maxTrafficRun}
	return c, func() *runTraffic { return t.encode(c, fixtures, rep) }
}

// runTraffic is a run's traffic file, encoded as the run ended, for write: with --jobs a run's
// file is written when its records are, in run order, and not at all for a run --max-failures
// made not run, as one run at a time would have it.
type runTraffic struct {
	run, name string // the run's directory below the configuration, and its header's name
	rep       int
	data      []byte
	err       error
}

// encode encodes one run's traffic file.
func (t *trafficLog) encode(c *runCapture, fixtures []fixture, rep int) *runTraffic {
	o := t.o
	ids := make([]string, len(fixtures))
	for i, f := range fixtures {
		ids[i] = f.id
	}
	run := trafficRun(fixtures)
	h := TrafficHeader{Format: TrafficFormat, FormatVersion: TrafficVersion, Lane: o.Lane, LaneVersion: o.Version,
		Configuration: o.Configuration, Run: run, Fixtures: ids, Repetition: rep}
	if run == batchRun {
		h.Run = "batch"
	}
	data, err := encodeTraffic(h, c.close())
	return &runTraffic{run: run, name: h.Run, rep: rep, data: data, err: err}
}

// write writes one run's traffic file, all or nothing; the first failure is finish's.
func (t *trafficLog) write(rt *runTraffic) {
	if t == nil || rt == nil {
		return
	}
	o := t.o
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	run, rep, err := rt.run, rt.rep, rt.err
	if err == nil && !fixturePattern.MatchString(run) && run != batchRun {
		err = fmt.Errorf("fixture id %s is not a name a path can hold", strconv.QuoteToGraphic(run))
	}
	if err == nil && !t.checked {
		if cerr := safeio.CheckOutputDir(o.Output, inputDirs(o)); cerr != nil {
			t.err = result.Inputf("probe: %v", cerr)
			return
		}
		t.checked = true
	}
	rel := TrafficPath(o.Lane, o.Version, o.Configuration, run, rep)
	if err == nil {
		err = safeio.WriteTree(o.Output, map[string][]byte{rel: rt.data})
	}
	if err != nil {
		t.err = fmt.Errorf("probe: write the traffic of %s repetition %d (%s): %w", rt.name, rep, rel, err)
		return
	}
	t.runs[run] = true
}

// fixturePattern is a fixture id as the contract layers allow it: a path component.
var fixturePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// finish removes, for each run written, the traffic files of repetitions past this probe's
// (an earlier probe's, with more --repetitions, which the records no longer hold), and returns the
// first error of the probe's traffic, or the directory the traffic is under ("" when none).
func (t *trafficLog) finish() (string, error) {
	if t == nil {
		return "", nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return "", t.err
	}
	if len(t.runs) == 0 {
		return "", nil
	}
	o := t.o
	root, err := os.OpenRoot(o.Output)
	if err != nil {
		return "", fmt.Errorf("probe: the traffic: %w", err)
	}
	defer root.Close()
	conf := path.Join(TrafficDir, o.Lane, o.Version, o.Configuration)
	for _, run := range slices.Sorted(func(yield func(string) bool) {
		for r := range t.runs {
			if !yield(r) {
				return
			}
		}
	}) {
		dir := path.Join(conf, run)
		entries, err := fs.ReadDir(root.FS(), dir)
		if err != nil {
			return "", fmt.Errorf("probe: the traffic under %s: %w", dir, err)
		}
		for _, e := range entries {
			n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), TrafficExt))
			if err != nil || !strings.HasSuffix(e.Name(), TrafficExt) || e.IsDir() || n <= o.Repetitions {
				continue
			}
			if err := root.Remove(path.Join(dir, e.Name())); err != nil {
				return "", fmt.Errorf("probe: remove an earlier probe's traffic: %w", err)
			}
		}
	}
	return conf, nil
}

// onlyTraffic says whether dir holds nothing but traffic/: the output of a probe that ended
// before writing its records (the provider API unknown, say), which the next probe may write into.
func onlyTraffic(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) == 1 && entries[0].Name() == TrafficDir && entries[0].IsDir()
}

// encodeTraffic is a run's traffic file: the header, then the exchanges in arrival order.
func encodeTraffic(h TrafficHeader, xs []Exchange) ([]byte, error) {
	h.Exchanges = len(xs)
	var buf bytes.Buffer
	line, err := strictjson.EncodeLine(h)
	if err != nil {
		return nil, fmt.Errorf("encode the traffic header: %w", err)
	}
	buf.Write(escapeGraphic(line))
	for i := range xs {
		line, err := strictjson.EncodeLine(&xs[i])
		if err != nil {
			return nil, fmt.Errorf("encode exchange %d: %w", xs[i].Seq, err)
		}
		buf.Write(escapeGraphic(line))
	}
	return buf.Bytes(), nil
}

// escapeGraphic writes every character of a JSON text that is not graphic (and not yet escaped:
// encoding/json escapes the controls, U+2028 and U+2029, not the bidi and other format
// characters a header value or a path may hold) as a \u escape. Such a character can only be in a
// string, where the escape means the same: the line reads back to the same values, and is safe to
// print.
func escapeGraphic(line []byte) []byte {
	var out []byte
	for i, r := range string(line) {
		if r < utf8.RuneSelf {
			if out != nil {
				out = append(out, byte(r))
			}
			continue
		}
		q := escape.JSON(string(r)) // the rune itself in quotes, or its \u escape(s)
		if q[1:len(q)-1] == string(r) && out == nil {
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(line)+16), line[:i]...)
		}
		out = append(out, q[1:len(q)-1]...)
	}
	if out == nil {
		return line
	}
	return out
}

// runCapture is the middleware of one run: it numbers each request as it arrives and keeps the
// request and response bytes, within the bounds, until close.
type runCapture struct {
	next    http.Handler
	maxBody int           // maxTrafficBody; lowered by tests
	maxRun  int64         // maxTrafficRun; lowered by tests
	settle  time.Duration // settleExchanges when 0; lowered by tests
	mu      sync.Mutex
	closed  bool
	budget  int64 // bytes of bodies kept in all
	xs      []*liveExchange
	secrets map[string]bool // credentials the run's requests carried, to redact in bodies
	// active counts the exchanges whose handler has not returned: close waits for them a while
	// (settleExchanges), since a client that read a whole response may end its run before the
	// handler that wrote it has returned.
	active sync.WaitGroup
}

// settleExchanges is how long close waits for the handlers of a run's exchanges to return once
// the run has ended: what a handler still runs after it is under way (a request of a process the
// command left behind) is marked incomplete. A handler that wrote its last byte returns at once;
// on a loaded machine the run's end can come first (TestTrafficDeterministic, under a 10M check).
const settleExchanges = 2 * time.Second

// liveExchange is an exchange under way: the middleware fills it while the handler runs.
type liveExchange struct {
	mu   sync.Mutex
	x    Exchange
	done bool
}

// keep appends p to *body within the per-body and per-run bounds, counting what is left out.
func (c *runCapture) keep(body *Body, omitted *int64, p []byte) {
	c.mu.Lock()
	room := min(int64(c.maxBody-len(*body)), c.maxRun-c.budget)
	if c.closed {
		room = 0
	}
	n := min(int64(len(p)), max(room, 0))
	c.budget += n
	c.mu.Unlock()
	*body = append(*body, p[:n]...)
	*omitted += int64(len(p)) - n
}

// ServeHTTP implements http.Handler.
func (c *runCapture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.next.ServeHTTP(w, r)
		return
	}
	lx := &liveExchange{x: Exchange{Seq: len(c.xs) + 1, Endpoint: endpointOf(r.URL.Path), Method: r.Method,
		Path: r.URL.EscapedPath(), Query: redactQuery(r.URL.RawQuery), RequestHeaders: redactHeaders(r.Header), Request: Body{}, Response: Body{}}}
	c.xs = append(c.xs, lx)
	c.active.Add(1) // under mu, before close can see closed and wait
	defer c.active.Done()
	for _, v := range secretValues(r) {
		if c.secrets == nil {
			c.secrets = map[string]bool{}
		}
		c.secrets[v] = true
	}
	c.mu.Unlock()

	// The body is read before the handler runs, so that a request the handler refuses unread
	// (an unknown path, say) is kept too; the handler reads the same bytes, and the same error.
	if r.Body != nil && r.Body != http.NoBody {
		head, err := io.ReadAll(io.LimitReader(r.Body, int64(c.maxBody)))
		lx.mu.Lock()
		c.keep(&lx.x.Request, &lx.x.RequestOmitted, head)
		lx.mu.Unlock()
		rest := io.Reader(&countingReader{r: r.Body, lx: lx})
		if err != nil {
			rest = errReader{err}
		}
		r.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(head), rest), Closer: r.Body}
	}
	c.next.ServeHTTP(&captureWriter{ResponseWriter: w, c: c, lx: lx}, r)
	lx.mu.Lock()
	if lx.x.Status == 0 {
		lx.x.Status = http.StatusOK // a handler that wrote nothing answered 200
	}
	lx.done = true
	lx.mu.Unlock()
}

// close ends the capture and returns the exchanges in arrival order; one under way is marked
// incomplete.
func (c *runCapture) close() []Exchange {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	settled := make(chan struct{})
	go func() {
		c.active.Wait()
		close(settled)
	}()
	settle := c.settle
	if settle == 0 {
		settle = settleExchanges
	}
	select {
	case <-settled:
	case <-time.After(settle):
	}
	c.mu.Lock()
	xs := slices.Clone(c.xs)
	secrets := slices.Sorted(func(yield func(string) bool) {
		for s := range c.secrets {
			if !yield(s) {
				return
			}
		}
	})
	// The longest first: a bearer header's whole value before its token.
	slices.SortStableFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	c.mu.Unlock()
	out := make([]Exchange, len(xs))
	for i, lx := range xs {
		lx.mu.Lock()
		out[i] = lx.x
		out[i].Request = slices.Clone(lx.x.Request)
		out[i].Response = slices.Clone(lx.x.Response)
		out[i].Incomplete = !lx.done
		lx.mu.Unlock()
		for _, s := range secrets {
			for _, body := range []*Body{&out[i].Request, &out[i].Response} {
				if bytes.Contains(*body, []byte(s)) {
					*body = bytes.ReplaceAll(*body, []byte(s), []byte(redacted))
					out[i].Redacted = true
				}
			}
		}
	}
	return out
}

// minSecret is the shortest credential redacted in bodies: a shorter value ("1", "x") would
// rewrite a body's ordinary bytes.
const minSecret = 8

// secretValues are the credentials r carries in its headers and query, as sent and decoded
// (a bearer token also without its scheme), but the dummy key probe hands out, which is public.
func secretValues(r *http.Request) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecret && !strings.Contains(fakeprovider.DummyKey, v) {
			out = append(out, v)
		}
	}
	for k, vs := range r.Header {
		if !secretName(k) {
			continue
		}
		for _, v := range vs {
			add(v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				add(tok)
			}
		}
	}
	for _, p := range strings.Split(r.URL.RawQuery, "&") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !secretName(k) {
			continue
		}
		add(v)
		if dv, err := url.QueryUnescape(v); err == nil {
			add(dv)
		}
	}
	return out
}

// endpointOf names the endpoint a path below a run's base URL reaches.
func endpointOf(p string) string {
	switch p {
	case "/mcp":
		return "mcp"
	case "/observe":
		return "observe"
	}
	return "provider"
}

// countingReader counts, as omitted, the bytes of a request body past the bound that the handler
// reads.
type countingReader struct {
	r  io.Reader
	lx *liveExchange
}

func (cr *countingReader) Read(p []byte) (int, error) {
	n, err := cr.r.Read(p)
	cr.lx.mu.Lock()
	cr.lx.x.RequestOmitted += int64(n)
	cr.lx.mu.Unlock()
	return n, err
}

// errReader fails every read with err: the error reading the body gave the capture.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// readCloser is a request body read from a reader and closed through the original.
type readCloser struct {
	io.Reader
	io.Closer
}

// captureWriter keeps the status, the headers the handler set and the body it wrote; it flushes
// as the handler asks (a stream reaches the client as it is written).
type captureWriter struct {
	http.ResponseWriter
	c       *runCapture
	lx      *liveExchange
	written bool
}

func (w *captureWriter) WriteHeader(code int) {
	if w.written {
		return
	}
	w.written = true
	w.lx.mu.Lock()
	w.lx.x.Status = code
	w.lx.x.ResponseHeaders = redactHeaders(w.Header())
	w.lx.mu.Unlock()
	w.ResponseWriter.WriteHeader(code)
}

func (w *captureWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.lx.mu.Lock()
	w.c.keep(&w.lx.x.Response, &w.lx.x.ResponseOmitted, p)
	w.lx.mu.Unlock()
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher: the fake provider flushes each event of a stream.
func (w *captureWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *captureWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// redacted is what a credential's value is written as.
const redacted = "[redacted]"

// secretName says whether a header or query parameter name carries a credential: the API keys a
// probe hands out are dummies, but an agent may send a real one it holds.
func secretName(name string) bool {
	n := strings.ToLower(name)
	if n == "key" || n == "cookie" || n == "set-cookie" {
		return true
	}
	for _, w := range []string{"auth", "api-key", "api_key", "apikey", "token", "secret", "password", "credential", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// redactHeaders copies h, every credential's value written as [redacted].
func redactHeaders(h http.Header) http.Header {
	if len(h) == 0 {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		vs = slices.Clone(vs)
		if secretName(k) {
			for i := range vs {
				vs[i] = redacted
			}
		}
		out[k] = vs
	}
	return out
}

// redactQuery is a raw query with the values of credential parameters written as [redacted],
// everything else as it came.
func redactQuery(q string) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		if ok && secretName(k) {
			parts[i] = k + "=" + redacted
		}
	}
	return strings.Join(parts, "&")
}

// ReadTraffic reads a run's traffic file, at most limit bytes (0: no limit).
func ReadTraffic(file string, limit int64) (*Traffic, error) {
	if limit <= 0 {
		limit = 1 << 40
	}
	data, err := safeio.ReadPath(file, limit)
	if err != nil {
		return nil, fmt.Errorf("traffic %s: %w", file, err)
	}
	t := &Traffic{File: file}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			if err := json.Unmarshal(b, &t.Header); err != nil || t.Header.Format != TrafficFormat {
				return nil, fmt.Errorf("traffic %s:1: not a probe's traffic file (a header with format %q)", file, TrafficFormat)
			}
			if t.Header.FormatVersion != TrafficVersion {
				return nil, fmt.Errorf("traffic %s:1: format version %d; this contractcheck reads version %d", file, t.Header.FormatVersion, TrafficVersion)
			}
			continue
		}
		var x Exchange
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&x); err != nil {
			return nil, fmt.Errorf("traffic %s:%d: not an exchange: %w", file, line, err)
		}
		t.Exchanges = append(t.Exchanges, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("traffic %s: %w", file, err)
	}
	switch {
	case line == 0:
		return nil, fmt.Errorf("traffic %s: empty: not a probe's traffic file", file)
	case len(t.Exchanges) != t.Header.Exchanges:
		return nil, fmt.Errorf("traffic %s: %d exchanges, the header says %d", file, len(t.Exchanges), t.Header.Exchanges)
	}
	return t, nil
}

// FindTraffic finds the traffic file of fixture's run at repetition rep below a probe's output
// directory: the fixture's own run, else a batch run that served it. Empty lane, version or
// configuration match any; more than one match is an input error that lists them.
func FindTraffic(output, lane, version, configuration, fixture string, rep int) (string, error) {
	switch {
	case rep < 1:
		return "", result.Inputf("traffic: repetition %d: a repetition counts from 1", rep)
	case !fixturePattern.MatchString(fixture):
		return "", result.Inputf("traffic: fixture %s: a fixture id is a letter or digit, then letters, digits, '_' or '-'", strconv.QuoteToGraphic(fixture))
	case lane != "" && !laneout.NameRE.MatchString(lane):
		return "", result.Inputf("traffic: lane %s: not a lane name", strconv.QuoteToGraphic(lane))
	case version != "" && !laneout.VersionRE.MatchString(version):
		return "", result.Inputf("traffic: version %s: not a version", strconv.QuoteToGraphic(version))
	case configuration != "" && !laneout.NameRE.MatchString(configuration):
		return "", result.Inputf("traffic: configuration %s: not a configuration name", strconv.QuoteToGraphic(configuration))
	}
	orAny := func(s string) string {
		if s == "" {
			return "*"
		}
		return s
	}
	dir := filepath.Join(output, TrafficDir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", result.Inputf("traffic: %s holds no traffic/ directory (a probe writes it with --traffic)", output)
	}
	fsys := os.DirFS(dir)
	for _, run := range []string{fixture, batchRun} {
		matches, err := fs.Glob(fsys, path.Join(orAny(lane), orAny(version), orAny(configuration), run, strconv.Itoa(rep)+TrafficExt))
		if err != nil {
			return "", fmt.Errorf("traffic: %w", err)
		}
		var files []string
		for _, m := range matches {
			file := filepath.Join(dir, filepath.FromSlash(m))
			if run == batchRun {
				if t, err := ReadTraffic(file, 0); err != nil || !slices.Contains(t.Header.Fixtures, fixture) {
					continue
				}
			}
			files = append(files, file)
		}
		switch len(files) {
		case 0:
			continue
		case 1:
			return files[0], nil
		default:
			return "", result.Inputf("traffic: %d runs of %s repetition %d under %s (%s): name the lane, version and configuration", len(files), fixture, rep, output, strings.Join(files, ", "))
		}
	}
	return "", result.Inputf("traffic: no traffic of %s repetition %d under %s", fixture, rep, dir)
}
