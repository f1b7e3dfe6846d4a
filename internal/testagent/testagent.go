// Package testagent is a minimal agent written in Go with the standard library only, which the
// hermetic tests of `contractcheck probe` run as the user's command (the test binary re-executes
// itself, see Main). It connects to an MCP server (Streamable HTTP or stdio), lists its tools,
// declares them to a model provider, calls a tool whenever the model asks, hands the result back
// in the provider API's native tool-result shape and stops at the model's final text.
//
// Every provider API is spoken plain or streamed (SSE), statelessly: each request carries the
// whole history. A tools/call outcome reaches the model as follows (a JSON-RPC error counts as
// one text item "MCP error CODE: MESSAGE" with the error flag set; a block that is neither text
// nor image counts as a text item holding the block's JSON, compacted; structuredContent and
// _meta are not passed on):
//
//   - OpenAI Responses: a function_call_output item whose output is the text items joined by
//     newlines when all items are text, else a list of input_text and input_image (data URL)
//     parts; no error flag exists.
//   - OpenAI Chat Completions: a tool message whose content is the text items joined by
//     newlines; no error flag exists.
//   - Anthropic Messages: a tool_result block whose content lists text blocks and image blocks
//     (base64 source), with is_error set from the result's isError when it is a boolean (true
//     for a JSON-RPC error) and absent otherwise.
//   - Gemini: a functionResponse part {id (when the call had one), name, response} whose response
//     is {"output": joined text}, or {"error": joined text} when isError is true or on a JSON-RPC
//     error.
package testagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// EnvSwitch is the environment variable by which a test binary's TestMain conventionally
// decides to run Main instead of its tests (this package's own tests use the value "1").
const EnvSwitch = "CONTRACTCHECK_TESTAGENT"

// The modes of a misbehaving agent (Config.Mode), for the probe's tests of broken commands.
const (
	// ModeNormal runs the agent as described.
	ModeNormal = ""
	// ModeSkipTool stops after the first model answer without calling any tool (exit 0).
	ModeSkipTool = "skip-tool"
	// ModeNoFollowUp calls the tool but never sends the follow-up model request (exit 0).
	ModeNoFollowUp = "no-followup"
	// ModeFail fails at once with an error (exit 1), before contacting anything.
	ModeFail = "fail"
	// ModeHang initializes the MCP session and then waits until the context ends.
	ModeHang = "hang"
)

// modes lists the valid Config.Mode values.
var modes = []string{ModeNormal, ModeSkipTool, ModeNoFollowUp, ModeFail, ModeHang}

// DefaultPrompt is the user prompt when Config.Prompt is empty.
const DefaultPrompt = "Call the tool and report what it returned."

// maxTurns bounds the model turns of one run.
const maxTurns = 64

// Config configures one agent run.
type Config struct {
	// MCPURL is the MCP server's Streamable HTTP endpoint (used when MCPCommand is empty).
	MCPURL string
	// MCPCommand is the argv that starts the MCP server on stdio.
	MCPCommand []string
	// API is the provider API the agent speaks.
	API fakeprovider.API
	// Stream makes every model request a streamed one.
	Stream bool
	// Tool is the MCP tool the run is about: it must be listed (all listed tools are declared).
	// Empty accepts any tool list.
	Tool string
	// Prompt is the user prompt (DefaultPrompt when empty).
	Prompt string
	// ToolPrefix is prepended to every MCP tool name toward the model, as frameworks do.
	ToolPrefix string
	// Mode makes the agent misbehave on purpose (ModeNormal by default).
	Mode string
	// MaxTurns, when positive, is a framework's step cap: after that many model turns the agent
	// stops with success, the tool calls of the last turn made but their results not sent on.
	MaxTurns int
	// Env reads OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL and the API keys;
	// os.Getenv when nil.
	Env func(string) string
	// HTTPClient sends the MCP and provider requests (http.DefaultClient when nil).
	HTTPClient *http.Client
	// Stdout receives the final text (os.Stdout when nil).
	Stdout io.Writer

	hanging func() // tests: told when ModeHang starts waiting
}

