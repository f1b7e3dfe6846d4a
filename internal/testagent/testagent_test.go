package testagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

func TestMain(m *testing.M) {
	maybeServeStdio() // the binary re-executed as the stdio MCP server
	if os.Getenv(EnvSwitch) == "1" {
		Main() // the binary re-executed as the agent
	}
	os.Exit(m.Run())
}

// provider serves a fake provider under a prefix, as the probe mounts it, and returns it with
// an Env reading its variables.
func provider(t *testing.T, cfg fakeprovider.Config) (*fakeprovider.Provider, string, func(string) string) {
	t.Helper()
	p := fakeprovider.New(cfg)
	mux := http.NewServeMux()
	mux.Handle("/r/tok/", http.StripPrefix("/r/tok", p))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	root := srv.URL + "/r/tok"
	env := map[string]string{}
	for _, kv := range fakeprovider.Env(root) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return p, root, func(k string) string { return env[k] }
}

// mcpServer starts the HTTP MCP server.
func mcpServer(t *testing.T, s *testMCP) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// stdioCommand is the argv that starts the test binary as the stdio MCP server.
func stdioCommand() []string { return []string{os.Args[0], stdioSentinel} }

// canonical re-encodes a JSON text with sorted keys, for comparisons.
// runDone runs the agent with cfg (its stdout captured) against the fake provider p; t fails at
// once when the run or the provider reports an error, and when the agent does not end with the
// model's final text.
func runDone(t *testing.T, p *fakeprovider.Provider, cfg Config) {
	t.Helper()
	var out bytes.Buffer
	cfg.Stdout = &out
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := p.Err(); err != nil {
		t.Fatalf("provider: %v", err)
	}
	if out.String() != "Done.\n" {
		t.Errorf("stdout %q, want the final text", out.String())
	}
}

func canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// wantItem is the tool-result item the agent sends for a fixture, per API, in canonical form.
func wantItem(t *testing.T, api fakeprovider.API, fixture, callID, name string) string {
	t.Helper()
	const joined = "hello <b> & \u2028 \"q\"\nsecond"
	var item any
	switch fixture {
	case "text":
		switch api {
		case fakeprovider.OpenAIResponses:
			item = map[string]any{"type": "function_call_output", "call_id": callID, "output": joined}
		case fakeprovider.OpenAIChat:
			item = map[string]any{"role": "tool", "tool_call_id": callID, "content": joined}
		case fakeprovider.Anthropic:
			item = map[string]any{"type": "tool_result", "tool_use_id": callID, "is_error": false, "content": []any{
				map[string]any{"type": "text", "text": "hello <b> & \u2028 \"q\""}, map[string]any{"type": "text", "text": "second"}}}
		case fakeprovider.Gemini:
			item = map[string]any{"functionResponse": map[string]any{"name": name, "response": map[string]any{"output": joined}}}
		}
	case "rich":
		link := `{"type":"resource_link","uri":"file:///x.txt","name":"x"}`
		switch api {
		case fakeprovider.OpenAIResponses:
			item = map[string]any{"type": "function_call_output", "call_id": callID, "output": []any{
				map[string]any{"type": "input_text", "text": "see image"},
				map[string]any{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
				map[string]any{"type": "input_text", "text": link}}}
		case fakeprovider.OpenAIChat:
			item = map[string]any{"role": "tool", "tool_call_id": callID,
				"content": "see image\n" + `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}` + "\n" + link}
		case fakeprovider.Anthropic:
			item = map[string]any{"type": "tool_result", "tool_use_id": callID, "is_error": true, "content": []any{
				map[string]any{"type": "text", "text": "see image"},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
				map[string]any{"type": "text", "text": link}}}
		case fakeprovider.Gemini:
			item = map[string]any{"functionResponse": map[string]any{"name": name, "response": map[string]any{
				"error": "see image\n" + `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}` + "\n" + link}}}
		}
	case "rpc-error":
		const msg = "MCP error -32603: boom"
		switch api {
		case fakeprovider.OpenAIResponses:
			item = map[string]any{"type": "function_call_output", "call_id": callID, "output": msg}
		case fakeprovider.OpenAIChat:
			item = map[string]any{"role": "tool", "tool_call_id": callID, "content": msg}
		case fakeprovider.Anthropic:
			item = map[string]any{"type": "tool_result", "tool_use_id": callID, "is_error": true, "content": []any{map[string]any{"type": "text", "text": msg}}}
		case fakeprovider.Gemini:
			item = map[string]any{"functionResponse": map[string]any{"name": name, "response": map[string]any{"error": msg}}}
		}
	}
	b, err := json.Marshal(item)
	if err != nil {
		t.Fatal(err)
	}
	return canonical(t, b)
}

// TestRun runs the agent for every API, plain and streamed, over both MCP transports.
func TestRun(t *testing.T) {
	for _, api := range fakeprovider.APIs() {
		for _, stream := range []bool{false, true} {
			for _, transport := range []string{"http", "stdio"} {
				name := string(api) + map[bool]string{false: " plain", true: " streamed"}[stream] + " " + transport
				t.Run(name, func(t *testing.T) {
					p, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool",
						Calls: []fakeprovider.Call{{ID: "call_1", Arguments: `{"fixture":"text"}`}}})
					cfg := Config{API: api, Stream: stream, Tool: "fixture_tool", Env: env}
					mcp := &testMCP{}
					if transport == "http" {
						cfg.MCPURL = mcpServer(t, mcp)
					} else {
						cfg.MCPCommand = stdioCommand()
					}
					runDone(t, p, cfg)
					gotAPI, item, seq, ok := p.Result("call_1")
					if !ok || gotAPI != api || seq != 2 {
						t.Fatalf("Result = %s, %q, %d, %v", gotAPI, item, seq, ok)
					}
					if got, want := canonical(t, item), wantItem(t, api, "text", "call_1", "fixture_tool"); got != want {
						t.Errorf("result item\n got %s\nwant %s", got, want)
					}
					reqs := p.Requests()
					if len(reqs) != 2 {
						t.Fatalf("%d provider requests, want 2", len(reqs))
					}
					for _, r := range reqs {
						if r.Stream != stream {
							t.Errorf("request %d streamed %v, want %v", r.Seq, r.Stream, stream)
						}
					}
					if transport == "http" {
						methods, failures := mcp.report()
						if len(failures) > 0 {
							t.Errorf("MCP header failures: %q", failures)
						}
						if want := []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}; !slices.Equal(methods, want) {
							t.Errorf("MCP methods %q, want %q", methods, want)
						}
					}
				})
			}
		}
	}
}

