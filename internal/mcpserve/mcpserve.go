// Package mcpserve is the MCP server of `contractcheck probe` and `contractcheck serve`: one tool
// whose every call is answered with a fixture's W0 bytes exactly as the capture programs' raw
// server (examples/internal/rawmcp, docs/capturing.md) answers it. The result is the fixture
// compacted to one line (insignificant whitespace only: numbers, escapes and key order kept), and
// a fixture that is a JSON-RPC response envelope is served as that envelope's result or error
// under the request's id. No MCP SDK re-encodes anything on the server side.
//
// The server offers the revisions it is given (Server.Revisions: the run's schema layers', as
// Servable keeps them): a dated revision before 2026-07-28 (Stateless) is spoken with initialize,
// one from 2026-07-28 on with server/discover and per-request _meta. A draft revision
// (DRAFT-… or a date with a suffix, 2026-12-01-draft, from a user's schema layer) has no protocol
// the server knows, so it is never offered: a fixture written in one is served all the same,
// under the revision negotiated.
//
// Every request is answered in the revision it speaks (Speaking): the protocol version its _meta
// names from 2026-07-28 on, else the one its session's initialize negotiated. A tools/call
// result is the fixture's bytes under that revision (Serve: from 2026-07-28 on "resultType":
// "complete" is added when the fixture has none, nothing else changes), checked against the
// revision's pinned schema before it is sent (Server.Validate, SchemaValidator): a fixture that
// cannot be served under the revision the client chose (a 2026-07-28 array or null
// structuredContent under 2025-11-25) gets a JSON-RPC error naming the fixture and both
// revisions, and its Call says why (Call.Refused), so the probe fails the run. Each Call records
// the revision it was answered under and how the client chose it. The server
// speaks over newline-delimited JSON-RPC (stdio, ServeStream) and over Streamable HTTP
// (ServeHTTP): a JSON-RPC request is answered with one application/json response, a notification
// or a response with 202 Accepted.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package mcpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// DefaultTool is the name of the one tool the server lists, as the capture programs name it.
const DefaultTool = "fixture_tool"

// Stateless is the first revision spoken without initialize: server/discover, and the protocol
// version in each request's _meta.
const Stateless = "2026-07-28"

// DefaultRevision is the revision offered first when the served fixture's is not offered.
const DefaultRevision = "2025-11-25"

// Servable lists the revisions of revs the server can speak, in their order: the dated ones
// (YYYY-MM-DD). A draft revision is left out: its protocol is not known.
func Servable(revs []string) []string {
	var out []string
	for _, r := range revs {
		if CanServe(r) {
			out = append(out, r)
		}
	}
	return out
}