// ConfigFromEnv reads a Config from the environment the probe gives a command:
// CONTRACTCHECK_MCP_URL, CONTRACTCHECK_MCP_COMMAND (shell words: single and double quotes and
// backslashes as in a POSIX shell, no expansions), CONTRACTCHECK_TOOL, CONTRACTCHECK_PROMPT,
// and the agent's own TESTAGENT_API (default openai-responses), TESTAGENT_STREAM=1,
// TESTAGENT_TRANSPORT=http|stdio (default http when CONTRACTCHECK_MCP_URL is set, else stdio),
// TESTAGENT_TOOL_PREFIX, TESTAGENT_MODE and TESTAGENT_MAX_TURNS (a positive number; else no
// cap). Env is set to getenv.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		MCPURL:     getenv("CONTRACTCHECK_MCP_URL"),
		Tool:       getenv("CONTRACTCHECK_TOOL"),
		Prompt:     getenv("CONTRACTCHECK_PROMPT"),
		ToolPrefix: getenv("TESTAGENT_TOOL_PREFIX"),
		Mode:       getenv("TESTAGENT_MODE"),
		MaxTurns:   maxTurnsOf(getenv),
		Env:        getenv,
		API:        fakeprovider.OpenAIResponses,
	}
	if s := getenv("TESTAGENT_API"); s != "" {
		api, err := fakeprovider.ParseAPI(s)
		if err != nil {
			return Config{}, fmt.Errorf("TESTAGENT_API: %w", err)
		}
		cfg.API = api
	}
	switch s := getenv("TESTAGENT_STREAM"); s {
	case "", "0":
	case "1":
		cfg.Stream = true
	default:
		return Config{}, fmt.Errorf("TESTAGENT_STREAM=%q: want 1 or 0", s)
	}
	if s := getenv("CONTRACTCHECK_MCP_COMMAND"); s != "" {
		argv, err := escape.ShellWords(s)
		if err != nil {
			return Config{}, fmt.Errorf("CONTRACTCHECK_MCP_COMMAND: %w", err)
		}
		cfg.MCPCommand = argv
	}
	switch t := getenv("TESTAGENT_TRANSPORT"); t {
	case "":
		if cfg.MCPURL != "" {
			cfg.MCPCommand = nil
		}
	case "http":
		if cfg.MCPURL == "" {
			return Config{}, errors.New("TESTAGENT_TRANSPORT=http but CONTRACTCHECK_MCP_URL is not set")
		}
		cfg.MCPCommand = nil
	case "stdio":
		if len(cfg.MCPCommand) == 0 {
			return Config{}, errors.New("TESTAGENT_TRANSPORT=stdio but CONTRACTCHECK_MCP_COMMAND is not set")
		}
		cfg.MCPURL = ""
	default:
		return Config{}, fmt.Errorf("TESTAGENT_TRANSPORT=%q: want http or stdio", t)
	}
	return cfg, nil
}

