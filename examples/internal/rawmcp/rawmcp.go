// Package rawmcp is a raw MCP server for capture programs: no SDK, so nothing re-encodes the
// fixture on the server side. It speaks newline-delimited JSON-RPC (the stdio transport's framing)
// over any reader and writer, answers initialize, ping and tools/list, and answers every
// tools/call with the fixture's W0 bytes, compacted to one line (insignificant whitespace only:
// numbers, escapes and key order are kept as written).
package rawmcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// ToolName is the one tool the server lists.
const ToolName = "fixture_tool"

// Response returns the JSON-RPC response a tools/call with request id gets for a fixture: the
// fixture as the result, or, when the fixture is itself a JSON-RPC response envelope, its own
// result or error member under the request's id.
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

// Server serves one fixture. Calls counts the tools/call requests answered, so a harness can tell
// whether the framework called the tool at all.
type Server struct {
	Fixture []byte
	Calls   int
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// Serve answers requests from r on w until r ends or a write fails.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("rawmcp: bad request %q: %w", line, err)
		}
		if len(req.ID) == 0 {
			continue // a notification
		}
		resp, err := s.answer(req)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(resp, '\n')); err != nil {
			return err
		}
	}
	return sc.Err()
}

func (s *Server) answer(req request) ([]byte, error) {
	result := func(v string) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, v))
	}
	switch req.Method {
	case "initialize":
		version := "2025-11-25"
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.ProtocolVersion != "" {
			version = p.ProtocolVersion // accept what the client speaks: the result is what is measured
		}
		return result(fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"contractcheck-fixture","version":"1"}}`, version)), nil
	case "ping":
		return result(`{}`), nil
	case "tools/list":
		return result(fmt.Sprintf(`{"tools":[{"name":%q,"description":"Returns the fixture result.","inputSchema":{"type":"object","properties":{}}}]}`, ToolName)), nil
	case "tools/call":
		s.Calls++
		return Response(s.Fixture, req.ID)
	}
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found: %s"}}`, req.ID, req.Method)), nil
}
