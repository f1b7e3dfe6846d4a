// Command openai-chat-agent is a plain-SDK agent that no built-in lane covers, written the way an
// application would: openai-go's Chat Completions API and the official MCP Go SDK's client, with
// nothing but a loop between them. Under `contractcheck probe` it connects to the fixture's MCP
// server (Streamable HTTP at CONTRACTCHECK_MCP_URL, or the stdio server CONTRACTCHECK_MCP_COMMAND
// starts when PROBE_TRANSPORT=stdio), offers its tools to the model at OPENAI_BASE_URL (read by
// openai-go itself, as is OPENAI_API_KEY), runs the tool calls the model asks for and sends their
// results back, until the model answers with text. PROBE_STREAM=1 streams each completion
// (NewStreaming and the SDK's ChatCompletionAccumulator); otherwise they are plain requests. It
// passes the model's arguments to the tool, so probe's --batch mode (one run, one tool call per
// fixture) works too.
//
// How it maps an MCP result into the tool message (toolMessage below), as a typical app does:
// the text of every text content item, joined with "\n". It drops structuredContent, _meta,
// every non-text item (image, audio, resource_link, embedded resource: a Chat Completions tool
// message holds text only), each item's annotations, and isError (an error result's text is sent
// like any other). A call the MCP SDK rejects (a JSON-RPC error, a result that fails its
// validation) is sent as "error: <the SDK's message>".
//
// PROBE_OBSERVE=1 also reports that tool message text as stage A2 through
// CONTRACTCHECK_OBSERVE_URL (examples/probe/go/observe), with the tool call's id.
//
//	contractcheck probe --lane openai-chat-go --version v3.102.0 --provider openai-chat -- go run .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/contractcheck/contractcheck/examples/probe/go/observe"
	"github.com/contractcheck/contractcheck/examples/probe/go/probeenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
)

const (
	model = "gpt-4.1"
	// maxTurns bounds the model requests of one run: enough for probe's --batch mode, where the
	// model calls the tool once per fixture of the catalogue before it answers.
	maxTurns = 200
)

func main() { probeenv.Main("openai-chat-agent", false, run) }

func run(ctx context.Context, env probeenv.Env) error {
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: env.MCPURL}
	if env.Stdio {
		transport = &mcp.CommandTransport{Command: exec.Command(env.MCPCommand[0], env.MCPCommand[1:]...)}
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "openai-chat-agent", Version: "0.1.0"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		return fmt.Errorf("mcp connect: %w", err)
	}
	defer session.Close()
	listed, err := session.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("mcp tools/list: %w", err)
	}
	var tools []openai.ChatCompletionToolUnionParam
	for _, t := range listed.Tools {
		params := openai.FunctionParameters{"type": "object", "properties": map[string]any{}}
		if b, err := json.Marshal(t.InputSchema); err == nil {
			json.Unmarshal(b, &params) //nolint:errcheck // the default stays on a schema that is no object
		}
		tools = append(tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: params,
		}))
	}

	client := openai.NewClient() // OPENAI_BASE_URL and OPENAI_API_KEY from the environment
	params := openai.ChatCompletionNewParams{
		Model:    model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(env.Prompt)},
		Tools:    tools,
	}
	for turn := 0; turn < maxTurns; turn++ {
		completion, err := complete(ctx, &client, params, env.Stream)
		if err != nil {
			return err
		}
		if len(completion.Choices) == 0 {
			return errors.New("the model answered with no choice")
		}
		msg := completion.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
			return nil
		}
		params.Messages = append(params.Messages, msg.ToParam())
		for _, call := range msg.ToolCalls {
			var args map[string]any
			if call.Function.Arguments != "" {
				if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
					return fmt.Errorf("tool call %s: arguments: %w", call.ID, err)
				}
			}
			result, err := session.CallTool(ctx, &mcp.CallToolParams{Name: call.Function.Name, Arguments: args})
			text := toolMessage(result, err)
			if os.Getenv("PROBE_OBSERVE") == "1" {
				if err := observe.Observe("A2", map[string]any{"content": text}, call.ID); err != nil {
					return err
				}
			}
			params.Messages = append(params.Messages, openai.ToolMessage(text, call.ID))
		}
	}
	return fmt.Errorf("the model was still calling tools after %d requests", maxTurns)
}

// complete sends one Chat Completions request, streamed or plain.
func complete(ctx context.Context, client *openai.Client, params openai.ChatCompletionNewParams, stream bool) (*openai.ChatCompletion, error) {
	if !stream {
		c, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("chat completion: %w", err)
		}
		return c, nil
	}
	s := client.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("chat completion stream: %w", err)
	}
	return &acc.ChatCompletion, nil
}

// toolMessage is the tool message text for an MCP result: its text items joined with "\n"
// (everything else is dropped, see the package comment), or the SDK's error.
func toolMessage(result *mcp.CallToolResult, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var texts []string
	for _, c := range result.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}
