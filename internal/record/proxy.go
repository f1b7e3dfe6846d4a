package record

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

var randReader = rand.Reader

// readBody reads a request body up to MaxMessageBytes. When it is larger, big is true and body
// is what was read; the request's Body then yields the whole of it still, for forwarding.
func readBody(req *http.Request) (body []byte, big bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, false, nil
	}
	var b bytes.Buffer
	if req.ContentLength > 0 && req.ContentLength <= MaxMessageBytes {
		b.Grow(int(req.ContentLength) + bytes.MinRead)
	}
	_, err = b.ReadFrom(io.LimitReader(req.Body, MaxMessageBytes+1))
	body = b.Bytes()
	if err != nil {
		return nil, false, err
	}
	if len(body) > MaxMessageBytes {
		req.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), req.Body), req.Body}
		return body, true, nil
	}
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	return body, false, nil
}

// noteCredentials notes the credentials of a request (never stored; looked for in what is).
func (r *recorder) noteCredentials(req *http.Request) {
	r.creds.noteRequest(req.Header, req.URL)
}

// proxy is a reverse proxy to target: the path under prefix is appended to target's path (the
// MCP proxy: target's path is the endpoint), the query kept, nothing added (no X-Forwarded
// headers), responses flushed as they come. The MCP proxy drops the agent's Accept-Encoding: the
// transport then asks for gzip itself and hands the tap (and the agent) the response
// decompressed, the same bytes the agent would have decoded.
func (r *recorder) proxy(target *url.URL, prefix string, mcp bool, modify func(*http.Response) error) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			out := pr.Out.URL
			out.Scheme, out.Host, out.User = target.Scheme, target.Host, target.User
			if mcp {
				pr.Out.Header.Del("Accept-Encoding")
				out.Path, out.RawPath = target.Path, target.RawPath
			} else {
				rest := strings.TrimPrefix(pr.In.URL.Path, prefix)
				out.Path = strings.TrimSuffix(target.Path, "/") + rest
				out.RawPath = ""
			}
			switch {
			case target.RawQuery == "":
			case out.RawQuery == "":
				out.RawQuery = target.RawQuery
			default:
				out.RawQuery = target.RawQuery + "&" + out.RawQuery
			}
			pr.Out.Host = ""
		},
		Transport:      r.tr,
		FlushInterval:  -1,
		ModifyResponse: modify,
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // its text holds the whole URL, query (a ?key=) included
			}
			if o := outcomeOf(req.Context()); o != nil {
				o.err = err // the handler says it, with what it costs the recording
			} else {
				r.note("record: upstream %s: %s", redactURL(target.String()), r.quote(err.Error()))
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// providerProxy forwards /provider/... to the provider's base URL and hands every generation
// request's body to the engine.
func (r *recorder) providerProxy(base string) (http.Handler, error) {
	target, err := url.Parse(base)
	if err != nil {
		return nil, inputError("record: --provider: %v", err)
	}
	r.noteURL(target)
	rp := r.proxy(target, "/provider", false, func(resp *http.Response) error {
		if o := outcomeOf(resp.Request.Context()); o != nil {
			o.response(resp)
		}
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.noteCredentials(req)
		rel, u := *req, *req.URL // a shallow copy: the route reads the path, method and headers
		u.Path = strings.TrimPrefix(req.URL.Path, "/provider")
		rel.URL = &u
		if api, gen := fakeprovider.RouteAPI(&rel); gen && api != "" {
			body, big, err := readBody(req)
			switch {
			case err != nil:
				http.Error(w, "record: read the request: "+err.Error(), http.StatusBadRequest)
				return
			case big:
				r.send(event{unreadable: fmt.Sprintf("a %s request larger than %d bytes", api, MaxMessageBytes)})
			default:
				// The body goes to the engine once the answer is known (its end passed, or its
				// failure): nothing of it is written as captured before. The deferred call runs
				// when ServeHTTP panics too (http.ErrAbortHandler: the copy to the agent failed).
				r.begin()
				defer r.end()
				o := &outcome{api: api}
				defer r.providerAnswered(api, body, o)
				rp.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), outcomeKey{}, o)))
				return
			}
		}
		rp.ServeHTTP(w, req)
	}), nil
}

