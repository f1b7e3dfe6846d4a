package record

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
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
	"github.com/contractcheck/contractcheck/internal/result"
)

var randReader = rand.Reader

// readBody reads a request body, up to the largest message recorded and one byte more, into the
// spool. When it is larger, big is true and body is what was read; either way the request's Body
// then yields the whole of it, for forwarding.
func readBody(req *http.Request, sp *spool) (body blob, big bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return blob{}, false, nil
	}
	limit := sp.limit()
	w := sp.writer(req.ContentLength > int64(spoolAt))
	w.keepAll = true
	if req.ContentLength > 0 && req.ContentLength <= int64(spoolAt) {
		w.mem = make([]byte, 0, req.ContentLength)
	}
	_, err = io.Copy(w, io.LimitReader(req.Body, int64(limit)+1))
	if err != nil {
		w.discard()
		return blob{}, false, err
	}
	body, err = w.finish()
	if err != nil {
		return blob{}, false, err
	}
	rd, err := body.reader()
	if err != nil {
		return blob{}, false, err
	}
	if body.size() > limit {
		req.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(rd, req.Body), closeBoth{rd, req.Body}}
		return body, true, nil
	}
	req.Body.Close()
	req.Body = rd
	req.ContentLength = int64(body.size())
	return body, false, nil
}

// closeBoth closes two readers.
type closeBoth [2]io.Closer