// CanServe reports whether the server can speak a revision: one named by a date, YYYY-MM-DD (a
// date with a suffix names a draft of it, whose protocol is not known).
func CanServe(r string) bool {
	if len(r) != 10 || r[4] != '-' || r[7] != '-' {
		return false
	}
	for i, c := range []byte(r) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// MaxMessageBytes bounds one JSON-RPC message the server reads.
const MaxMessageBytes = 64 << 20

// Fixture is one source result as the server serves it.
type Fixture struct {
	// ID is the fixture's catalogue id.
	ID string
	// Revision is the MCP revision the fixture is written in (the catalogue's).
	Revision string
	// Bytes are the W0 bytes as read from the fixture file.
	Bytes []byte
}

// Call is one tools/call the server answered.
type Call struct {
	// Index counts the server's tools/call requests from 0.
	Index int
	// Fixture is the id of the fixture served, "" when the call named none the server has.
	Fixture string
	// Arguments are the call's arguments as sent (nil when absent).
	Arguments json.RawMessage
	// Revision is the MCP revision the call was answered under (see Speaking).
	Revision string
	// Via says how the client chose Revision: ViaInitialize, ViaDiscover, ViaMeta or ViaDefault.
	Via string
	// Added lists the members the server added to the fixture's result to serve it under
	// Revision (resultType); the fixture's bytes are otherwise served as compacted.
	Added []string
	// Refused is why the fixture could not be served under Revision (the client got a JSON-RPC
	// error saying so); nil when it was served.
	Refused error
	// OutOfRevision is Validate's complaint about the response that was served all the same
	// (Server.OutOfRevision); nil when the response is valid under Revision or was refused.
	OutOfRevision error
}

// Server serves fixtures as the result of one tool. With one fixture every call is answered with
// it; with several (a probe's batch mode) a call names its fixture in the argument "fixture".
type Server struct {
	// Tool is the tool's name (DefaultTool when empty).
	Tool string
	// Fixtures are the fixtures served; the first one decides the revision offered first.
	Fixtures []Fixture
	// Revisions are the revisions the server offers, oldest first (the run's schema layers', as
	// Servable keeps them); the fixtures' own dated revisions and DefaultRevision are offered
	// whatever it holds.
	Revisions []string
	// OnCall, when set, is told of every tools/call before its answer is sent.
	OnCall func(Call)
	// Validate, when set, checks the tools/call response the server is about to send against
	// the pinned schema of the revision it speaks (SchemaValidator): a response it refuses is not
	// sent, the client gets a JSON-RPC error naming the fixture and both revisions instead, and
	// the call is Refused.
	Validate func(revision string, response []byte) error
	// OutOfRevision serves a fixture that Validate refuses all the same, as the capture
	// programs' raw server does, and says so in the call (Call.OutOfRevision): what a client of
	// an older revision makes of a newer result (X01's array structuredContent to a 2025-11-25
	// client, say) is then measured instead of refused.
	OutOfRevision bool

	mu    sync.Mutex
	calls []Call
	// session is the revision initialize negotiated ("" before one); discovered reports that a
	// client asked server/discover.
	session    string
	discovered bool
}

// Calls returns the tools/call requests answered so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *Server) tool() string {
	if s.Tool == "" {
		return DefaultTool
	}
	return s.Tool
}

// batch reports whether calls choose among several fixtures.
func (s *Server) batch() bool { return len(s.Fixtures) > 1 }

// offered lists the revisions the server offers, oldest first: Revisions, the fixtures' dated
// revisions and DefaultRevision.
func (s *Server) offered() []string {
	out := []string{DefaultRevision}
	for _, f := range s.Fixtures {
		out = append(out, f.Revision)
	}
	out = Servable(append(out, s.Revisions...))
	slices.Sort(out) // dates: their order as strings
	return slices.Compact(out)
}

// revision is the revision the server offers when a client asks for one it does not speak: the
// first fixture's, unless it is a draft, then DefaultRevision.
func (s *Server) revision() string {
	if len(s.Fixtures) > 0 && CanServe(s.Fixtures[0].Revision) {
		return s.Fixtures[0].Revision
	}
	return DefaultRevision
}

// Request is a JSON-RPC message as a server reads it, its params decoded as P
// (json.RawMessage to decode them later).
type Request[P any] struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  P               `json:"params"`
}

// message is a request whose params are decoded by the method that reads them.
type message = Request[json.RawMessage]

// ReadRequest decodes one JSON-RPC message. answer is false for a notification (no id, or a null
// one) and for a response (no method), which get no answer; the error is only for bytes that are
// not a JSON-RPC message or params that are not a P.
func ReadRequest[P any](msg []byte) (req Request[P], answer bool, err error) {
	if err := json.Unmarshal(msg, &req); err != nil {
		return req, false, fmt.Errorf("mcpserve: not a JSON-RPC message: %w", err)
	}
	return req, req.Method != "" && len(req.ID) != 0 && string(req.ID) != "null", nil
}

// Handle answers one JSON-RPC message. It returns nil for a notification or a response (which
// get no answer), and an error only for bytes that are not a JSON-RPC message.
func (s *Server) Handle(msg []byte) ([]byte, error) {
	m, answer, err := ReadRequest[json.RawMessage](msg)
	if err != nil || !answer {
		return nil, err // a notification, or a response to a request the server never sends
	}
	return s.answer(m)
}