// providerAnswered hands a generation request's body to the engine with its answer's outcome:
// a failed one is said, counted, and its items are written execution_failed.
func (r *recorder) providerAnswered(api fakeprovider.API, body []byte, o *outcome) {
	failure := o.failure("the provider", r.ending.Load(), r.quote)
	if failure != "" {
		r.eng.count(func(s *Stats) { s.ProviderFailed++ })
		r.note("record: a provider request (%s) failed: %s", api, failure)
	}
	r.send(event{api: api, body: body, failure: failure})
}

// quote is an upstream's text as it may be shown and written (clean), or a word in its place
// when it holds a credential of the traffic (a provider that echoes the key it refused).
func (r *recorder) quote(s string) string {
	if r.creds.find([]byte(s)) != "" {
		return "(a text holding a credential of the traffic: not shown)"
	}
	return clean(s)
}

// noteURL notes the credentials an upstream URL holds itself.
func (r *recorder) noteURL(u *url.URL) {
	r.creds.noteURL(u)
}

// exchangeKey carries an MCP exchange's session name through the proxy.
type exchangeKey struct{}

// mcpProxy forwards /mcp to the MCP server's endpoint; each POST is an exchange whose request
// messages and response messages (a JSON body or an SSE stream, read as it passes) go to the
// engine.
func (r *recorder) mcpProxy(endpoint string) (http.Handler, error) {
	target, err := url.Parse(endpoint)
	if err != nil {
		return nil, inputError("record: --mcp: %v", err)
	}
	r.noteURL(target)
	rp := r.proxy(target, "/mcp", true, func(resp *http.Response) error {
		o := outcomeOf(resp.Request.Context())
		if o != nil {
			o.response(resp)
		}
		session, ok := resp.Request.Context().Value(exchangeKey{}).(string)
		if !ok || resp.Body == nil || resp.StatusCode < 200 || resp.StatusCode >= 300 {
			return nil // a status that is not a success answers nothing, whatever its body
		}
		ct := resp.Header.Get("Content-Type")
		switch {
		case strings.HasPrefix(ct, "text/event-stream"):
			resp.Body = &sseTap{body: resp.Body, r: r, session: session}
		case strings.HasPrefix(ct, "application/json"):
			resp.Body = &jsonTap{body: resp.Body, r: r, session: session}
		}
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.noteCredentials(req)
		if req.Method != http.MethodPost {
			rp.ServeHTTP(w, req)
			return
		}
		body, big, err := readBody(req)
		if err != nil {
			http.Error(w, "record: read the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		session := "http:" + strconv.FormatInt(r.exchanges.Add(1), 10)
		if big {
			r.send(event{unreadable: fmt.Sprintf("an MCP request larger than %d bytes", MaxMessageBytes)})
		} else {
			r.send(event{session: session, msg: body})
		}
		r.begin()
		defer r.end()
		o := &outcome{}
		defer func() { // run when ServeHTTP panics too (http.ErrAbortHandler)
			if f := o.failure("the MCP server", r.ending.Load(), r.quote); f != "" {
				r.send(event{session: session, failure: f})
			}
			r.send(event{session: session, endSession: true})
		}()
		ctx := context.WithValue(req.Context(), exchangeKey{}, session)
		ctx = context.WithValue(ctx, outcomeKey{}, o)
		rp.ServeHTTP(w, req.WithContext(ctx))
	}), nil
}

// jsonTap passes a JSON response body through and hands it to the engine as soon as it is a
// whole JSON value (before its last bytes reach the agent), or at its end.
type jsonTap struct {
	body    io.ReadCloser
	r       *recorder
	session string
	buf     []byte
	done    bool
}

func (t *jsonTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if !t.done {
		t.buf = append(t.buf, p[:n]...)
		switch {
		case len(t.buf) > MaxMessageBytes:
			t.done = true
			t.r.send(event{unreadable: fmt.Sprintf("an MCP response larger than %d bytes", MaxMessageBytes)})
			t.buf = nil
		case n > 0 && endsValue(t.buf) && jsonComplete(t.buf), err != nil && len(bytes.TrimSpace(t.buf)) > 0:
			t.done = true
			t.r.send(event{session: t.session, fromServer: true, msg: t.buf})
			t.buf = nil
		}
	}
	return n, err
}

func (t *jsonTap) Close() error { return t.body.Close() }

func endsValue(b []byte) bool {
	b = bytes.TrimRight(b, " \t\r\n")
	return len(b) > 0 && (b[len(b)-1] == '}' || b[len(b)-1] == ']')
}

func jsonComplete(b []byte) bool { return json.Valid(b) }

// sseTap passes an SSE response body through and hands each event's data to the engine as the
// event's last line is read (before it reaches the agent).
type sseTap struct {
	body    io.ReadCloser
	r       *recorder
	session string
	line    []byte
	data    []byte
	hasData bool
	skip    bool // the current event is past the bound
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			t.appendLine(chunk)
			break
		}
		t.appendLine(chunk[:i])
		t.lineDone()
		chunk = chunk[i+1:]
	}
	if err != nil && len(t.line) > 0 {
		t.lineDone()
	}
	if err != nil {
		t.dispatch()
	}
	return n, err
}

