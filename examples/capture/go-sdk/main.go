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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/contractcheck/contractcheck/examples/internal/rawmcp"
	"github.com/contractcheck/contractcheck/examples/internal/record"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	lane      = "go-sdk"
	sdkModule = "github.com/modelcontextprotocol/go-sdk"
)

func main() {
	fixtures := flag.String("fixtures", "fixtures/sources", "directory of <suite>/<id>.json sources")
	repetition := flag.Int("repetition", 1, "repetition number written into each record")
	flag.Parse()
	if err := run(*fixtures, *repetition, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "go-sdk:", err)
		os.Exit(1)
	}
}

// moduleVersion is the SDK version linked into this binary: the lane version.
func moduleVersion(path string) (string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", errors.New("no build information in the binary")
	}
	for _, d := range info.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return "", fmt.Errorf("%s is replaced by %s: not a published version", path, d.Replace.Path)
			}
			return d.Version, nil
		}
	}
	return "", fmt.Errorf("%s is not linked into the binary", path)
}

func run(dir string, repetition int, out io.Writer) error {
	version, err := moduleVersion(sdkModule)
	if err != nil {
		return err
	}
	fs, err := record.Fixtures(dir)
	if err != nil {
		return err
	}
	w := &record.Writer{W: out, Lane: lane, LaneVersion: version, Configuration: "default", Repetition: repetition}
	for _, f := range fs {
		carrier, callErr := capture(f.Bytes, version)
		if callErr != nil {
			err = w.Failed(f, "D1", callErr)
		} else {
			err = w.Captured(f, "D1", carrier)
		}
		if err != nil {
			return err
		}
		for _, stage := range []string{"A2", "M3", "H4"} {
			if err := w.NotApplicable(f, stage); err != nil {
				return err
			}
		}
	}
	return nil
}

// raisedCarrier is the D1 carrier of a CallTool that returned the server's JSON-RPC error.
type raisedCarrier struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// capture serves one fixture to a fresh SDK client session and returns the D1 carrier, or the
// error that makes D1 execution_failed.
func capture(fixture []byte, version string) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Two pipes: client → server and server → client.
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	srv := &rawmcp.Server{Fixture: fixture}
	served := make(chan error, 1)
	go func() {
		err := srv.Serve(serverIn, serverOut)
		serverOut.Close()
		serverIn.Close()
		served <- err
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "contractcheck-capture", Version: version}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		clientOut.Close()
		<-served
		return nil, fmt.Errorf("connect: %w", err)
	}
	res, callErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: rawmcp.ToolName})
	cs.Close()
	clientOut.Close()
	if err := <-served; err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return nil, fmt.Errorf("raw server: %w", err)
	}
	if srv.Calls != 1 {
		return nil, fmt.Errorf("the client sent %d tools/call requests, want 1", srv.Calls)
	}
	if callErr != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(callErr, &rpcErr) {
			var c raisedCarrier
			c.Error.Message = callErr.Error()
			return c, nil
		}
		return nil, callErr
	}
	// The SDK value re-encoded by the SDK: this is the carrier.
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("re-encoding the decoded result: %w", err)
	}
	return json.RawMessage(b), nil
}
