// Command adk-go captures lane adk-go: google.golang.org/adk's tool/mcptoolset calling the raw MCP
// server (examples/internal/rawmcp) through go-sdk's IO transport, inside an llmagent run
// whose Gemini model talks to a local httptest server. One source builds against each pinned ADK
// version (go build -modfile=go.<version>.mod); the version recorded is the one linked in, read
// from the build info.
//
// Stages, per fixture:
//
//   - D1 not_observable: mcptoolset builds its own go-sdk client session (client.go,
//     newConnectionRefresher) and hands Run only the decoded *mcp.CallToolResult.
//   - A2 the tool's (result map, error) as llmagent.Config.AfterToolCallbacks receive them,
//     recorded as {"result": <map>} or {"error": "<err.Error()>"} (a key is left out when nil).
//   - M3 the genai.FunctionResponse part of the second model call, as BeforeModelCallbacks see the
//     LLM request: the only part of that request derived from the tool result.
//   - H4 the body of the second generateContent request the genai client sends.
//
// Usage:
//
//	go build -modfile=go.v1.7.0.mod -o adk-go . && ./adk-go -fixtures ../../../fixtures/sources -repetition 1
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/mcptoolset"
	"google.golang.org/genai"

	"github.com/contractcheck/contractcheck/examples/internal/harness"
	"github.com/contractcheck/contractcheck/examples/internal/rawmcp"
	"github.com/contractcheck/contractcheck/examples/internal/record"
)

const (
	lane      = "adk-go"
	modelName = "gemini-2.5-flash"
	// perFixture bounds one agent run; the fake provider answers at once, so only a hang reaches it.
	perFixture = 30 * time.Second
)

func main() { harness.Main(lane, run) }

func run(dir string, repetition int) error {
	clearProviderEnv()
	version, err := harness.ModuleVersion("google.golang.org/adk")
	if err != nil {
		return err
	}
	fixtures, err := record.Fixtures(dir)
	if err != nil {
		return err
	}
	w := &record.Writer{W: os.Stdout, Lane: lane, LaneVersion: version, Configuration: "default", Repetition: repetition}
	for _, f := range fixtures {
		c, err := capture(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f.ID, err)
		}
		if err := c.write(w, f); err != nil {
			return err
		}
	}
	return nil
}

// clearProviderEnv unsets every Google and Gemini variable, so the genai client can use only the
// fake key and the local base URL it is given.
func clearProviderEnv() {
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GOOGLE_") || strings.HasPrefix(name, "GEMINI_") {
			os.Unsetenv(name)
		}
	}
}

// observed holds what one fixture's run showed at each stage; a nil carrier was not reached.
type observed struct {
	a2, m3, h4 json.RawMessage
	runErr     error
	toolCalls  int
}

func (o *observed) write(w *record.Writer, f record.Fixture) error {
	if err := w.NotObservable(f, "D1"); err != nil {
		return err
	}
	return w.Stages(f, []record.Stage{
		{Stage: "A2", Carrier: o.a2, Missing: fmt.Sprintf("no AfterToolCallback ran (the MCP server answered %d tools/call)", o.toolCalls)},
		{Stage: "M3", Carrier: o.m3, Missing: "the model was never called with the tool result"},
		{Stage: "H4", Carrier: o.h4, Missing: "the genai client never sent a second generateContent request"},
	}, o.runErr)
}

// capture runs one agent turn against a fresh MCP server and a fresh fake provider.
func capture(f record.Fixture) (*observed, error) {
	ctx, cancel := context.WithTimeout(context.Background(), perFixture)
	defer cancel()
	o := &observed{}

	srvConn, cliConn := net.Pipe()
	defer srvConn.Close()
	defer cliConn.Close()
	server := &rawmcp.Server{Fixture: f.Bytes}
	go server.Serve(srvConn, srvConn) //nolint:errcheck // ends when the pipe closes

	provider := newProvider()
	defer provider.Close()

	toolset, err := mcptoolset.New(mcptoolset.Config{Transport: &mcp.IOTransport{Reader: cliConn, Writer: cliConn}})
	if err != nil {
		return nil, fmt.Errorf("mcptoolset: %w", err)
	}
	llm, err := gemini.NewModel(ctx, modelName, &genai.ClientConfig{
		APIKey:      "test",
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: provider.URL},
	})
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}

	hooks.set(o)
	defer hooks.set(nil)
	a, err := llmagent.New(llmagent.Config{
		Name:                 "capture",
		Description:          "Calls fixture_tool once and answers.",
		Instruction:          "Call fixture_tool, then answer.",
		Model:                llm,
		Toolsets:             []tool.Toolset{toolset},
		AfterToolCallbacks:   []llmagent.AfterToolCallback{afterToolCallback},
		BeforeModelCallbacks: []llmagent.BeforeModelCallback{beforeModel},
	})
	if err != nil {
		return nil, fmt.Errorf("llmagent: %w", err)
	}
	r, err := runner.New(runner.Config{AppName: "contractcheck", Agent: a, SessionService: session.InMemoryService(), AutoCreateSession: true})
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	msg := genai.NewContentFromText("Call fixture_tool.", genai.RoleUser)
	for _, err := range r.Run(ctx, "user", "session-"+f.ID, msg, agent.RunConfig{}) {
		if err != nil {
			o.runErr = errors.Join(o.runErr, err)
		}
	}
	if bodies := provider.bodies(); len(bodies) >= 2 {
		o.h4 = bodies[1]
	}
	o.toolCalls = server.Calls
	return o, nil
}

