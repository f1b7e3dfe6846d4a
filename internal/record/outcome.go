package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	sink "github.com/contractcheck/contractcheck/internal/escape" // redact.go has an escape of its own
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// What the recorder keeps of an upstream's answer to tell a success from a failure: the first
// headBytes of a body that is not an event stream (an error's message is read from them), an
// event stream's current event up to maxScanEvent bytes (a longer event is passed on unread: its
// data is not looked into), and at most maxErrorText bytes of the upstream's message, escaped.
const (
	headBytes    = 64 << 10
	maxScanEvent = 1 << 20
	maxErrorText = 512
)

// outcome is what became of one exchange with an upstream (the provider or the MCP server), as
// the proxy saw its answer pass. The ReverseProxy fills it in (ErrorHandler, ModifyResponse) and
// its body's reads update it, all on the handler's goroutine, inside ServeHTTP; it is read once
// ServeHTTP has returned.
type outcome struct {
	// api is the provider API whose answer this is ("" for the MCP server).
	api fakeprovider.API
	// err is why no answer came (the transport's error: a refused connection, a name that did
	// not resolve, the request cancelled); nil when one did.
	err error
	// status is the answer's HTTP status (0 when none came), compressed whether its body is
	// content-encoded (only its status and transport are then looked at).
	status     int
	statusText string
	compressed bool
	body       *outcomeBody
}

// outcomeKey carries an exchange's *outcome through the ReverseProxy (the request's context).
type outcomeKey struct{}

// outcomeOf returns the outcome the request's context carries, or nil.
func outcomeOf(ctx context.Context) *outcome {
	o, _ := ctx.Value(outcomeKey{}).(*outcome)
	return o
}

// response notes the answer's status and wraps its body to watch it pass (before the taps that
// hand MCP messages to the engine, which then read through it).
func (o *outcome) response(resp *http.Response) {
	o.status, o.statusText = resp.StatusCode, resp.Status
	enc := strings.TrimSpace(resp.Header.Get("Content-Encoding"))
	o.compressed = enc != "" && !strings.EqualFold(enc, "identity")
	if resp.Body == nil || resp.Body == http.NoBody {
		o.body = &outcomeBody{eof: true}
		return
	}
	b := &outcomeBody{ReadCloser: resp.Body}
	success := resp.StatusCode >= 200 && resp.StatusCode < 300
	switch {
	case o.compressed:
	case !success:
		b.keepHead = true // its message
	case o.api == "": // the MCP server's: the taps read it
	case strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"):
		b.sse = &sseScan{api: o.api}
	default:
		b.keepHead = true
	}
	o.body = b
	resp.Body = b
}

// failure says what failed, one line, the upstream's own words escaped and shortened (clean),
// "" for a success: no answer (the transport's error), an HTTP status that is not 2xx, an answer
// cut short (a read error, an event stream ended before its last event, a body that did not
// reach its end: not an event stream the agent stopped reading after its last event), or, from the provider, an answer that is an error (an error object, an error
// event). ending says the recording was ending (an exchange it cut short says so). upstream is
// "the provider" or "the MCP server"; quote turns the upstream's text into what may be shown
// (clean, after a credential check).
func (o *outcome) failure(upstream string, ending bool, quote func(string) string) string {
	cancelled := func(err error) bool { return errors.Is(err, context.Canceled) }
	if o.err != nil {
		switch {
		case cancelled(o.err) && ending:
			return "the recording ended before " + upstream + " answered"
		case cancelled(o.err):
			return "the agent cancelled the request before " + upstream + " answered"
		}
		return upstream + " could not be reached: " + quote(o.err.Error())
	}
	if o.body == nil { // ServeHTTP ended before any answer (cannot happen without err)
		return upstream + " gave no answer"
	}
	b := o.body
	if o.status < 200 || o.status >= 300 {
		msg := upstream + " answered HTTP " + quote(o.statusText)
		if t := b.message(); t != "" {
			msg += ": " + quote(t)
		}
		return msg
	}
	switch {
	case b.err != nil && cancelled(b.err) && b.sse != nil && b.sse.final && b.sse.failure == "":
		// The stream's last event passed to the agent, which stopped reading there and closed its
		// connection before the provider's end of stream reached the proxy (SDKs stop at the last
		// event): the answer reached the agent whole.
		return ""
	case b.err != nil && cancelled(b.err) && ending:
		return fmt.Sprintf("the recording ended while %s's answer was passing (after %d bytes)", upstream, b.n)
	case b.err != nil:
		return fmt.Sprintf("%s's answer was cut short after %d bytes: %s", upstream, b.n, quote(b.err.Error()))
	case !b.eof:
		return fmt.Sprintf("%s's answer did not reach the agent whole (the copy stopped after %d bytes: the agent closed the connection?)", upstream, b.n)
	case b.sse != nil && b.sse.failure != "":
		return upstream + " sent an error event: " + quote(b.sse.failure)
	case b.sse != nil && !b.sse.final:
		return fmt.Sprintf("%s's event stream ended before its last event (%s) after %d bytes", upstream, finalEvent(o.api), b.n)
	case o.api != "" && b.keepHead:
		if msg, failed := b.jsonError(); failed {
			return upstream + " answered with an error: " + quote(msg)
		}
	}
	return ""
}

