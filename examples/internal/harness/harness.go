// Package harness holds what the Go capture programs share: their command line, the version of the
// framework module linked into them, the raw fixture server on a pair of pipes, the D1 carrier of a
// client library's call, and the record loop of a lane that observes D1 only. Like record and rawmcp it has no dependencies, so every lane
// module can use it whatever its framework pins.
package harness

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
)

// Main parses the flags every capture program takes, -fixtures and -repetition (with any flag the
// caller defined before), and runs run; a failure is printed as "<name>: <error>" and exits 1.
func Main(name string, run func(fixtures string, repetition int) error) {
	fixtures := flag.String("fixtures", "fixtures/sources", "directory of <suite>/<id>.json sources")
	repetition := flag.Int("repetition", 1, "repetition number written into each record")
	flag.Parse()
	if err := run(*fixtures, *repetition); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Dependency is the module path as linked into this binary, read from its build information.
func Dependency(path string) (*debug.Module, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil, errors.New("no build information in the binary")
	}
	for _, d := range info.Deps {
		if d.Path == path {
			return d, nil
		}
	}
	return nil, fmt.Errorf("%s is not linked into the binary", path)
}

// ModuleVersion is the published version of module path linked into this binary: the lane
// version. A replaced module has none.
func ModuleVersion(path string) (string, error) {
	d, err := Dependency(path)
	if err != nil {
		return "", err
	}
	if d.Replace != nil {
		return "", fmt.Errorf("%s is replaced by %s: not a published version", path, d.Replace.Path)
	}
	return d.Version, nil
}

// Pipes is the raw fixture server (rawmcp) serving one fixture on a pair of pipes: a client
// writes its requests to Out and reads the answers from In.
type Pipes struct {
	Server *rawmcp.Server
	In     *io.PipeReader
	Out    *io.PipeWriter
	served chan error
}

// Serve starts the raw server for fixture on a fresh pair of pipes.
func Serve(fixture []byte) *Pipes {
	// Two pipes: client → server and server → client.
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	p := &Pipes{Server: &rawmcp.Server{Fixture: fixture}, In: clientIn, Out: clientOut, served: make(chan error, 1)}
	go func() {
		err := p.Server.Serve(serverIn, serverOut)
		serverOut.Close()
		serverIn.Close()
		p.served <- err
	}()
	return p
}

// Close closes the client's end of the requests pipe, so the server sees the end of its input,
// and waits for the server to stop. A server that stopped on the closed pipe did not fail.
func (p *Pipes) Close() error {
	p.Out.Close()
	if err := <-p.served; err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("raw server: %w", err)
	}
	return nil
}

// CalledOnce checks that the client sent exactly one tools/call request.
func (p *Pipes) CalledOnce() error {
	if p.Server.Calls != 1 {
		return fmt.Errorf("the client sent %d tools/call requests, want 1", p.Server.Calls)
	}
	return nil
}

// MainD1 is the whole command of a lane that observes D1 only: Main, the lane version read with
// ModuleVersion(module), and WriteD1Lane to stdout, each fixture captured by CaptureD1 with call,
// which gets the lane version.
func MainD1(lane, module string, call func(ctx context.Context, pipes *Pipes, version string) (Call, error)) {
	Main(lane, func(dir string, repetition int) error {
		version, err := ModuleVersion(module)
		if err != nil {
			return err
		}
		w := &record.Writer{W: os.Stdout, Lane: lane, LaneVersion: version, Configuration: "default", Repetition: repetition}
		return WriteD1Lane(w, dir, func(fixture []byte) (any, error) {
			return CaptureD1(fixture, func(ctx context.Context, pipes *Pipes) (Call, error) { return call(ctx, pipes, version) })
		})
	})
}

// Call is what a client library's one tools/call returned: the result it decoded, or the error it
// returned and whether that error is the server's JSON-RPC error response (which only the
// library's error types or its transport can tell).
type Call struct {
	Result   any
	Err      error
	RPCError bool
}

// CaptureD1 is the D1 carrier of one fixture for a client library: the raw server serves fixture
// on a fresh pair of pipes (Serve) to call, which connects a fresh client of the library to them
// with default options, calls the fixture tool once and closes the client, all within 30 s.
// Then the pipes are closed, the server must have been sent exactly one tools/call, and the
// carrier is D1Carrier of what the call returned. An error (call's own, the server's, a second
// call) makes D1 execution_failed.
func CaptureD1(fixture []byte, call func(ctx context.Context, pipes *Pipes) (Call, error)) (any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pipes := Serve(fixture)
	c, err := call(ctx, pipes)
	if closeErr := pipes.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}
	if err := pipes.CalledOnce(); err != nil {
		return nil, err
	}
	return D1Carrier(c.Result, c.Err, c.RPCError)
}

// Raised is the D1 carrier of a call that returned the server's JSON-RPC error as a Go error:
// {"error": {"message": err.Error()}}, which a lane binds as `raised`.
type Raised struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// RaisedBy is the Raised carrier of err.
func RaisedBy(err error) Raised {
	var r Raised
	r.Error.Message = err.Error()
	return r
}

// D1Carrier is the D1 carrier of a client library's tools/call, from what the call returned:
// without an error, the library's decoded result re-encoded by the library (json.Marshal, which
// runs the library's MarshalJSON methods and struct tags); when the call failed because the
// server answered with a JSON-RPC error (rpcError, which only the library's error types or
// transport can tell), the Go error the application receives, RaisedBy(callErr); any other
// failure (a decode failure, a transport failure) is returned, and D1 is execution_failed.
func D1Carrier(res any, callErr error, rpcError bool) (any, error) {
	if callErr != nil {
		if rpcError {
			return RaisedBy(callErr), nil
		}
		return nil, callErr
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("re-encoding the decoded result: %w", err)
	}
	return json.RawMessage(b), nil
}

// WriteD1Lane writes the records of a lane that observes D1 only (an MCP client library: no
// application, model or provider): for every fixture under dir, D1 as capture returns it
// (captured, or execution_failed with the error), then A2, M3 and H4 not_applicable.
func WriteD1Lane(w *record.Writer, dir string, capture func(fixture []byte) (any, error)) error {
	fs, err := record.Fixtures(dir)
	if err != nil {
		return err
	}
	for _, f := range fs {
		carrier, callErr := capture(f.Bytes)
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
