package reproduce

import "strings"

// seam is how a lane's carrier is had at a stage, as the lane's capture program has it, in the
// language and test conventions of the framework: the code that calls the framework against the
// raw server and returns the carrier the lane binding reads.
type seam struct {
	// stages lists the stages the seam gives; a stage sharing another's carrier is read there.
	stages []string
	// language is go, js or python.
	language string
	// framework names what is under test, in messages.
	framework string
	// module is the Go module (or npm package) whose version is the lane version.
	module string
	// pkg is the Go test package the file declares (the package directory it drops into).
	pkg string
	// std and imports are the seam's Go imports: the standard library's, and the framework's.
	std, imports []string
	// doc says what the seam calls and what it reads, for the file's comment.
	doc string
	// code is the seam: Go func frameworkCall(t *testing.T) any, or a JS function; codeFor, when
	// set, writes it for a lane version instead.
	code    string
	codeFor func(version string) string
	// capture names the capture program the seam follows.
	capture string
}

// seams lists the lanes reproduce writes a test for, by lane: the key is the lane's id.
var seams = map[string]seam{
	"go-sdk": {
		stages: []string{"D1"}, language: "go", framework: "the go-sdk client",
		module: "github.com/modelcontextprotocol/go-sdk", pkg: "mcp_test", capture: "examples/capture/go-sdk/main.go",
		std: []string{`"errors"`}, imports: []string{`"github.com/modelcontextprotocol/go-sdk/jsonrpc"`, `"github.com/modelcontextprotocol/go-sdk/mcp"`},
		doc: "A go-sdk client (mcp.NewClient, default options) connects to it over mcp.IOTransport and " +
			"calls the tool; the *mcp.CallToolResult ClientSession.CallTool returns is what the application " +
			"reads, re-encoded here by the SDK itself (json.Marshal).",
		code: `// frameworkCall is lane go-sdk's D1 seam, as examples/capture/go-sdk has it: the result CallTool
// returns, re-encoded by the SDK (json.Marshal runs the SDK's MarshalJSON methods); when CallTool
// returns the server's JSON-RPC error (a *jsonrpc.Error), {"error": {"message": err.Error()}}.
func frameworkCall(t *testing.T) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, out := serve(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "repro", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: in, Writer: out}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolName})
	if err != nil {
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) {
			t.Fatalf("CallTool: %v", err)
		}
` + seamReturn,
	},
	"mcp-go": {
		stages: []string{"D1"}, language: "go", framework: "the mcp-go client",
		module: "github.com/mark3labs/mcp-go", pkg: "client_test", capture: "examples/capture/mcp-go/main.go",
		std: []string{`"sync"`}, imports: []string{`"github.com/mark3labs/mcp-go/client"`, `"github.com/mark3labs/mcp-go/client/transport"`, `"github.com/mark3labs/mcp-go/mcp"`},
		doc: "An mcp-go client (client.NewClient over transport.NewIO) initializes and calls the tool; the " +
			"*mcp.CallToolResult CallTool returns is what the application reads, re-encoded here by the " +
			"library itself (json.Marshal).",
		codeFor: mcpGoSeam,
	},
	"mcp-python": {
		stages: []string{"D1"}, language: "python", framework: "the MCP Python SDK's ClientSession",
		module: "mcp", capture: "examples/capture/python/lane_mcp_python.py",
		doc: "The MCP Python SDK's stdio_client spawns it; ClientSession initializes and calls the tool; " +
			"the CallToolResult call_tool returns is what the application reads, dumped as sent " +
			"(model_dump by alias, only the fields set).",
	},
	"langchain-mcp-adapters-js": {
		stages: []string{"A2", "M3"}, language: "js", framework: "@langchain/mcp-adapters",
		module: "@langchain/mcp-adapters", capture: "examples/capture/js/langchain-mcp-adapters.mjs",
		doc: "MultiServerMCPClient (@langchain/mcp-adapters, an MCP SDK stdio client) loads fixture_tool " +
			"from it; LangGraph's ToolNode runs the tool call; the ToolMessage it returns is what the " +
			"application reads (A2), and the same object is what the chat model is handed (M3).",
	},
}

// seamReturn ends the Go seams' frameworkCall: the JSON-RPC error's answer (the seam's own test
// of it comes before), else the result re-encoded by the framework (json.Marshal) and read back
// as the checker reads a carrier (decodeJSON).
const seamReturn = `		return map[string]any{"error": map[string]any{"message": err.Error()}}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("re-encoding the result: %v", err)
	}
	doc, err := decodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}`

// mcpGoSeam is lane mcp-go's D1 seam for a version, as examples/capture/mcp-go has it: before v1
// the caller names the protocol version (the library's examples set LATEST_PROTOCOL_VERSION, and
// Initialize fails without one); from v1 an empty one lets the client negotiate.
func mcpGoSeam(version string) string {
	protocol := ""
	if strings.HasPrefix(version, "v0.") {
		protocol = "\tinit.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION\n"
	}
	return mcpGoSeamStart + protocol + mcpGoSeamEnd
}

const mcpGoSeamStart = `// frameworkCall is lane mcp-go's D1 seam, as examples/capture/mcp-go has it: the result CallTool
// returns, re-encoded by the library (json.Marshal); when the tools/call response was a JSON-RPC
// error, {"error": {"message": err.Error()}}.
func frameworkCall(t *testing.T) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in, out := serve(t)
	// An empty stderr, not nil: before v0.38.0, (*Stdio).Close closes stderr unconditionally and
	// panics on nil (transport/stdio.go). The raw server writes no logs.
	tr := &observedIO{Stdio: transport.NewIO(in, out, io.NopCloser(strings.NewReader("")))}
	c := client.NewClient(tr)
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "repro", Version: "1"}
`

const mcpGoSeamEnd = `	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = toolName
	res, err := c.CallTool(ctx, req)
	if err != nil {
		if !tr.rpcFailed() {
			t.Fatalf("CallTool: %v", err)
		}
` + seamReturn + `

// observedIO notes whether the tools/call response was a JSON-RPC error.
type observedIO struct {
	*transport.Stdio
	mu     sync.Mutex
	failed bool
}

func (o *observedIO) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := o.Stdio.SendRequest(ctx, req)
	if req.Method == string(mcp.MethodToolsCall) && err == nil && resp != nil && resp.Error != nil {
		o.mu.Lock()
		o.failed = true
		o.mu.Unlock()
	}
	return resp, err
}

func (o *observedIO) rpcFailed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failed
}`