// outcomeBody is an answer's body as the proxy copies it to the agent: how much was read and how
// it ended, with its head or (an event stream's) the events that matter.
type outcomeBody struct {
	io.ReadCloser
	keepHead bool
	head     []byte
	n        int64
	eof      bool
	err      error // a read error other than io.EOF
	sse      *sseScan
}

// Read reads through, noting what passes.
func (b *outcomeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if n > 0 {
		if b.keepHead && len(b.head) < headBytes {
			b.head = append(b.head, p[:min(n, headBytes-len(b.head))]...)
		}
		if b.sse != nil {
			b.sse.feed(p[:n])
		}
	}
	switch {
	case err == io.EOF:
		if !b.eof && b.sse != nil {
			b.sse.end()
		}
		b.eof = true
	case err != nil && b.err == nil:
		b.err = err
	}
	return n, err
}

// whole reports whether the head is the whole body.
func (b *outcomeBody) whole() bool { return b.eof && int64(len(b.head)) == b.n }

// message is the upstream's message in a failed answer's body: an error object's message (the
// providers' and JSON-RPC's shapes), else the body's text when it is short text, else "".
func (b *outcomeBody) message() string {
	if b == nil {
		return ""
	}
	if m := errorMessage(b.head); m != "" {
		return m
	}
	t := bytes.TrimSpace(b.head)
	if len(t) == 0 || t[0] == '<' { // nothing, or an HTML page: its status says it
		return ""
	}
	s := string(t)
	if !b.whole() {
		s += "…"
	}
	return s
}

// jsonError reports whether a provider's 2xx answer that is not an event stream is an error: a
// body that is not JSON (when the head holds all of it), or a JSON object (or an array's object,
// Gemini's stream without alt=sse) whose top-level "error" member is not null, found among the
// members the head holds whole; msg is its message.
func (b *outcomeBody) jsonError() (msg string, failed bool) {
	t := bytes.TrimSpace(b.head)
	if b.whole() && !json.Valid(t) {
		if len(t) == 0 {
			return "an empty body", true
		}
		return "a body that is not JSON", true
	}
	d := json.NewDecoder(bytes.NewReader(t))
	tok, err := d.Token()
	if err != nil {
		return "", false
	}
	inArray := tok == json.Delim('[')
	if inArray {
		if tok, err = d.Token(); err != nil || tok != json.Delim('{') {
			return "", false
		}
	} else if tok != json.Delim('{') {
		return "", false
	}
	for {
		// the members of one object
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return "", false
			}
			var v json.RawMessage
			if err := d.Decode(&v); err != nil {
				return "", false // cut by the head: not seen
			}
			if k == "error" && string(v) != "null" {
				if m := errorText(v); m != "" {
					return m, true
				}
				return string(v), true
			}
		}
		if _, err := d.Token(); err != nil || !inArray || !d.More() { // the object's '}'
			return "", false
		}
		if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
			return "", false
		}
	}
}