// TestResultShapes checks the native tool-result shape of rich results and JSON-RPC errors.
func TestResultShapes(t *testing.T) {
	for _, api := range fakeprovider.APIs() {
		for _, fixture := range []string{"rich", "rpc-error"} {
			t.Run(string(api)+" "+fixture, func(t *testing.T) {
				p, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool",
					Calls: []fakeprovider.Call{{ID: "call_9", Arguments: `{"fixture":"` + fixture + `"}`}}})
				cfg := Config{API: api, Stream: true, MCPURL: mcpServer(t, &testMCP{}), Env: env, ToolPrefix: "mcp__srv__", Stdout: &bytes.Buffer{}}
				if err := Run(context.Background(), cfg); err != nil {
					t.Fatalf("Run: %v", err)
				}
				_, item, _, ok := p.Result("call_9")
				if !ok {
					t.Fatal("no result item")
				}
				if got, want := canonical(t, item), wantItem(t, api, fixture, "call_9", "mcp__srv__fixture_tool"); got != want {
					t.Errorf("result item\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}

// TestPrefixedTool checks that the agent declares prefixed names and maps calls back.
func TestPrefixedTool(t *testing.T) {
	for _, api := range fakeprovider.APIs() {
		t.Run(string(api), func(t *testing.T) {
			p, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool", Calls: []fakeprovider.Call{{ID: "call_1"}, {ID: "call_2"}}})
			mcp := &testMCP{}
			cfg := Config{API: api, MCPURL: mcpServer(t, mcp), Env: env, ToolPrefix: "rawmcp_", Stdout: &bytes.Buffer{}}
			if err := Run(context.Background(), cfg); err != nil {
				t.Fatalf("Run: %v", err)
			}
			first := string(p.Requests()[0].Body)
			if !strings.Contains(first, `"rawmcp_fixture_tool"`) {
				t.Errorf("the first request does not declare rawmcp_fixture_tool: %s", first)
			}
			methods, _ := mcp.report()
			if n := strings.Count(strings.Join(methods, " "), "tools/call"); n != 2 {
				t.Errorf("%d tools/call, want 2", n)
			}
			for _, id := range []string{"call_1", "call_2"} {
				if _, _, _, ok := p.Result(id); !ok {
					t.Errorf("no result for %s", id)
				}
			}
		})
	}
}

func TestModes(t *testing.T) {
	cases := []struct {
		name        string
		mode        string
		wantErr     string
		wantCalls   int    // MCP tools/call requests
		wantModelRq int    // provider requests
		wantItem    string // in the item carrying call_1's result, when set
	}{
		{name: "skip tool", mode: ModeSkipTool, wantCalls: 0, wantModelRq: 1},
		{name: "reject result", mode: ModeRejectResult, wantCalls: 1, wantModelRq: 2, wantItem: RejectedResult},
		{name: "tag lines", mode: ModeTagLines, wantCalls: 1, wantModelRq: 2, wantItem: `<untrusted_context>\n`},
		{name: "no follow-up", mode: ModeNoFollowUp, wantCalls: 1, wantModelRq: 1},
		{name: "fail", mode: ModeFail, wantErr: "failing on purpose"},
		{name: "hang", mode: ModeHang, wantErr: "hung until context canceled"},
		{name: "unknown", mode: "sulk", wantErr: `unknown mode "sulk"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool", Calls: []fakeprovider.Call{{ID: "call_1"}}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			mcp := &testMCP{}
			cfg := Config{API: fakeprovider.Gemini, MCPURL: mcpServer(t, mcp), Env: env, Mode: tc.mode, Stdout: &bytes.Buffer{}}
			cfg.hanging = cancel // the agent has reached its hang
			err := Run(ctx, cfg)
			testkit.ErrCase(t, err, tc.wantErr)
			methods, _ := mcp.report()
			if n := strings.Count(strings.Join(methods, " "), "tools/call"); n != tc.wantCalls {
				t.Errorf("%d tools/call, want %d", n, tc.wantCalls)
			}
			if n := len(p.Requests()); n != tc.wantModelRq {
				t.Errorf("%d provider requests, want %d", n, tc.wantModelRq)
			}
			if tc.wantItem != "" {
				if _, item, _, ok := p.Result("call_1"); !ok || !strings.Contains(string(item), tc.wantItem) {
					t.Errorf("the result item %s lacks %q", item, tc.wantItem)
				}
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	cases := []struct {
		name    string
		cfg     func(t *testing.T) Config
		wantErr string
	}{
		{name: "provider refuses: tool not matching", wantErr: `no tool matching "other_tool"`, cfg: func(t *testing.T) Config {
			_, _, env := provider(t, fakeprovider.Config{Tool: "other_tool", Calls: []fakeprovider.Call{{ID: "c"}}})
			return Config{API: fakeprovider.OpenAIChat, MCPURL: mcpServer(t, &testMCP{}), Env: env}
		}},
		{name: "no base URL", wantErr: "ANTHROPIC_BASE_URL is not set", cfg: func(t *testing.T) Config {
			return Config{API: fakeprovider.Anthropic, MCPURL: mcpServer(t, &testMCP{}), Env: func(string) string { return "" }}
		}},
		{name: "tool not listed by the server", wantErr: `does not list the tool "absent" (it lists ["fixture_tool"])`, cfg: func(t *testing.T) Config {
			_, _, env := provider(t, fakeprovider.Config{Tool: "fixture_tool"})
			return Config{API: fakeprovider.Gemini, Tool: "absent", MCPURL: mcpServer(t, &testMCP{}), Env: env}
		}},
		{name: "no MCP server", wantErr: "no MCP server", cfg: func(t *testing.T) Config {
			return Config{API: fakeprovider.Gemini}
		}},
		{name: "MCP endpoint not found", wantErr: "MCP initialize: POST", cfg: func(t *testing.T) Config {
			srv := httptest.NewServer(http.NotFoundHandler())
			t.Cleanup(srv.Close)
			return Config{API: fakeprovider.Gemini, MCPURL: srv.URL}
		}},
		{name: "MCP command fails to start", wantErr: "start the MCP server", cfg: func(t *testing.T) Config {
			return Config{API: fakeprovider.Gemini, MCPCommand: []string{t.TempDir() + "/absent"}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg(t)
			cfg.Stdout = &bytes.Buffer{}
			err := Run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Run = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "http by default when a URL is given",
			env:  map[string]string{"CONTRACTCHECK_MCP_URL": "http://127.0.0.1:1/mcp", "CONTRACTCHECK_MCP_COMMAND": "cc serve", "CONTRACTCHECK_TOOL": "fixture_tool", "CONTRACTCHECK_PROMPT": "go"},
			want: Config{MCPURL: "http://127.0.0.1:1/mcp", Tool: "fixture_tool", Prompt: "go", API: fakeprovider.OpenAIResponses}},
		{name: "stdio",
			env:  map[string]string{"CONTRACTCHECK_MCP_URL": "http://127.0.0.1:1/mcp", "CONTRACTCHECK_MCP_COMMAND": `'/a b/cc' serve --stdio`, "TESTAGENT_TRANSPORT": "stdio", "TESTAGENT_API": "gemini", "TESTAGENT_STREAM": "1", "TESTAGENT_TOOL_PREFIX": "p_", "TESTAGENT_MODE": "hang"},
			want: Config{MCPCommand: []string{"/a b/cc", "serve", "--stdio"}, API: fakeprovider.Gemini, Stream: true, ToolPrefix: "p_", Mode: ModeHang}},
		{name: "stdio by default without a URL",
			env:  map[string]string{"CONTRACTCHECK_MCP_COMMAND": "cc", "TESTAGENT_API": "anthropic"},
			want: Config{MCPCommand: []string{"cc"}, API: fakeprovider.Anthropic}},
		{name: "explicit http", env: map[string]string{"CONTRACTCHECK_MCP_URL": "u", "CONTRACTCHECK_MCP_COMMAND": "cc", "TESTAGENT_TRANSPORT": "http", "TESTAGENT_STREAM": "0"},
			want: Config{MCPURL: "u", API: fakeprovider.OpenAIResponses}},
		{name: "bad API", env: map[string]string{"TESTAGENT_API": "openai"}, wantErr: `TESTAGENT_API: unknown provider API "openai"`},
		{name: "bad stream", env: map[string]string{"TESTAGENT_STREAM": "yes"}, wantErr: `TESTAGENT_STREAM="yes"`},
		{name: "bad transport", env: map[string]string{"TESTAGENT_TRANSPORT": "ws"}, wantErr: `TESTAGENT_TRANSPORT="ws"`},
		{name: "http without URL", env: map[string]string{"TESTAGENT_TRANSPORT": "http"}, wantErr: "CONTRACTCHECK_MCP_URL is not set"},
		{name: "stdio without command", env: map[string]string{"TESTAGENT_TRANSPORT": "stdio"}, wantErr: "CONTRACTCHECK_MCP_COMMAND is not set"},
		{name: "bad command", env: map[string]string{"CONTRACTCHECK_MCP_COMMAND": `cc 'x`}, wantErr: "CONTRACTCHECK_MCP_COMMAND: an unterminated single quote"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigFromEnv(func(k string) string { return tc.env[k] })
			if testkit.ErrCase(t, err, tc.wantErr) {
				return
			}
			if got.Env == nil {
				t.Error("Env not set")
			}
			got.Env = nil
			if got.MCPURL != tc.want.MCPURL || !slices.Equal(got.MCPCommand, tc.want.MCPCommand) || got.API != tc.want.API ||
				got.Stream != tc.want.Stream || got.Tool != tc.want.Tool || got.Prompt != tc.want.Prompt ||
				got.ToolPrefix != tc.want.ToolPrefix || got.Mode != tc.want.Mode {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestMainProcess runs the test binary as the agent (Main), the way the probe's tests run it,
// with the stdio MCP server a further re-execution of the same binary.
func TestMainProcess(t *testing.T) {
	cases := []struct {
		name     string
		env      []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{name: "anthropic streamed over stdio", env: []string{"TESTAGENT_API=anthropic", "TESTAGENT_STREAM=1", "TESTAGENT_TRANSPORT=stdio"}, wantOut: "Done.\n"},
		{name: "chat over http", env: []string{"TESTAGENT_API=openai-chat"}, wantOut: "Done.\n"},
		{name: "mode fail", env: []string{"TESTAGENT_MODE=fail"}, wantCode: 1, wantErr: "testagent: failing on purpose"},
		{name: "bad configuration", env: []string{"TESTAGENT_API=bogus"}, wantCode: 1, wantErr: `testagent: TESTAGENT_API: unknown provider API "bogus"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, root, _ := provider(t, fakeprovider.Config{Tool: "fixture_tool", Calls: []fakeprovider.Call{{ID: "call_1"}}})
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), fakeprovider.Env(root)...)
			cmd.Env = append(cmd.Env,
				EnvSwitch+"=1",
				"CONTRACTCHECK_MCP_URL="+mcpServer(t, &testMCP{}),
				"CONTRACTCHECK_MCP_COMMAND='"+strings.ReplaceAll(os.Args[0], "'", `'\''`)+"' "+stdioSentinel,
				"CONTRACTCHECK_TOOL=fixture_tool",
				"CONTRACTCHECK_PROMPT=Please call fixture_tool.",
			)
			cmd.Env = append(cmd.Env, tc.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode || stdout.String() != tc.wantOut || !strings.Contains(stderr.String(), tc.wantErr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q", code, stdout.String(), stderr.String(), tc.wantCode, tc.wantOut, tc.wantErr)
			}
			if tc.wantCode == 0 {
				if _, _, _, ok := p.Result("call_1"); !ok || p.Err() != nil {
					t.Fatalf("no result reached the provider (Err %v)", p.Err())
				}
				if !strings.Contains(string(p.Requests()[0].Body), "Please call fixture_tool.") {
					t.Error("the prompt did not reach the provider")
				}
			}
		})
	}
}
