package testagent

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/contractcheck/contractcheck/internal/mcpserve"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// A minimal MCP server for the tests: one tool, fixture_tool, whose result depends on its
// argument "fixture". It speaks Streamable HTTP (testMCP.ServeHTTP, answering tools/call as an
// SSE stream and everything else as JSON) and stdio (serveStdio, in a re-executed test binary).

// textResult is the result of fixture "text" (and of a call without a fixture): two text items
// with characters an encoder might escape, a structured value and an explicit isError false.
const textResult = `{"content":[{"type":"text","text":"hello <b> & \u2028 \"q\""},{"type":"text","text":"second"}],"structuredContent":{"a":1e2},"isError":false}`

// richResult is the result of fixture "rich": text, an image, a resource link; isError true.
const richResult = `{"content":[{"type":"text","text":"see image"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"resource_link","uri":"file:///x.txt","name":"x"}],"isError":true}`

// answer is the server's answer to one JSON-RPC message (nil for a notification or response).
func answer(msg []byte) ([]byte, error) {
	m, answer, err := mcpserve.ReadRequest[struct {
		Name            string `json:"name"`
		ProtocolVersion string `json:"protocolVersion"`
		Arguments       struct {
			Fixture string `json:"fixture"`
		} `json:"arguments"`
	}](msg)
	if err != nil {
		return nil, fmt.Errorf("test MCP server: %w: %s", err, msg)
	}
	if !answer {
		return nil, nil
	}
	switch m.Method {
	case "initialize":
		if m.Params.ProtocolVersion != ProtocolVersion {
			return mcpserve.ErrorMessage(m.ID, -32602, "unexpected protocolVersion "+m.Params.ProtocolVersion), nil
		}
		return mcpserve.ResultMessage(m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"test","version":"1"}}`), nil
	case "tools/list":
		return mcpserve.ResultMessage(m.ID, `{"tools":[{"name":"fixture_tool","description":"Returns the fixture.","inputSchema":{"type":"object","properties":{"fixture":{"type":"string"}}}}]}`), nil
	case "tools/call":
		if m.Params.Name != "fixture_tool" {
			return mcpserve.ErrorMessage(m.ID, -32602, "unknown tool "+m.Params.Name), nil
		}
		switch m.Params.Arguments.Fixture {
		case "", "text":
			return mcpserve.ResultMessage(m.ID, textResult), nil
		case "rich":
			return mcpserve.ResultMessage(m.ID, richResult), nil
		case "rpc-error":
			return mcpserve.ErrorMessage(m.ID, -32603, "boom"), nil
		}
		return mcpserve.ErrorMessage(m.ID, -32602, "unknown fixture "+m.Params.Arguments.Fixture), nil
	}
	return mcpserve.ErrorMessage(m.ID, -32601, "method not found: "+m.Method), nil
}

// testMCP is the Streamable HTTP server. It checks the client's headers and records the methods
// it was sent.
type testMCP struct {
	mu       sync.Mutex
	methods  []string
	failures []string
}

const testSession = "sess-1"

func (s *testMCP) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, fmt.Sprintf(format, args...))
}

// report returns the methods received and the header failures seen.
func (s *testMCP) report() ([]string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.methods...), append([]string(nil), s.failures...)
}

func (s *testMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	s.mu.Lock()
	s.methods = append(s.methods, m.Method)
	s.mu.Unlock()
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		s.fail("%s: Accept %q", m.Method, accept)
	}
	if m.Method == "initialize" {
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			s.fail("initialize carries Mcp-Session-Id %q", sid)
		}
	} else {
		if sid := r.Header.Get("Mcp-Session-Id"); sid != testSession {
			s.fail("%s: Mcp-Session-Id %q, want %q", m.Method, sid, testSession)
		}
		if v := r.Header.Get("MCP-Protocol-Version"); v != ProtocolVersion {
			s.fail("%s: MCP-Protocol-Version %q", m.Method, v)
		}
	}
	resp, err := answer(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if m.Method == "initialize" {
		w.Header().Set("Mcp-Session-Id", testSession)
	}
	// tools/call is answered as an SSE stream: a notification first, then the response.
	testkit.MCPAnswer(w, w, resp, m.Method == "tools/call")
}

// serveStdio is the stdio server: newline-delimited JSON-RPC on stdin and stdout. Before each
// tools/call response it sends the client a ping request, which the client must answer.
func serveStdio(r io.Reader, w io.Writer) error {
	pings := 0
	return mcpserve.ServeLines(r, w, func(line []byte) ([]byte, error) {
		var m struct {
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, err
		}
		if m.Method == "" { // the client's answer to a ping
			if string(m.Result) != "{}" {
				return nil, fmt.Errorf("ping answered with %s", line)
			}
			return nil, nil
		}
		resp, err := answer(line)
		if err != nil || resp == nil {
			return resp, err
		}
		if m.Method == "tools/call" {
			pings++
			if _, err := fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"srv-%d","method":"ping"}`+"\n", pings); err != nil {
				return nil, err
			}
		}
		return resp, nil
	})
}

// stdioSentinel, as the last argument of the test binary, makes it the stdio MCP server.
const stdioSentinel = "testagent-mcp-stdio-server"

// maybeServeStdio serves MCP on stdio and exits when the binary was started as the server.
func maybeServeStdio() {
	if len(os.Args) < 2 || os.Args[len(os.Args)-1] != stdioSentinel {
		return
	}
	if err := serveStdio(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "test MCP server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