// errorMessage is the message of an error body: an "error" member (the providers' error
// objects, a JSON-RPC error, a Responses response.failed's response.error), or a top-level
// "message"; "" when b is no such JSON object.
func errorMessage(b []byte) string {
	var m struct {
		Error    json.RawMessage `json:"error"`
		Message  json.RawMessage `json:"message"`
		Response *struct {
			Error json.RawMessage `json:"error"`
		} `json:"response"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	if s := errorText(m.Error); s != "" {
		return s
	}
	if m.Response != nil {
		if s := errorText(m.Response.Error); s != "" {
			return s
		}
	}
	var s string
	if json.Unmarshal(m.Message, &s) == nil {
		return s
	}
	return ""
}

// errorText is an error value's text: a string itself, an object's message with its type,
// status or code before it ("overloaded_error: Overloaded", "UNAVAILABLE: …", "-32603: …").
func errorText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var o struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Status  string          `json:"status"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(v, &o) != nil {
		return ""
	}
	kind := o.Type
	if kind == "" {
		kind = o.Status
	}
	if kind == "" && len(o.Code) > 0 && string(o.Code) != "null" {
		kind = strings.Trim(string(o.Code), `"`)
	}
	switch {
	case kind != "" && o.Message != "":
		return kind + ": " + o.Message
	case o.Message != "":
		return o.Message
	}
	return kind
}

// finalEvent names the event that ends a provider API's stream.
func finalEvent(api fakeprovider.API) string {
	switch api {
	case fakeprovider.OpenAIResponses:
		return "response.completed or response.incomplete"
	case fakeprovider.OpenAIChat:
		return "data: [DONE]"
	case fakeprovider.Anthropic:
		return "message_stop"
	case fakeprovider.Gemini:
		return "a chunk with a finishReason"
	}
	return "its end"
}

// sseScan reads a provider's event stream as it passes for its last event and its error events:
// Responses' response.completed or response.incomplete (response.failed and error are errors),
// Chat's data: [DONE] (a chunk with a top-level error is one), Anthropic's message_stop (error is
// one), Gemini's chunk with a candidate's finishReason (a chunk with a top-level error is one).
// Only an event that may be one of them is decoded.
type sseScan struct {
	api      fakeprovider.API
	line     []byte
	longLine bool
	event    string
	data     []byte
	hasData  bool
	longData bool
	final    bool
	failure  string // the first error event's message
}

func (s *sseScan) feed(chunk []byte) { sseLines(chunk, s.appendLine, s.lineDone) }

// sseLines hands chunk, the next bytes of an event stream, to a reader that takes it line by
// line (sseScan, sseTap): the bytes of each line to appendLine and its end to lineDone; the bytes
// after the last '\n' go to appendLine, their line ends in a later chunk.
func sseLines(chunk []byte, appendLine func([]byte), lineDone func()) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			appendLine(chunk)
			return
		}
		appendLine(chunk[:i])
		lineDone()
		chunk = chunk[i+1:]
	}
}

// end ends the stream: a last line and event without their blank line count, as a client reads
// them.
func (s *sseScan) end() {
	if len(s.line) > 0 || s.longLine {
		s.lineDone()
	}
	s.dispatch()
}

func (s *sseScan) appendLine(b []byte) {
	if len(s.line)+len(b) > maxScanEvent {
		s.longLine = true
		return
	}
	s.line = append(s.line, b...)
}

func (s *sseScan) lineDone() {
	line := bytes.TrimSuffix(s.line, []byte("\r"))
	long := s.longLine
	s.line, s.longLine = s.line[:0], false
	if len(line) == 0 && !long {
		s.dispatch()
		return
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "event":
		s.event = string(value)
	case "data":
		if s.hasData && !s.longData {
			s.data = append(s.data, '\n')
		}
		s.hasData = true
		if long || len(s.data)+len(value) > maxScanEvent {
			s.longData, s.data = true, s.data[:0]
		} else if !s.longData {
			s.data = append(s.data, value...)
		}
	}
}

// dispatch looks at one whole event.
func (s *sseScan) dispatch() {
	name, data, long := s.event, bytes.TrimSpace(s.data), s.longData
	s.event, s.data, s.hasData, s.longData = "", s.data[:0], false, false
	if name == "" && !long && (s.api == fakeprovider.OpenAIResponses || s.api == fakeprovider.Anthropic) && bytes.Contains(data, []byte(`"type"`)) {
		var t struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(data, &t) == nil {
			name = t.Type
		}
	}
	switch {
	case name == "error" || name == "response.failed":
		s.fail(data, long, name)
	case name == "response.completed" || name == "response.incomplete" || name == "message_stop":
		s.final = true
	case s.api == fakeprovider.OpenAIChat && string(data) == "[DONE]":
		s.final = true
	case long:
	case s.api == fakeprovider.Gemini && bytes.Contains(data, []byte(`"finishReason"`)):
		var c struct {
			Candidates []struct {
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
		}
		if json.Unmarshal(data, &c) == nil {
			for _, x := range c.Candidates {
				s.final = s.final || x.FinishReason != ""
			}
		}
	}
	if !long && s.failure == "" && bytes.Contains(data, []byte(`"error"`)) && (s.api == fakeprovider.OpenAIChat || s.api == fakeprovider.Gemini) {
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && len(e.Error) > 0 && string(e.Error) != "null" {
			s.fail(data, false, "error")
		}
	}
}

func (s *sseScan) fail(data []byte, long bool, name string) {
	if s.failure != "" {
		return
	}
	msg := ""
	if !long {
		msg = errorMessage(data)
	}
	if msg == "" {
		msg = "an event " + strconv.Quote(name)
	}
	s.failure = msg
}

// clean is an upstream's text as a record's error and a log line may hold it: on one line,
// control, format and bidi characters shown escaped (escape.Terminal), at most maxErrorText
// bytes (cut where no escape is cut in two).
func clean(s string) string {
	s = sink.Terminal(strings.TrimSpace(s))
	if len(s) > maxErrorText {
		s = s[:sink.CutPoint(s, maxErrorText)] + "…"
	}
	return s
}