// ResultMessage is the JSON-RPC response to the request id whose result is body (JSON text).
func ResultMessage(id json.RawMessage, body string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + body + `}`)
}

// ErrorMessage is the JSON-RPC error response to the request id: code, and msg as a JSON string.
func ErrorMessage(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(msg)
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + fmt.Sprint(code) + `,"message":` + string(b) + `}}`)
}

// How a client chose the revision a request is answered under (Call.Via).
const (
	// ViaInitialize: the session's initialize handshake (revisions before Stateless).
	ViaInitialize = "initialize"
	// ViaDiscover: the protocol version in the request's _meta, after the client asked
	// server/discover (Stateless and later).
	ViaDiscover = "server/discover"
	// ViaMeta: the protocol version in the request's _meta, with no server/discover before it.
	ViaMeta = "_meta"
	// ViaDefault: neither: no initialize and no protocol version in _meta, so the revision
	// initialize would have offered.
	ViaDefault = "default"
)

// Negotiated says in words how the client chose a revision (Call.Via), to follow the revision's
// name in a sentence.
func Negotiated(via string) string {
	switch via {
	case ViaInitialize:
		return "which the client negotiated through initialize"
	case ViaDiscover:
		return "which the client negotiated through server/discover and named in the request's _meta"
	case ViaMeta:
		return "which the client named in the request's _meta without asking server/discover"
	}
	return "the server's default (the client sent no initialize and no protocol version in _meta)"
}

// metaVersion is the protocol version a request's _meta names ("" when none).
func metaVersion(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	return v
}

// initRevision is the revision initialize answers a client asking for one the server does not
// speak through initialize: the first fixture's when it is before Stateless, else
// DefaultRevision.
func (s *Server) initRevision() string {
	if r := s.revision(); r < Stateless {
		return r
	}
	return DefaultRevision
}

// Speaking returns the revision the server answers a request with params under, and how the
// client chose it (Via…): a protocol version from Stateless on in _meta names it for that
// request; otherwise the session's initialize did. unsupported is set when _meta names a
// revision from Stateless on that the server does not offer.
func (s *Server) Speaking(params json.RawMessage) (revision, via string, unsupported bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := metaVersion(params); v >= Stateless {
		switch {
		case !slices.Contains(s.offered(), v):
			return v, ViaMeta, true
		case s.discovered:
			return v, ViaDiscover, false
		}
		return v, ViaMeta, false
	}
	if s.session != "" {
		return s.session, ViaInitialize, false
	}
	return s.initRevision(), ViaDefault, false
}

// cacheable are the members a list or discover result carries from Stateless on.
const cacheable = `,"cacheScope":"public","ttlMs":0,"resultType":"complete"`

func (s *Server) answer(m message) ([]byte, error) {
	revision, via, unsupported := s.Speaking(m.Params)
	if unsupported {
		// UnsupportedProtocolVersionError: the client may retry with one of data.supported.
		data, _ := json.Marshal(map[string]any{"requested": revision, "supported": s.supported()})
		msg, _ := json.Marshal("unsupported protocol version " + revision)
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32022,"message":` + string(msg) + `,"data":` + string(data) + `}}`), nil
	}
	modern := revision >= Stateless
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		version := s.initRevision()
		if slices.Contains(s.offered(), p.ProtocolVersion) && p.ProtocolVersion < Stateless {
			// The result bytes are what is measured: speak the client's revision.
			version = p.ProtocolVersion
		}
		s.mu.Lock()
		s.session = version
		s.mu.Unlock()
		return ResultMessage(m.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}`, version)), nil
	case "server/discover":
		s.mu.Lock()
		s.discovered = true
		s.mu.Unlock()
		list, _ := json.Marshal(s.supported())
		return ResultMessage(m.ID, `{"supportedVersions":`+string(list)+`,"capabilities":{"tools":{}}`+cacheable+`}`), nil
	case "ping":
		if modern {
			return ResultMessage(m.ID, `{"resultType":"complete"}`), nil // every result carries it
		}
		return ResultMessage(m.ID, `{}`), nil
	case "tools/list":
		schema := `{"type":"object","properties":{}}`
		if s.batch() {
			schema = `{"type":"object","properties":{"fixture":{"type":"string","description":"The fixture to return."}}}`
		}
		name, _ := json.Marshal(s.tool())
		extra := ""
		if modern {
			extra = cacheable
		}
		return ResultMessage(m.ID, `{"tools":[{"name":`+string(name)+`,"description":"Returns the fixture result.","inputSchema":`+schema+`}]`+extra+`}`), nil
	case "tools/call":
		return s.call(m, revision, via)
	}
	return ErrorMessage(m.ID, -32601, "method not found: "+m.Method), nil
}

