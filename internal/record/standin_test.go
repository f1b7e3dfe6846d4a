package record

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/mcpserve"
	"github.com/contractcheck/contractcheck/internal/testagent"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// The stand-in MCP server of these tests (not contractcheck's fixture server): one tool,
// "lookup", whose result depends on its argument "which". It speaks Streamable HTTP (standIn,
// tools/call answered as SSE or JSON by its sse field) and stdio (serveStdio, in the re-executed
// test binary).

const (
	// secretValue is what --redact blanks in the tests.
	secretValue = "s3cr3t-order-owner"
	// standInSentinel, as the first argument, makes the test binary the stdio MCP server.
	standInSentinel = "__record-stand-in-mcp-stdio"
	// agentSentinel, as the first argument, makes the test binary the test agent (testagent.Main).
	agentSentinel = "__record-test-agent"
)

// results are the stand-in's tools/call results by "which".
func results() map[string]string {
	hs, _ := json.Marshal(strings.Join(hostile.Strings(), " | "))
	return map[string]string{
		"text":       `{"content":[{"type":"text","text":"plain text, with \"quotes\" and <b>"}]}`,
		"structured": `{"content":[{"type":"text","text":"{\"orderId\":\"A-1\",\"owner\":\"` + secretValue + `\"}"}],"structuredContent":{"orderId":"A-1","owner":"` + secretValue + `"}}`,
		"error":      `{"content":[{"type":"text","text":"the order service is down"}],"isError":true}`,
		"link":       `{"content":[{"type":"resource_link","uri":"file:///orders/A-1.txt","name":"A-1.txt","mimeType":"text/plain"}]}`,
		"hostile":    `{"content":[{"type":"text","text":` + string(hs) + `}]}`,
	}
}

// kinds are the results' names, in the order the model calls them.
var kinds = []string{"text", "structured", "error", "link", "hostile"}

// answerMCP is the stand-in's answer to one JSON-RPC message (nil for a notification).
func answerMCP(msg []byte) ([]byte, error) {
	m, answer, err := mcpserve.ReadRequest[struct {
		Name      string `json:"name"`
		Arguments struct {
			Which string `json:"which"`
		} `json:"arguments"`
	}](msg)
	if err != nil {
		return nil, fmt.Errorf("stand-in MCP server: %w: %s", err, msg)
	}
	if !answer {
		return nil, nil
	}
	switch m.Method {
	case "initialize":
		return mcpserve.ResultMessage(m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"stand-in","version":"1"}}`), nil
	case "tools/list":
		return mcpserve.ResultMessage(m.ID, `{"tools":[{"name":"lookup","description":"Looks an order up.","inputSchema":{"type":"object","properties":{"which":{"type":"string"}}}}]}`), nil
	case "tools/call":
		if v, ok := strings.CutPrefix(m.Params.Arguments.Which, "echo:"); ok {
			text, _ := json.Marshal(v)
			return mcpserve.ResultMessage(m.ID, `{"content":[{"type":"text","text":`+string(text)+`}]}`), nil
		}
		if r, ok := results()[m.Params.Arguments.Which]; ok && m.Params.Name == "lookup" {
			return mcpserve.ResultMessage(m.ID, r), nil
		}
		return mcpserve.ErrorMessage(m.ID, -32602, "unknown"), nil
	}
	return mcpserve.ErrorMessage(m.ID, -32601, "no such method"), nil
}

// standIn is the Streamable HTTP stand-in.
type standIn struct {
	sse  bool // answer tools/call as an SSE stream (else JSON)
	gzip bool // compress every answer when the client accepts gzip
	mu   sync.Mutex
	auth []string // the Authorization headers it was sent
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	s.mu.Lock()
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := answerMCP(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Mcp-Session-Id", "stand-in-session")
	var out io.Writer = w
	if s.gzip && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") && resp != nil {
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		defer zw.Close()
		out = zw
	}
	testkit.MCPAnswer(w, out, resp, s.sse && strings.Contains(string(body), `"tools/call"`))
}

// serveStdio is the stdio stand-in: newline-delimited JSON-RPC.
func serveStdio(r io.Reader, w io.Writer) error {
	return mcpserve.ServeLines(r, w, answerMCP)
}

// TestMain lets the test binary be the stdio stand-in (standInSentinel) and `contractcheck
// record stdio` (the arguments record stdio --to URL -- SERVER...), as CONTRACTCHECK_MCP_COMMAND
// starts it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == standInSentinel {
		if err := serveStdio(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 5 && os.Args[1] == "record" && os.Args[2] == "stdio" && os.Args[3] == "--to" && os.Args[5] == "--" {
		code, err := Stdio(context.Background(), StdioOptions{To: os.Args[4], Command: os.Args[6:]})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	if len(os.Args) > 1 && os.Args[1] == agentSentinel {
		testagent.Main()
	}
	os.Exit(testkit.Run(m))
}