func (t *sseTap) appendLine(b []byte) {
	if len(t.line)+len(b) > MaxMessageBytes {
		t.skip = true
		return
	}
	t.line = append(t.line, b...)
}

func (t *sseTap) lineDone() {
	line := bytes.TrimSuffix(t.line, []byte("\r"))
	t.line = t.line[:0]
	if len(line) == 0 {
		t.dispatch()
		return
	}
	if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		v = bytes.TrimPrefix(v, []byte(" "))
		if t.hasData {
			t.data = append(t.data, '\n')
		}
		if len(t.data)+len(v) > MaxMessageBytes {
			t.skip = true
		} else {
			t.data = append(t.data, v...)
		}
		t.hasData = true
	}
}

func (t *sseTap) dispatch() {
	switch {
	case t.skip:
		t.r.send(event{unreadable: fmt.Sprintf("an MCP event larger than %d bytes", MaxMessageBytes)})
	case t.hasData && len(bytes.TrimSpace(t.data)) > 0:
		t.r.send(event{session: t.session, fromServer: true, msg: bytes.Clone(t.data)})
	}
	t.data, t.hasData, t.skip = t.data[:0], false, false
}

func (t *sseTap) Close() error { return t.body.Close() }

// The stdio endpoint receives what `record stdio` saw, in frames: a direction byte ('c' the
// agent's message to the server, 's' the server's to the agent, 'x' a message too large to
// copy), a 4-byte big-endian length and the message.
const (
	headerSession = "X-Contractcheck-Session"
	headerEvent   = "X-Contractcheck-Event"
)

func (r *recorder) stdioEndpoint(w http.ResponseWriter, req *http.Request) {
	sid := req.Header.Get(headerSession)
	if req.Method != http.MethodPost || sid == "" {
		http.Error(w, "record stdio: POST frames with "+headerSession, http.StatusBadRequest)
		return
	}
	session := "stdio:" + sid
	switch req.Header.Get(headerEvent) {
	case "open":
		r.send(event{session: session, openSession: true})
		r.stdioMu.Lock()
		r.stdioOpen[sid] = true
		r.stdioMu.Unlock()
	case "close":
		r.send(event{session: session, endSession: true})
		r.stdioMu.Lock()
		delete(r.stdioOpen, sid)
		r.stdioIdle.Broadcast()
		r.stdioMu.Unlock()
	default:
		br := bufio.NewReader(io.LimitReader(req.Body, 1<<30))
		for {
			var hdr [5]byte
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				if err != io.EOF {
					r.send(event{unreadable: "a stdio frame cut short: " + err.Error()})
				}
				break
			}
			n := binary.BigEndian.Uint32(hdr[1:])
			if hdr[0] == 'x' || n > MaxMessageBytes {
				r.send(event{unreadable: fmt.Sprintf("a stdio message larger than %d bytes", MaxMessageBytes)})
				if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
					break
				}
				continue
			}
			msg := make([]byte, n)
			if _, err := io.ReadFull(br, msg); err != nil {
				r.send(event{unreadable: "a stdio frame cut short: " + err.Error()})
				break
			}
			r.send(event{session: session, fromServer: hdr[0] == 's', msg: msg})
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// waitStdio waits up to d for the stdio sessions still open to close (their last frames).
func (r *recorder) waitStdio(d time.Duration) {
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, func() {
		r.stdioMu.Lock()
		r.stdioIdle.Broadcast()
		r.stdioMu.Unlock()
	})
	defer timer.Stop()
	r.stdioMu.Lock()
	defer r.stdioMu.Unlock()
	for len(r.stdioOpen) > 0 && time.Now().Before(deadline) {
		r.stdioIdle.Wait()
	}
	if n := len(r.stdioOpen); n > 0 {
		r.note("record: %d stdio sessions still open after %s: what they send now is not recorded", n, d)
	}
}