// supported lists the revisions server/discover offers: the first fixture's first, then the
// others, newest first.
func (s *Server) supported() []string {
	versions := []string{s.revision()}
	offered := s.offered()
	for i := len(offered) - 1; i >= 0; i-- {
		if offered[i] != versions[0] {
			versions = append(versions, offered[i])
		}
	}
	return versions
}

// call answers a tools/call under revision: the fixture as Serve builds it, or, when it cannot be
// served under revision (Validate refuses it), a JSON-RPC error saying so.
func (s *Server) call(m message, revision, via string) ([]byte, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return ErrorMessage(m.ID, -32602, "tools/call: invalid params: "+err.Error()), nil
	}
	if p.Name != s.tool() {
		return ErrorMessage(m.ID, -32602, fmt.Sprintf("unknown tool %q (the server lists %q)", p.Name, s.tool())), nil
	}
	f, ok := s.fixture(p.Arguments)
	c := Call{Arguments: p.Arguments, Revision: revision, Via: via}
	var resp []byte
	if ok {
		c.Fixture = f.ID
		var err error
		resp, c.Added, err = Serve(f.Bytes, m.ID, revision)
		if err == nil && s.Validate != nil {
			err = s.Validate(revision, resp)
		}
		switch {
		case err != nil && s.OutOfRevision && resp != nil:
			c.OutOfRevision = err
		case err != nil:
			c.Refused = fmt.Errorf("fixture %s (revision %s) cannot be served under MCP revision %s, %s: %w", f.ID, f.Revision, revision, Negotiated(via), err)
			resp = ErrorMessage(m.ID, -32603, "contractcheck: "+c.Refused.Error())
		}
	} else {
		resp = ErrorMessage(m.ID, -32602, "tools/call: no fixture for arguments "+string(p.Arguments))
	}
	s.mu.Lock()
	c.Index = len(s.calls)
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	if s.OnCall != nil {
		s.OnCall(c)
	}
	return resp, nil
}

// fixture picks the fixture a call is answered with.
func (s *Server) fixture(args json.RawMessage) (Fixture, bool) {
	if !s.batch() {
		if len(s.Fixtures) == 0 {
			return Fixture{}, false
		}
		return s.Fixtures[0], true
	}
	var a struct {
		Fixture string `json:"fixture"`
	}
	_ = json.Unmarshal(args, &a)
	for _, f := range s.Fixtures {
		if f.ID == a.Fixture {
			return f, true
		}
	}
	return Fixture{}, false
}

// Response returns the JSON-RPC response a tools/call with request id gets for a fixture: the
// fixture compacted as the result, or, when the fixture is itself a JSON-RPC response envelope,
// its own result or error member under the request's id. It is Serve under DefaultRevision.
func Response(fixture []byte, id json.RawMessage) ([]byte, error) {
	resp, _, err := Serve(fixture, id, DefaultRevision)
	return resp, err
}

