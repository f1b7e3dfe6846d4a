// Command genkit-go runs lane genkit-go under `contractcheck probe`: Genkit Go's MCP plugin
// (go/plugins/mcp) connects to the probe's MCP server (over stdio, as the capture program: the
// server CONTRACTCHECK_MCP_COMMAND starts; PROBE_TRANSPORT=http uses Streamable HTTP at
// CONTRACTCHECK_MCP_URL), and genkit.Generate runs the tool through the googlegenai plugin's
// Gemini model at GOOGLE_GEMINI_BASE_URL. It is configured as examples/capture/genkit-go is
// (model googleai/gemini-2.5-flash, MCP client name "rawmcp", so the tool is
// rawmcp_fixture_tool), so its request bodies differ from the committed ones only in the user
// prompt (CONTRACTCHECK_PROMPT). PROBE_STREAM=1 streams the generation (ai.WithStreaming:
// streamGenerateContent).
//
// PROBE_OBSERVE=1 reports the lane's deeper stages through CONTRACTCHECK_OBSERVE_URL as the
// capture program records them, for probing under the built-in lane name (--lane genkit-go, whose
// definition observes A2 and M3): a model middleware reads the tool message of the follow-up
// request; M3 is that message, A2 its toolResponse part's output.
//
//	contractcheck probe --lane genkit-go --version v1.4.0 --h4-body -- env PROBE_OBSERVE=1 go run .
//	contractcheck probe --lane my-genkit-agent --version v1.4.0 --provider gemini -- go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/contractcheck/contractcheck/examples/probe/go/observe"
	"github.com/contractcheck/contractcheck/examples/probe/go/probeenv"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/googlegenai"
	"github.com/firebase/genkit/go/plugins/mcp"
	"google.golang.org/genai"
)

const (
	model      = "googleai/gemini-2.5-flash"
	clientName = "rawmcp" // the capture program's: the plugin names the tool <clientName>_<tool>
)

func main() { probeenv.Main("genkit-go", true, run) }

func run(ctx context.Context, env probeenv.Env) error {
	// The googlegenai plugin has no base-URL option: go-genai's default, set before the plugin
	// creates its client, points it at the probe's provider.
	genai.SetDefaultBaseURLs(genai.BaseURLParameters{GeminiURL: os.Getenv("GOOGLE_GEMINI_BASE_URL")})
	g := genkit.Init(ctx, genkit.WithPlugins(&googlegenai.GoogleAI{APIKey: os.Getenv("GEMINI_API_KEY")}))

	opts := mcp.MCPClientOptions{Name: clientName, StreamableHTTP: &mcp.StreamableHTTPConfig{BaseURL: env.MCPURL}}
	if env.Stdio {
		opts = mcp.MCPClientOptions{Name: clientName, Stdio: &mcp.StdioConfig{Command: env.MCPCommand[0], Args: env.MCPCommand[1:]}}
	}
	client, err := mcp.NewGenkitMCPClient(opts)
	if err != nil {
		return fmt.Errorf("mcp client: %w", err)
	}
	defer client.Disconnect()
	tools, err := client.GetActiveTools(ctx, g)
	if err != nil {
		return fmt.Errorf("mcp tools: %w", err)
	}
	var refs []ai.ToolRef
	for _, t := range tools {
		refs = append(refs, t)
	}

	options := []ai.GenerateOption{ai.WithModelName(model), ai.WithPrompt(env.Prompt), ai.WithTools(refs...)}
	if env.Stream {
		options = append(options, ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error { return nil }))
	}
	if os.Getenv("PROBE_OBSERVE") == "1" {
		options = append(options, ai.WithMiddleware(observeToolMessage))
	}
	resp, err := genkit.Generate(ctx, g, options...)
	if err != nil {
		return err
	}
	fmt.Println(resp.Text())
	return nil
}

// observeToolMessage reports the tool message the generate loop appended (M3) and its
// toolResponse output (A2), as examples/capture/genkit-go records them.
func observeToolMessage(next ai.ModelFunc) ai.ModelFunc {
	return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == ai.RoleTool {
			msg := req.Messages[n-1]
			found := false
			for _, p := range msg.Content {
				if p.IsToolResponse() {
					if err := observe.Observe("A2", p.ToolResponse.Output, ""); err != nil {
						return nil, err
					}
					found = true
					break
				}
			}
			if !found {
				return nil, errors.New("A2: the tool message holds no toolResponse part")
			}
			if err := observe.Observe("M3", msg, ""); err != nil {
				return nil, err
			}
		}
		return next(ctx, req, cb)
	}
}