// Run runs the agent once: MCP handshake and tool list, then model turns until a final text.
// It returns an error on any protocol failure: the MCP server's or the provider's.
func Run(ctx context.Context, cfg Config) error {
	if extra, ok := extraModes[cfg.Mode]; ok {
		return extra(ctx, cfg)
	}
	if !slices.Contains(modes, cfg.Mode) {
		return fmt.Errorf("testagent: unknown mode %q", cfg.Mode)
	}
	if cfg.Mode == ModeFail {
		return errors.New("testagent: failing on purpose (mode fail)")
	}
	getenv := cfg.Env
	if getenv == nil {
		getenv = os.Getenv
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	stdout := cfg.Stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	if cfg.Prompt == "" {
		cfg.Prompt = DefaultPrompt
	}

	var t mcpTransport
	switch {
	case len(cfg.MCPCommand) > 0:
		s, err := startStdio(cfg.MCPCommand)
		if err != nil {
			return fmt.Errorf("testagent: %w", err)
		}
		t = s
	case cfg.MCPURL != "":
		t = &httpTransport{url: cfg.MCPURL, client: hc}
	default:
		return errors.New("testagent: no MCP server: set MCPURL or MCPCommand")
	}
	defer t.close()
	mcp := &mcpClient{t: t}
	if err := mcp.handshake(ctx, cfg.Mode); err != nil {
		return fmt.Errorf("testagent: %w", err)
	}
	if cfg.Mode == ModeHang {
		if cfg.hanging != nil {
			cfg.hanging()
		}
		<-ctx.Done()
		return fmt.Errorf("testagent: hung until %w", ctx.Err())
	}
	tools, err := mcp.listTools(ctx)
	if err != nil {
		return fmt.Errorf("testagent: %w", err)
	}
	byName := map[string]mcpTool{}
	var declared []declaredTool
	for _, tl := range tools {
		byName[cfg.ToolPrefix+tl.Name] = tl
		declared = append(declared, declaredTool{name: cfg.ToolPrefix + tl.Name, description: tl.Description, schema: tl.InputSchema})
	}
	if cfg.Tool != "" && !slices.ContainsFunc(tools, func(tl mcpTool) bool { return tl.Name == cfg.Tool }) {
		names := make([]string, len(tools))
		for i, tl := range tools {
			names[i] = tl.Name
		}
		return fmt.Errorf("testagent: the MCP server does not list the tool %q (it lists %q)", cfg.Tool, names)
	}

	conv, err := newConversation(cfg, declared, getenv)
	if err != nil {
		return fmt.Errorf("testagent: %w", err)
	}
	if conv, err = habit(ctx, hc, cfg, getenv, conv); err != nil {
		return fmt.Errorf("testagent: %w", err)
	}
	for n := 1; n <= maxTurns; n++ {
		answer, err := send(ctx, hc, conv, cfg.Stream)
		if err != nil {
			return fmt.Errorf("testagent: model turn %d (%s): %w", n, cfg.API, err)
		}
		if len(answer.calls) == 0 {
			_, err := fmt.Fprintln(stdout, answer.text)
			return err
		}
		if cfg.Mode == ModeSkipTool {
			return nil
		}
		results := make([]toolOutput, len(answer.calls))
		for i, call := range answer.calls {
			tl, ok := byName[call.name]
			if !ok {
				return fmt.Errorf("testagent: the model called %q, which the agent never declared", call.name)
			}
			res, rerr, err := mcp.request(ctx, "tools/call", map[string]any{"name": tl.Name, "arguments": call.args})
			if err != nil {
				return fmt.Errorf("testagent: %w", err)
			}
			if rerr != nil {
				results[i] = toolOutput{rpcErr: rerr}
				continue
			}
			if results[i], err = parseOutput(res); err != nil {
				return fmt.Errorf("testagent: %w", err)
			}
			results[i] = reshape(cfg.Mode, results[i])
		}
		if cfg.Mode == ModeNoFollowUp || n == cfg.MaxTurns {
			return nil
		}
		if err := conv.record(answer, results); err != nil {
			return fmt.Errorf("testagent: %w", err)
		}
	}
	return fmt.Errorf("testagent: no final answer after %d model turns", maxTurns)
}

// send makes one model request and reads its answer.
func send(ctx context.Context, hc *http.Client, conv conversation, streamed bool) (turn, error) {
	url, body, err := conv.request()
	if err != nil {
		return turn{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return turn{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if streamed {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	conv.header(req.Header)
	resp, err := hc.Do(req)
	if err != nil {
		return turn{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		return turn{}, fmt.Errorf("POST %s: %s: %s", url, resp.Status, errorMessage(b))
	}
	t, err := conv.parse(resp.Body, streamed)
	if err != nil {
		return turn{}, fmt.Errorf("POST %s: %w", url, err)
	}
	return t, nil
}

// errorMessage is the message of a provider's error body ({"error": {"message": …}} in every
// API), else the body shortened.
func errorMessage(b []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return snippet(b)
}

// Main runs the agent configured by the environment (ConfigFromEnv, then Run) and exits: 0 on
// success, 1 with the error on stderr. A test binary calls it from TestMain when it is started
// as the user's command (e.g. when EnvSwitch is set), so that the probe's tests can run that
// binary as an agent. Main never returns.
func Main() {
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		err = fmt.Errorf("testagent: %w", err)
	} else {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = Run(ctx, cfg)
		stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