func (c closeBoth) Close() error { return errors.Join(c[0].Close(), c[1].Close()) }

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
		return nil, result.Inputf("record: --provider: %v", err)
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
			body, big, err := readBody(req, r.spool)
			switch {
			case err != nil:
				http.Error(w, "record: read the request: "+err.Error(), http.StatusBadRequest)
				return
			case big:
				body.release()
				r.send(event{unreadable: fmt.Sprintf("a %s request larger than %d bytes", api, r.spool.limit())})
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
func (r *recorder) providerAnswered(api fakeprovider.API, body blob, o *outcome) {
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
		return nil, result.Inputf("record: --mcp: %v", err)
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
			resp.Body = &sseTap{body: resp.Body, r: r, session: session, head: make([]byte, 0, len("data: "))}
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
		body, big, err := readBody(req, r.spool)
		if err != nil {
			http.Error(w, "record: read the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		session := "http:" + strconv.FormatInt(r.exchanges.Add(1), 10)
		if big {
			body.release()
			r.send(event{unreadable: fmt.Sprintf("an MCP request larger than %d bytes", r.spool.limit())})
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
// whole JSON value (before its last bytes reach the agent), or at its end. Its copy goes to the
// spool as it passes; the end of the value is found by a scanner that reads each byte once.
type jsonTap struct {
	body    io.ReadCloser
	r       *recorder
	session string
	copy    *spoolWriter
	scan    valueEnd
	done    bool
}

func (t *jsonTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if t.done {
		return n, err
	}
	if t.copy == nil {
		t.copy = t.r.spool.writer(false)
	}
	chunk := p[:n]
	end := t.scan.feed(chunk)
	if end >= 0 {
		chunk = chunk[:end]
	}
	_, _ = t.copy.Write(chunk)
	switch {
	case t.copy.over:
		t.done = true
		t.copy.discard()
		t.r.send(event{unreadable: fmt.Sprintf("an MCP response larger than %d bytes", t.r.spool.limit())})
	case end >= 0, err != nil && t.scan.nonSpace:
		t.done = true
		t.r.sendCopy(t.copy, event{session: t.session, fromServer: true}, "an MCP response")
	case err != nil:
		t.done = true
		t.copy.discard()
	}
	return n, err
}

func (t *jsonTap) Close() error {
	if !t.done && t.copy != nil {
		t.done = true
		t.copy.discard()
	}
	return t.body.Close()
}

// valueEnd finds where a JSON object or array ends in a stream, a byte at a time: the depth of
// brackets outside strings. (It does not check the value: the engine does.)
type valueEnd struct {
	depth    int
	inString bool
	escaped  bool
	nonSpace bool // a byte other than white space was seen
	scalar   bool // the value is not an object or array: it ends with the stream
}

// feed scans b and returns the index just past the value's last byte, or -1 when it goes on.
func (v *valueEnd) feed(b []byte) int {
	for i, c := range b {
		if v.scalar {
			return -1
		}
		if v.inString {
			switch {
			case v.escaped:
				v.escaped = false
			case c == '\\':
				v.escaped = true
			case c == '"':
				v.inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		if !v.nonSpace {
			v.nonSpace = true
			if c != '{' && c != '[' {
				v.scalar = true
				return -1
			}
		}
		switch c {
		case '"':
			v.inString = true
		case '{', '[':
			v.depth++
		case '}', ']':
			v.depth--
			if v.depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// sendCopy hands the engine the message a spool writer holds, with ev's session and direction;
// a copy the spool could not keep is counted as not recorded.
func (r *recorder) sendCopy(w *spoolWriter, ev event, what string) {
	b, err := w.finish()
	if err != nil {
		r.send(event{unreadable: fmt.Sprintf("%s: %v", what, err)})
		return
	}
	ev.msg = b
	r.send(ev)
}

// sseTap passes an SSE response body through and hands each event's data to the engine as the
// event's last line is read (before it reaches the agent). The data goes to the spool as it
// passes; of the other lines only their first bytes (the field's name) are kept.
type sseTap struct {
	body    io.ReadCloser
	r       *recorder
	session string
	head    []byte       // the current line's first bytes, up to len("data: ") (its capacity)
	inData  bool         // the current line is a data line: its value goes to data
	cr      bool         // a '\r' of the current data line held back (dropped at its end)
	data    *spoolWriter // the current event's data
	hasData bool
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	sseLines(p[:n], t.appendLine, t.lineDone)
	if err != nil && (len(t.head) > 0 || t.inData) {
		t.lineDone()
	}
	if err != nil {
		t.dispatch()
	}
	return n, err
}

// appendLine takes more of the current line.
func (t *sseTap) appendLine(b []byte) {
	if !t.inData {
		k := min(len(b), cap(t.head)-len(t.head))
		t.head = append(t.head, b[:k]...)
		b = b[k:]
		if len(t.head) < cap(t.head) || !bytes.HasPrefix(t.head, []byte("data:")) {
			return // not a data line, or not known yet
		}
		t.startData()
	}
	t.writeData(b)
}

// startData begins a data line whose first bytes are in head.
func (t *sseTap) startData() {
	if t.data == nil {
		t.data = t.r.spool.writer(false)
	}
	if t.hasData {
		_, _ = t.data.Write([]byte{'\n'})
	}
	t.hasData, t.inData = true, true
	v := t.head[len("data:"):]
	if len(v) > 0 && v[0] == ' ' {
		v = v[1:]
	}
	t.writeData(v)
}

// writeData copies a data line's bytes, holding back a last '\r' (which ends the line when the
// '\n' follows).
func (t *sseTap) writeData(b []byte) {
	if len(b) == 0 {
		return
	}
	if t.cr {
		_, _ = t.data.Write([]byte{'\r'})
		t.cr = false
	}
	if b[len(b)-1] == '\r' {
		t.cr = true
		b = b[:len(b)-1]
	}
	_, _ = t.data.Write(b)
}

func (t *sseTap) lineDone() {
	if !t.inData && bytes.HasPrefix(t.head, []byte("data:")) {
		t.startData() // a data line shorter than its head
	}
	empty := !t.inData && (len(t.head) == 0 || string(t.head) == "\r")
	t.head, t.inData, t.cr = t.head[:0], false, false
	if empty {
		t.dispatch()
	}
}

func (t *sseTap) dispatch() {
	d := t.data
	t.data, t.hasData = nil, false
	switch {
	case d == nil:
	case d.over:
		d.discard()
		t.r.send(event{unreadable: fmt.Sprintf("an MCP event larger than %d bytes", t.r.spool.limit())})
	case !d.nonSpace:
		d.discard()
	default:
		t.r.sendCopy(d, event{session: t.session, fromServer: true}, "an MCP event")
	}
}

func (t *sseTap) Close() error {
	if t.data != nil {
		t.data.discard()
		t.data = nil
	}
	return t.body.Close()
}

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
			if hdr[0] == 'x' || int64(n) > int64(r.spool.limit()) {
				r.send(event{unreadable: fmt.Sprintf("a stdio message larger than %d bytes", r.spool.limit())})
				if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
					break
				}
				continue
			}
			cp := r.spool.writer(int64(n) > int64(spoolAt))
			if _, err := io.CopyN(cp, br, int64(n)); err != nil {
				cp.discard()
				r.send(event{unreadable: "a stdio frame cut short: " + err.Error()})
				break
			}
			r.sendCopy(cp, event{session: session, fromServer: hdr[0] == 's'}, "a stdio message")
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