// Serve returns the JSON-RPC response a tools/call with request id gets for a fixture under
// revision, and the members it added to the fixture's result. The result is the fixture
// compacted (or, for a JSON-RPC response envelope, its own result or error member); from
// Stateless on, a result without resultType gets "resultType":"complete" as its last member, as
// that revision requires of every result, and every other byte stays as the compacted fixture
// has it. Whether the outcome is valid under revision is for Server.Validate to say.
func Serve(fixture []byte, id json.RawMessage, revision string) ([]byte, []string, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, fixture); err != nil {
		return nil, nil, fmt.Errorf("fixture: %w", err)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(compact.Bytes(), &env); err != nil {
		return nil, nil, fmt.Errorf("fixture: %w", err)
	}
	member, body := "result", compact.Bytes()
	if _, ok := env["jsonrpc"]; ok {
		if e, isErr := env["error"]; isErr {
			member, body = "error", e
		} else {
			body = env["result"]
		}
	}
	var added []string
	if member == "result" && revision >= Stateless {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, nil, fmt.Errorf("fixture: the result is not an object: %w", err)
		}
		if _, has := obj["resultType"]; !has {
			// body is a compacted object: "}" is its last byte, and "{}" is all of it when it
			// has no member.
			sep := ","
			if len(obj) == 0 {
				sep = ""
			}
			body = append(append(slices.Clone(body[:len(body)-1]), sep+`"resultType":"complete"`...), '}')
			added = append(added, "resultType")
		}
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,%q:%s}`, id, member, body)
	return out.Bytes(), added, nil
}

// ServeStream answers newline-delimited JSON-RPC from r on w (the stdio transport) until r ends.
func (s *Server) ServeStream(r io.Reader, w io.Writer) error {
	return ServeLines(r, w, s.Handle)
}

// ServeLines is the stdio transport around any handler: it reads newline-delimited messages
// from r (blank lines skipped, each at most MaxMessageBytes), hands each to handle and writes its
// answer, if any, as one line to w, until r ends or handle fails.
func ServeLines(r io.Reader, w io.Writer, handle func([]byte) ([]byte, error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), MaxMessageBytes)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		resp, err := handle(line)
		if err != nil {
			return err
		}
		if resp == nil {
			continue
		}
		if _, err := w.Write(append(resp, '\n')); err != nil {
			return fmt.Errorf("mcpserve: write: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("mcpserve: read: %w", err)
	}
	return nil
}

// SessionID is the Mcp-Session-Id the Streamable HTTP transport hands out: one server, one session.
const SessionID = "contractcheck-probe"

// ServeHTTP is the Streamable HTTP transport: POST a JSON-RPC message, get its answer as
// application/json (202 Accepted for a notification or a response); GET, which would open a
// server-to-client stream, is 405 (the server sends no requests or notifications); DELETE ends
// the session.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "contractcheck's MCP server sends nothing unasked: POST JSON-RPC messages", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMessageBytes))
	if err != nil {
		http.Error(w, "read request: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	resp, err := s.Handle(bytes.TrimSpace(body))
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(ErrorMessage([]byte("null"), -32700, err.Error()))
		return
	}
	w.Header().Set("Mcp-Session-Id", SessionID)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(resp)
}

// Relay bridges the stdio transport to a Streamable HTTP endpoint: each newline-delimited message
// read from r is posted to url, and each answer written to w as one line. `contractcheck serve
// --stdio --probe URL` runs it, so an agent that starts its MCP server as a command reaches the
// probe's server: the agent may start that command with an environment of its own choosing, so
// everything the relay needs is on its command line.
func Relay(client *http.Client, url string, r io.Reader, w io.Writer) error {
	return ServeLines(r, w, func(msg []byte) ([]byte, error) {
		resp, err := client.Post(url, "application/json", bytes.NewReader(msg))
		if err != nil {
			return nil, fmt.Errorf("relay to %s: %w", url, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxMessageBytes+1))
		if err != nil {
			return nil, fmt.Errorf("relay to %s: %w", url, err)
		}
		switch {
		case resp.StatusCode == http.StatusAccepted:
			return nil, nil
		case resp.StatusCode != http.StatusOK:
			return nil, fmt.Errorf("relay to %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
		case len(body) > MaxMessageBytes:
			return nil, errors.New("relay: answer larger than 64 MiB")
		}
		return bytes.TrimSpace(body), nil
	})
}
