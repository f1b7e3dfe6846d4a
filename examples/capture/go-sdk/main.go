// Command go-sdk captures lane go-sdk: the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk) as a client of the raw fixture server.
//
// For every fixture it starts examples/internal/rawmcp on a pair of pipes, connects an SDK
// client to it through the SDK's own IO transport (mcp.IOTransport, newline-delimited JSON-RPC,
// the stdio framing) with default options, calls the fixture tool once and records, at stage D1,
// the *mcp.CallToolResult that ClientSession.CallTool returned, re-encoded by the SDK
// (json.Marshal, which runs (*CallToolResult).MarshalJSON and the content types' MarshalJSON).
// There is no server-side SDK: the bytes the client decodes are the fixture's W0 bytes.
//
// When CallTool returns an error:
//   - if it wraps the server's JSON-RPC error response (errors.As *jsonrpc.Error: mcp/transport.go
//     call wraps the error (*jsonrpc2.AsyncCall).Await returns, which is the response's decoded
//     "error" member, internal/jsonrpc2/messages.go DecodeMessage), D1 is captured as the Go error
//     the application receives: {"error": {"message": err.Error()}}, which the lane binds as
//     `raised` (T3 abort);
//   - otherwise (a decode failure, a transport failure) D1 is execution_failed with the error text.
//
// A2, M3 and H4 have no meaning for an SDK (no application, model or provider) and are recorded
// not_applicable. One repetition per run; capture.sh runs three fresh processes.
//
// Usage:
//
//	go run . -fixtures ../../../fixtures/sources -repetition 1 >> default.jsonl
package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/contractcheck/contractcheck/examples/internal/harness"
	"github.com/contractcheck/contractcheck/examples/internal/rawmcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	lane      = "go-sdk"
	sdkModule = "github.com/modelcontextprotocol/go-sdk"
)

func main() { harness.MainD1(lane, sdkModule, call) }

// call connects a fresh SDK client session to the raw server on pipes, calls the fixture tool
// once and closes the session.
func call(ctx context.Context, pipes *harness.Pipes, version string) (harness.Call, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "contractcheck-capture", Version: version}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: pipes.In, Writer: pipes.Out}, nil)
	if err != nil {
		return harness.Call{}, fmt.Errorf("connect: %w", err)
	}
	res, callErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: rawmcp.ToolName})
	cs.Close()
	var rpcErr *jsonrpc.Error
	return harness.Call{Result: res, Err: callErr, RPCError: errors.As(callErr, &rpcErr)}, nil
}
