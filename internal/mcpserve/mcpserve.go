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
// (DRAFT-…, from a user's schema layer) has no protocol the server knows, so it is never offered:
// a fixture written in one is served all the same, under the revision negotiated. The server
// speaks over newline-delimited JSON-RPC (stdio, ServeStream) and over Streamable HTTP
// (ServeHTTP): a JSON-RPC request is answered with one application/json response, a notification
// or a response with 202 Accepted.
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

// CanServe reports whether the server can speak a revision: one named by a date, YYYY-MM-DD.
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
	// OnCall, when set, is told of every tools/call before it is answered.
	OnCall func(Call)

	mu    sync.Mutex
	calls []Call
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

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// Handle answers one JSON-RPC message. It returns nil for a notification or a response (which
// get no answer), and an error only for bytes that are not a JSON-RPC message.
func (s *Server) Handle(msg []byte) ([]byte, error) {
	var m message
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("mcpserve: not a JSON-RPC message: %w", err)
	}
	if m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil, nil // a notification, or a response to a request the server never sends
	}
	return s.answer(m)
}

func result(id json.RawMessage, body string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + body + `}`)
}

func rpcError(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(msg)
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + fmt.Sprint(code) + `,"message":` + string(b) + `}}`)
}

// stateless reports whether a request speaks 2026-07-28 or later (a protocol version in its _meta), whose
// list results carry cacheScope, ttlMs and resultType.
func stateless(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	var v string
	_ = json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	return v != "" && v >= Stateless
}

func (s *Server) answer(m message) ([]byte, error) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		version := s.revision()
		if slices.Contains(s.offered(), p.ProtocolVersion) && p.ProtocolVersion < Stateless {
			// The result bytes are what is measured: speak the client's revision.
			version = p.ProtocolVersion
		}
		return result(m.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}`, version)), nil
	case "server/discover":
		versions := []string{s.revision()}
		offered := s.offered()
		for i := len(offered) - 1; i >= 0; i-- {
			if offered[i] != versions[0] {
				versions = append(versions, offered[i])
			}
		}
		list, _ := json.Marshal(versions)
		return result(m.ID, `{"supportedVersions":`+string(list)+`,"capabilities":{"tools":{}},"cacheScope":"public","ttlMs":0,"resultType":"complete"}`), nil
	case "ping":
		return result(m.ID, `{}`), nil
	case "tools/list":
		schema := `{"type":"object","properties":{}}`
		if s.batch() {
			schema = `{"type":"object","properties":{"fixture":{"type":"string","description":"The fixture to return."}}}`
		}
		name, _ := json.Marshal(s.tool())
		extra := ""
		if stateless(m.Params) {
			extra = `,"cacheScope":"public","ttlMs":0,"resultType":"complete"`
		}
		return result(m.ID, `{"tools":[{"name":`+string(name)+`,"description":"Returns the fixture result.","inputSchema":`+schema+`}]`+extra+`}`), nil
	case "tools/call":
		return s.call(m)
	}
	return rpcError(m.ID, -32601, "method not found: "+m.Method), nil
}

func (s *Server) call(m message) ([]byte, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return rpcError(m.ID, -32602, "tools/call: invalid params: "+err.Error()), nil
	}
	if p.Name != s.tool() {
		return rpcError(m.ID, -32602, fmt.Sprintf("unknown tool %q (the server lists %q)", p.Name, s.tool())), nil
	}
	f, ok := s.fixture(p.Arguments)
	s.mu.Lock()
	c := Call{Index: len(s.calls), Arguments: p.Arguments}
	if ok {
		c.Fixture = f.ID
	}
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	if s.OnCall != nil {
		s.OnCall(c)
	}
	if !ok {
		return rpcError(m.ID, -32602, "tools/call: no fixture for arguments "+string(p.Arguments)), nil
	}
	return Response(f.Bytes, m.ID)
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
// its own result or error member under the request's id.
func Response(fixture []byte, id json.RawMessage) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, fixture); err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(compact.Bytes(), &env); err != nil {
		return nil, fmt.Errorf("fixture: %w", err)
	}
	member, body := "result", compact.Bytes()
	if _, ok := env["jsonrpc"]; ok {
		if e, isErr := env["error"]; isErr {
			member, body = "error", e
		} else {
			body = env["result"]
		}
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":%s,%q:%s}`, id, member, body)
	return out.Bytes(), nil
}

// ServeStream answers newline-delimited JSON-RPC from r on w (the stdio transport) until r ends.
func (s *Server) ServeStream(r io.Reader, w io.Writer) error {
	return serveLines(r, w, s.Handle)
}

// serveLines reads newline-delimited messages from r, hands each to handle and writes its
// answer, if any, as one line to w.
func serveLines(r io.Reader, w io.Writer, handle func([]byte) ([]byte, error)) error {
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
		_, _ = w.Write(rpcError([]byte("null"), -32700, err.Error()))
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
	return serveLines(r, w, func(msg []byte) ([]byte, error) {
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
