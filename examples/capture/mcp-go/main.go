// Command mcp-go captures lane mcp-go: github.com/mark3labs/mcp-go as a client of the raw fixture
// server.
//
// For every fixture it starts examples/internal/rawmcp on a pair of pipes, connects an
// mcp-go client to it through the library's stdio transport over existing streams
// (transport.NewIO, newline-delimited JSON-RPC) with default options, initializes, calls the
// fixture tool once and records, at stage D1, the *mcp.CallToolResult that (*client.Client).CallTool
// returned (mcp.ParseCallToolResult), re-encoded by the library (json.Marshal, which runs
// mcp.CallToolResult.MarshalJSON and the content structs' tags). There is no server-side SDK: the
// bytes the client decodes are the fixture's W0 bytes.
//
// When CallTool returns an error:
//   - if the tools/call response the transport handed the client carried a JSON-RPC "error"
//     member (client/client.go (*Client).sendRequest turns it into the returned Go error with
//     mcp/errors.go (*JSONRPCErrorDetails).AsError), D1 is captured as the Go error the application
//     receives: {"error": {"message": err.Error()}}, which the lane binds as `raised` (T3 abort).
//     The response is seen by a pass-through wrapper of the *transport.Stdio that changes nothing;
//     mcp-go's error for an unmapped code is a bare errors.New(message), which the error value
//     alone cannot tell from a decode failure;
//   - otherwise (a decode failure in ParseCallToolResult, a transport failure) D1 is
//     execution_failed with the error text.
//
// A2, M3 and H4 have no meaning for an MCP library (no application, model or provider) and are
// recorded not_applicable. One repetition per run; capture.sh runs three fresh processes.
//
// Usage:
//
//	go run . -fixtures ../../../fixtures/sources -repetition 1 >> default.jsonl
package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/contractcheck/contractcheck/examples/internal/harness"
	"github.com/contractcheck/contractcheck/examples/internal/rawmcp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const (
	lane      = "mcp-go"
	sdkModule = "github.com/mark3labs/mcp-go"
)

func main() { harness.MainD1(lane, sdkModule, call) }

// observedStdio is mcp-go's own stdio transport, unchanged (every method, including the
// bidirectional ones, is promoted from *transport.Stdio), that remembers whether the tools/call
// response carried a JSON-RPC error.
type observedStdio struct {
	*transport.Stdio
	mu          sync.Mutex
	toolRPCFail bool
}

func (o *observedStdio) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := o.Stdio.SendRequest(ctx, req)
	if req.Method == string(mcp.MethodToolsCall) && err == nil && resp != nil && resp.Error != nil {
		o.mu.Lock()
		o.toolRPCFail = true
		o.mu.Unlock()
	}
	return resp, err
}

func (o *observedStdio) rpcFailed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.toolRPCFail
}

// call connects a fresh mcp-go client to the raw server on pipes, initializes, calls the fixture
// tool once and closes the client (which closes pipes.Out: the server sees the end of its input).
func call(ctx context.Context, pipes *harness.Pipes, version string) (harness.Call, error) {
	// An empty stderr, not nil: before v0.38.0, (*Stdio).Close closes stderr unconditionally and
	// panics on nil (transport/stdio.go). The raw server writes no logs.
	tr := &observedStdio{Stdio: transport.NewIO(pipes.In, pipes.Out, io.NopCloser(strings.NewReader("")))}
	c := client.NewClient(tr)
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return harness.Call{}, fmt.Errorf("start: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "contractcheck-capture", Version: version}
	if strings.HasPrefix(version, "v0.") {
		// Before v1 the caller names the protocol version (the library's examples set
		// LATEST_PROTOCOL_VERSION); from v1 an empty one lets the client negotiate.
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	}
	if _, err := c.Initialize(ctx, init); err != nil {
		return harness.Call{}, fmt.Errorf("initialize: %w", err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = rawmcp.ToolName
	res, callErr := c.CallTool(ctx, req)
	return harness.Call{Result: res, Err: callErr, RPCError: tr.rpcFailed()}, nil
}
