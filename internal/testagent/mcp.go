package testagent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// ProtocolVersion is the MCP revision the agent asks for in initialize.
const ProtocolVersion = "2025-11-25"

// maxMessageBytes bounds one message the agent reads from the MCP server or the provider.
const maxMessageBytes = 64 << 20

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// rpcMessage is any JSON-RPC message the agent reads.
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// mcpTransport carries JSON-RPC messages to an MCP server.
type mcpTransport interface {
	// roundTrip sends a request with id and returns the response with that id.
	roundTrip(ctx context.Context, id int, msg []byte) (rpcMessage, error)
	// notify sends a notification.
	notify(ctx context.Context, msg []byte) error
	// close ends the session.
	close() error
}

// mcpClient is a minimal MCP client: initialize, tools/list, tools/call.
type mcpClient struct {
	t      mcpTransport
	nextID int
}

// request sends method with params and returns the result, or the JSON-RPC error.
func (c *mcpClient) request(ctx context.Context, method string, params any) (json.RawMessage, *rpcError, error) {
	c.nextID++
	msg, err := strictjson.MarshalGo(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if err != nil {
		return nil, nil, fmt.Errorf("MCP %s: %w", method, err)
	}
	resp, err := c.t.roundTrip(ctx, c.nextID, msg)
	if err != nil {
		return nil, nil, fmt.Errorf("MCP %s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, resp.Error, nil
	}
	if resp.Result == nil {
		return nil, nil, fmt.Errorf("MCP %s: a response with neither result nor error", method)
	}
	return resp.Result, nil, nil
}

// call is request with a JSON-RPC error turned into a Go error.
func (c *mcpClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	res, rerr, err := c.request(ctx, method, params)
	if err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, fmt.Errorf("MCP %s: error %d: %s", method, rerr.Code, rerr.Message)
	}
	return res, nil
}

// mcpTool is one tool from tools/list.
type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// initialize runs the MCP handshake and returns the negotiated protocol version.
func (c *mcpClient) initialize(ctx context.Context) (string, error) {
	res, err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "contractcheck-testagent", "version": "1"},
	})
	if err != nil {
		return "", err
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.ProtocolVersion == "" {
		return "", fmt.Errorf("MCP initialize: no protocolVersion in the result %s", snippet(res))
	}
	if h, ok := c.t.(*httpTransport); ok {
		h.version = r.ProtocolVersion
	}
	msg, err := strictjson.MarshalGo(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err != nil {
		return "", err
	}
	if err := c.t.notify(ctx, msg); err != nil {
		return "", fmt.Errorf("MCP notifications/initialized: %w", err)
	}
	return r.ProtocolVersion, nil
}

// listTools returns every tool the server lists, following nextCursor.
func (c *mcpClient) listTools(ctx context.Context) ([]mcpTool, error) {
	var tools []mcpTool
	cursor := ""
	for range 100 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := c.call(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []mcpTool `json:"tools"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, fmt.Errorf("MCP tools/list: %w", err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools, nil
		}
		cursor = page.NextCursor
	}
	return nil, errors.New("MCP tools/list: more than 100 pages")
}

// ---- Streamable HTTP ----

// httpTransport is the Streamable HTTP transport: every message is POSTed; the answer is JSON
// or an SSE stream that ends with the response.
type httpTransport struct {
	url     string
	client  *http.Client
	session string // Mcp-Session-Id from initialize
	version string // the negotiated protocol version, sent once known
}

func (h *httpTransport) post(ctx context.Context, msg []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if h.session != "" {
		req.Header.Set("Mcp-Session-Id", h.session)
	}
	if h.version != "" {
		req.Header.Set("MCP-Protocol-Version", h.version)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && h.session == "" {
		h.session = s
	}
	return resp, nil
}

func (h *httpTransport) notify(ctx context.Context, msg []byte) error {
	resp, err := h.post(ctx, msg)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %s", h.url, resp.Status, snippet(body))
	}
	return nil
}

func (h *httpTransport) roundTrip(ctx context.Context, id int, msg []byte) (rpcMessage, error) {
	resp, err := h.post(ctx, msg)
	if err != nil {
		return rpcMessage{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return rpcMessage{}, fmt.Errorf("POST %s: %s: %s", h.url, resp.Status, snippet(body))
	}
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		var found *rpcMessage
		err := readSSE(resp.Body, func(_ string, data []byte) (bool, error) {
			m, ok, err := matchResponse(data, id)
			if err != nil || !ok {
				return false, err
			}
			found = &m
			return true, nil
		})
		if err != nil {
			return rpcMessage{}, fmt.Errorf("POST %s: SSE: %w", h.url, err)
		}
		if found == nil {
			return rpcMessage{}, fmt.Errorf("POST %s: the SSE stream ended without the response to request %d", h.url, id)
		}
		return *found, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMessageBytes+1))
	if err != nil {
		return rpcMessage{}, fmt.Errorf("POST %s: %w", h.url, err)
	}
	m, ok, err := matchResponse(body, id)
	if err != nil {
		return rpcMessage{}, fmt.Errorf("POST %s: %w", h.url, err)
	}
	if !ok {
		return rpcMessage{}, fmt.Errorf("POST %s: the answer is not the response to request %d: %s", h.url, id, snippet(body))
	}
	return m, nil
}

func (h *httpTransport) close() error { return nil }

// matchResponse decodes one JSON-RPC message and reports whether it is the response to id.
func matchResponse(data []byte, id int) (rpcMessage, bool, error) {
	var m rpcMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return m, false, fmt.Errorf("not a JSON-RPC message: %w: %s", err, snippet(data))
	}
	if m.Method != "" {
		return m, false, nil // a request or notification from the server
	}
	return m, string(bytes.TrimSpace(m.ID)) == strconv.Itoa(id), nil
}

// ---- stdio ----

// stdioTransport runs the server as a child process and speaks newline-delimited JSON-RPC on
// its stdin and stdout; its stderr goes to the agent's.
type stdioTransport struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan stdioLine // from the one goroutine that reads stdout
	quit  chan struct{}  // closed by close: the reader stops handing out lines
}

// stdioLine is one line read from the server, or the error that ended the reading.
type stdioLine struct {
	b   []byte
	err error
}

// startStdio starts argv as the MCP server.
func startStdio(argv []string) (*stdioTransport, error) {
	if len(argv) == 0 {
		return nil, errors.New("no MCP server command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", argv[0], err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", argv[0], err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the MCP server %q: %w", argv[0], err)
	}
	s := &stdioTransport{cmd: cmd, stdin: stdin, lines: make(chan stdioLine), quit: make(chan struct{})}
	go s.read(bufio.NewReaderSize(stdout, 1<<16))
	return s, nil
}

// read hands out the server's stdout line by line until it ends or close is called.
func (s *stdioTransport) read(r *bufio.Reader) {
	for {
		var buf []byte
		var err error
		for {
			var chunk []byte
			chunk, err = r.ReadSlice('\n')
			buf = append(buf, chunk...)
			if len(buf) > maxMessageBytes {
				err = errors.New("a message larger than 64 MiB")
				break
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		switch {
		case err == io.EOF && len(bytes.TrimSpace(buf)) == 0:
			err = errors.New("the MCP server closed its stdout")
		case err == io.EOF:
			err = nil
		case err != nil:
			err = fmt.Errorf("read from the MCP server: %w", err)
		}
		select {
		case s.lines <- stdioLine{buf, err}:
		case <-s.quit:
			return
		}
		if err != nil {
			close(s.lines)
			return
		}
	}
}

func (s *stdioTransport) write(msg []byte) error {
	if _, err := s.stdin.Write(append(bytes.TrimSpace(msg), '\n')); err != nil {
		return fmt.Errorf("write to the MCP server: %w", err)
	}
	return nil
}

func (s *stdioTransport) notify(_ context.Context, msg []byte) error { return s.write(msg) }

// readLine returns the server's next line; it fails when the context ends first.
func (s *stdioTransport) readLine(ctx context.Context) ([]byte, error) {
	select {
	case l, ok := <-s.lines:
		if !ok {
			return nil, errors.New("the MCP server closed its stdout")
		}
		return l.b, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *stdioTransport) roundTrip(ctx context.Context, id int, msg []byte) (rpcMessage, error) {
	if err := s.write(msg); err != nil {
		return rpcMessage{}, err
	}
	for {
		b, err := s.readLine(ctx)
		if err != nil {
			return rpcMessage{}, err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		m, ok, err := matchResponse(b, id)
		if err != nil {
			return rpcMessage{}, err
		}
		if ok {
			return m, nil
		}
		if m.Method != "" && len(m.ID) > 0 { // a request from the server
			if err := s.answerServer(m); err != nil {
				return rpcMessage{}, err
			}
		}
	}
}

// answerServer answers a server's request: ping gets an empty result, anything else
// "method not found" (the agent declares no client capabilities).
func (s *stdioTransport) answerServer(m rpcMessage) error {
	var reply map[string]any
	if m.Method == "ping" {
		reply = map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}}
	} else {
		reply = map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": rpcError{Code: -32601, Message: "method not found: " + m.Method}}
	}
	b, err := strictjson.MarshalGo(reply)
	if err != nil {
		return err
	}
	return s.write(b)
}

// stdioGrace is how long the server may take to exit once its stdin is closed.
const stdioGrace = 5 * time.Second

// close closes the server's stdin and waits for it to exit, killing it after stdioGrace as the
// MCP stdio transport's shutdown sequence allows.
func (s *stdioTransport) close() error {
	close(s.quit)
	_ = s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	t := time.NewTimer(stdioGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		_ = s.cmd.Process.Kill()
		<-done
	}
	return nil
}

// ---- shared ----

// readSSE reads a text/event-stream body and hands each event's name and data to fn until fn
// reports it is done or the stream ends.
func readSSE(r io.Reader, fn func(name string, data []byte) (bool, error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), maxMessageBytes)
	name := ""
	var data []byte
	hasData := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if hasData {
				done, err := fn(name, data)
				if err != nil || done {
					return err
				}
			}
			name, data, hasData = "", nil, false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if hasData {
		_, err := fn(name, data)
		return err
	}
	return nil
}

// snippet shortens a body for an error message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
