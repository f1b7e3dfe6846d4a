// Command adk-go runs lane adk-go under `contractcheck probe`: google.golang.org/adk's llmagent
// with an mcptoolset on the probe's MCP server (over stdio, as the capture program: the server
// CONTRACTCHECK_MCP_COMMAND starts; PROBE_TRANSPORT=http uses Streamable HTTP at
// CONTRACTCHECK_MCP_URL) and a Gemini model at GOOGLE_GEMINI_BASE_URL. The agent is configured
// as examples/capture/adk-go configures it (model gemini-2.5-flash, the same name, description
// and instruction), so its request bodies differ from the committed ones only in the user prompt
// (CONTRACTCHECK_PROMPT) and the call id probe's fake Gemini gives its functionCall, which the
// ADK sends back. PROBE_STREAM=1 runs it with StreamingModeSSE (streamGenerateContent?alt=sse).
//
// PROBE_OBSERVE=1 reports the lane's deeper stages through CONTRACTCHECK_OBSERVE_URL as the
// capture program records them, for probing under the built-in lane name (--lane adk-go, whose
// definition observes A2 and M3): A2 the tool's (result, error) as an AfterToolCallback receives
// them, {"result": …} and/or {"error": "…"}; M3 the genai.FunctionResponse of the second model
// call, as a BeforeModelCallback sees it.
//
//	contractcheck probe --lane adk-go --version v1.7.0 --h4-body -- env PROBE_OBSERVE=1 go run .
//	contractcheck probe --lane my-adk-agent --version v1.7.0 --provider gemini -- go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/contractcheck/contractcheck/examples/probe/go/observe"
	"github.com/contractcheck/contractcheck/examples/probe/go/probeenv"
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
)

const modelName = "gemini-2.5-flash"

func main() { probeenv.Main("adk-go", true, run) }

func run(ctx context.Context, env probeenv.Env) error {
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: env.MCPURL}
	if env.Stdio {
		transport = &mcp.CommandTransport{Command: exec.Command(env.MCPCommand[0], env.MCPCommand[1:]...)}
	}
	toolset, err := mcptoolset.New(mcptoolset.Config{Transport: transport})
	if err != nil {
		return fmt.Errorf("mcptoolset: %w", err)
	}
	llm, err := gemini.NewModel(ctx, modelName, &genai.ClientConfig{
		APIKey:      os.Getenv("GEMINI_API_KEY"),
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: os.Getenv("GOOGLE_GEMINI_BASE_URL")},
	})
	if err != nil {
		return fmt.Errorf("gemini: %w", err)
	}
	cfg := llmagent.Config{
		Name:        "capture",
		Description: "Calls " + env.Tool + " once and answers.",
		Instruction: "Call " + env.Tool + ", then answer.",
		Model:       llm,
		Toolsets:    []tool.Toolset{toolset},
	}
	var o observer
	if os.Getenv("PROBE_OBSERVE") == "1" {
		cfg.AfterToolCallbacks = []llmagent.AfterToolCallback{o.afterTool}
		cfg.BeforeModelCallbacks = []llmagent.BeforeModelCallback{o.beforeModel}
	}
	a, err := llmagent.New(cfg)
	if err != nil {
		return fmt.Errorf("llmagent: %w", err)
	}
	r, err := runner.New(runner.Config{AppName: "contractcheck", Agent: a, SessionService: session.InMemoryService(), AutoCreateSession: true})
	if err != nil {
		return fmt.Errorf("runner: %w", err)
	}
	rc := agent.RunConfig{}
	if env.Stream {
		rc.StreamingMode = agent.StreamingModeSSE
	}
	var runErr error
	for ev, err := range r.Run(ctx, "user", "session-1", genai.NewContentFromText(env.Prompt, genai.RoleUser), rc) {
		if err != nil {
			runErr = errors.Join(runErr, err)
		} else if ev.Content != nil && !ev.Partial {
			for _, p := range ev.Content.Parts {
				if p.Text != "" {
					fmt.Println(p.Text)
				}
			}
		}
	}
	return errors.Join(runErr, o.err)
}

// observer reports A2 and M3 as examples/capture/adk-go records them.
type observer struct {
	mu         sync.Mutex
	modelCalls int
	err        error
}

func (o *observer) report(stage string, carrier any, callID string) {
	if err := observe.Observe(stage, carrier, callID); err != nil {
		o.mu.Lock()
		o.err = errors.Join(o.err, err)
		o.mu.Unlock()
	}
}

func (o *observer) afterTool(ctx agent.ToolContext, _ tool.Tool, _, result map[string]any, err error) (map[string]any, error) {
	a2 := map[string]any{}
	if result != nil {
		a2["result"] = result
	}
	if err != nil {
		a2["error"] = err.Error()
	}
	o.report("A2", a2, ctx.FunctionCallID())
	return nil, nil
}

func (o *observer) beforeModel(_ agent.CallbackContext, req *model.LLMRequest) (*model.LLMResponse, error) {
	o.mu.Lock()
	o.modelCalls++
	n := o.modelCalls
	o.mu.Unlock()
	if n != 2 {
		return nil, nil
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				o.report("M3", p.FunctionResponse, p.FunctionResponse.ID)
			}
		}
	}
	return nil, nil
}