// hooks routes the agent callbacks of the fixture being captured to its observations. The
// callbacks are plain functions (see afterTool), so they reach their fixture through it.
var hooks recorder

type recorder struct {
	mu         sync.Mutex
	o          *observed
	modelCalls int
}

func (r *recorder) set(o *observed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.o, r.modelCalls = o, 0
}

// afterToolCallback is afterTool instantiated with the version's tool context type.
var afterToolCallback llmagent.AfterToolCallback = afterTool

// afterTool records the tool's (result, error) pair and leaves both unchanged. Its context type
// is a type parameter because it differs between ADK versions (tool.Context at v1.0.0,
// agent.ToolContext at v1.7.0); it is inferred where afterToolCallback is declared.
func afterTool[C any](_ C, _ tool.Tool, _, result map[string]any, err error) (map[string]any, error) {
	a2 := map[string]any{}
	if result != nil {
		a2["result"] = result
	}
	if err != nil {
		a2["error"] = err.Error()
	}
	b, merr := json.Marshal(a2)
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if hooks.o != nil {
		if merr != nil {
			hooks.o.runErr = errors.Join(hooks.o.runErr, fmt.Errorf("A2 carrier: %w", merr))
		} else {
			hooks.o.a2 = b
		}
	}
	return nil, nil
}

// beforeModel records, on the second model call, the function response the request carries.
func beforeModel(_ agent.CallbackContext, req *model.LLMRequest) (*model.LLMResponse, error) {
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	hooks.modelCalls++
	if hooks.o == nil || hooks.modelCalls != 2 {
		return nil, nil
	}
	fr, err := functionResponse(req.Contents)
	if err == nil {
		hooks.o.m3, err = json.Marshal(fr)
	}
	if err != nil {
		hooks.o.runErr = errors.Join(hooks.o.runErr, fmt.Errorf("M3 carrier: %w", err))
	}
	return nil, nil
}

// functionResponse finds the one function response in the request's contents and checks that
// nothing else in its content could carry tool output, so the part is the whole M3 payload.
func functionResponse(contents []*genai.Content) (*genai.FunctionResponse, error) {
	var found *genai.Content
	for _, c := range contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				if found != nil {
					return nil, errors.New("more than one function response in the request")
				}
				found = c
			}
		}
	}
	if found == nil {
		return nil, errors.New("no function response in the request")
	}
	if len(found.Parts) != 1 {
		return nil, fmt.Errorf("the function response content has %d parts", len(found.Parts))
	}
	return found.Parts[0].FunctionResponse, nil
}

// provider is a local stand-in for the Gemini API: the first generateContent request gets a call
// to fixture_tool, every later one a plain text answer. It keeps every request body as sent.
type provider struct {
	*httptest.Server
	mu   sync.Mutex
	seen []json.RawMessage
}

const (
	callTool = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"fixture_tool","args":{}}}]},"finishReason":"STOP","index":0}],"modelVersion":"` + modelName + `"}`
	answer   = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Done."}]},"finishReason":"STOP","index":0}],"modelVersion":"` + modelName + `"}`
)

func newProvider() *provider {
	p := &provider{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || !json.Valid(body) {
			http.Error(w, "unreadable request body", http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.seen = append(p.seen, json.RawMessage(body))
		n := len(p.seen)
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			io.WriteString(w, callTool)
		} else {
			io.WriteString(w, answer)
		}
	}))
	return p
}

func (p *provider) bodies() []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]json.RawMessage(nil), p.seen...)
}
