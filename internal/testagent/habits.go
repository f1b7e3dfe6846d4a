package testagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// The modes below make the agent follow a real client's wire habit (issue 40), so that the
// probe's tests hold the fake provider to it. Each mode is valid on the APIs it names only.
const (
	// ModeGeminiClientIDs (Gemini) gives a functionCall without an id one of its own, writes
	// it into the history's functionCall and sends it back in functionResponse.id, as
	// @google/gemini-cli does (packages/core/src/core/turn.ts: `${name}__${name}_${Date.now()}_${n}`).
	ModeGeminiClientIDs = "gemini-client-ids"
	// ModeCodexNamespace (OpenAI Responses) declares the MCP tools inside one namespace tool
	// {"type": "namespace", "name": CodexNamespace, "tools": [function tools]} and accepts only
	// a function_call that names that namespace, as @openai/codex routes calls by name and
	// namespace (codex-rs protocol/src/models.rs ResponseItem::FunctionCall).
	ModeCodexNamespace = "codex-namespace"
	// ModeCustomTool (OpenAI Responses) declares each MCP tool as a custom (freeform) tool
	// {"type": "custom", "name", "description"}, reads custom_tool_call items, whose input
	// must be the arguments' JSON object text, and answers with custom_tool_call_output.
	ModeCustomTool = "custom-tool"
	// ModeSideCalls (every API) makes, before its first turn, the generation requests a
	// model router and a title generator make: one without tools asking for JSON with a
	// schema, as gemini-cli's classifier does (Anthropic, which has no JSON mode: a title
	// request), and one without tools asking for text. Each answer must parse: the JSON
	// must hold the schema's required members with an allowed model_choice.
	ModeSideCalls = "side-calls"
	// ModeCodexToolSearch (OpenAI Responses) defers its MCP tools behind a client-executed tool
	// search, as @openai/codex 0.171.0 does with gpt-5.5: the requests list no MCP tool but
	// {"type": "tool_search", "execution": "client", …} (and exec_command). A tool_search_call
	// in an answer is run by the agent itself: the history gets the call and a
	// tool_search_output {"type", "call_id", "status", "execution": "client", "tools"} whose
	// tools are the matching MCP tools in one namespace tool CodexNamespace (each with
	// "defer_loading": true), and the next request is sent at once (codex-rs
	// protocol/src/models.rs ResponseItem::ToolSearchCall and ToolSearchOutput). Calls must
	// then name the namespace, as in ModeCodexNamespace.
	ModeCodexToolSearch = "codex-tool-search"
)

// CodexNamespace is the namespace ModeCodexNamespace declares the MCP tools in, as codex
// names an MCP server's namespace ("mcp__<server>").
const CodexNamespace = "mcp__cc"

func init() {
	modes = append(modes, ModeGeminiClientIDs, ModeCodexNamespace, ModeCustomTool, ModeSideCalls, ModeCodexToolSearch)
}

// habit returns the conversation cfg.Mode asks for around conv, making the side calls of
// ModeSideCalls first; conv itself for the other modes.
func habit(ctx context.Context, hc *http.Client, cfg Config, getenv func(string) string, conv conversation) (conversation, error) {
	need := func(apis ...fakeprovider.API) error {
		if !slices.Contains(apis, cfg.API) {
			return fmt.Errorf("mode %s needs provider API %v, not %s", cfg.Mode, apis, cfg.API)
		}
		return nil
	}
	switch cfg.Mode {
	case ModeGeminiClientIDs:
		if err := need(fakeprovider.Gemini); err != nil {
			return nil, err
		}
		return &clientIDConv{geminiConv: conv.(*geminiConv)}, nil
	case ModeCodexNamespace:
		if err := need(fakeprovider.OpenAIResponses); err != nil {
			return nil, err
		}
		return &namespaceConv{responsesConv: conv.(*responsesConv)}, nil
	case ModeCustomTool:
		if err := need(fakeprovider.OpenAIResponses); err != nil {
			return nil, err
		}
		return &customConv{responsesConv: conv.(*responsesConv)}, nil
	case ModeCodexToolSearch:
		if err := need(fakeprovider.OpenAIResponses); err != nil {
			return nil, err
		}
		return &toolSearchConv{namespaceConv: &namespaceConv{responsesConv: conv.(*responsesConv)}, ctx: ctx, hc: hc, stream: cfg.Stream}, nil
	case ModeSideCalls:
		if err := sideCalls(ctx, hc, cfg, getenv); err != nil {
			return nil, err
		}
	}
	return conv, nil
}

// ---- Gemini: client-made call ids ----

// clientIDConv is a Gemini conversation that ids the model's function calls itself.
type clientIDConv struct {
	*geminiConv
	n int // ids made so far
}

func (c *clientIDConv) parse(r io.Reader, streamed bool) (turn, error) {
	t, err := c.geminiConv.parse(r, streamed)
	if err != nil || len(t.calls) == 0 {
		return t, err
	}
	for i := range t.calls {
		if !t.calls[i].hasID {
			// A fixed clock keeps runs deterministic; the shape is gemini-cli's.
			name := t.calls[i].name
			t.calls[i].id = fmt.Sprintf("%s__%s_%d_%d", name, name, 1700000000000+c.n, c.n)
			t.calls[i].hasID = true
			c.n++
		}
	}
	// Write the ids into the functionCall parts the history keeps, in order.
	var content struct {
		Role  string                       `json:"role"`
		Parts []map[string]json.RawMessage `json:"parts"`
	}
	if err := json.Unmarshal(t.replay[0], &content); err != nil {
		return turn{}, fmt.Errorf("gemini history: %w", err)
	}
	k := 0
	for _, part := range content.Parts {
		fc, ok := part["functionCall"]
		if !ok {
			continue
		}
		var call map[string]json.RawMessage
		if err := json.Unmarshal(fc, &call); err != nil {
			return turn{}, fmt.Errorf("gemini functionCall: %w", err)
		}
		if k >= len(t.calls) {
			return turn{}, errors.New("gemini history: more functionCall parts than calls")
		}
		call["id"] = raw(t.calls[k].id)
		part["functionCall"] = raw(call)
		k++
	}
	t.replay = []json.RawMessage{raw(content)}
	return t, nil
}

// ---- OpenAI Responses: codex's namespace tools ----

// namespaceConv is a Responses conversation that declares its tools in CodexNamespace.
type namespaceConv struct{ *responsesConv }

func (c *namespaceConv) request() (string, []byte, error) {
	url, body, err := c.responsesConv.request()
	if err != nil {
		return "", nil, err
	}
	body, err = editBody(body, func(m map[string]json.RawMessage) error {
		var tools []json.RawMessage
		if err := json.Unmarshal(m["tools"], &tools); err != nil {
			return err
		}
		m["tools"] = raw([]any{map[string]any{"type": "namespace", "name": CodexNamespace,
			"description": "Tools in the " + CodexNamespace + " namespace.", "tools": tools}})
		return nil
	})
	return url, body, err
}

func (c *namespaceConv) parse(r io.Reader, streamed bool) (turn, error) {
	t, err := c.responsesConv.parse(r, streamed)
	if err != nil {
		return t, err
	}
	for _, item := range t.replay {
		var it struct {
			Type      string  `json:"type"`
			Name      string  `json:"name"`
			Namespace *string `json:"namespace"`
		}
		if err := json.Unmarshal(item, &it); err != nil {
			return turn{}, fmt.Errorf("output item: %w", err)
		}
		if it.Type == "function_call" && (it.Namespace == nil || *it.Namespace != CodexNamespace) {
			// codex looks the tool up by namespace and name: a bare name is no tool of its.
			return turn{}, fmt.Errorf("unsupported call: function_call %q names no namespace %q", it.Name, CodexNamespace)
		}
	}
	return t, nil
}

// ---- OpenAI Responses: codex's client-executed tool search ----

// maxToolSearches bounds the tool searches one model turn may ask for in a row.
const maxToolSearches = 3

// toolSearchDescription opens the description of codex 0.171.0's tool_search tool.
const toolSearchDescription = "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call."

// toolSearchConv is a Responses conversation that defers its tools behind a tool search it
// runs itself.
type toolSearchConv struct {
	*namespaceConv
	ctx      context.Context
	hc       *http.Client
	stream   bool
	searches int // tool searches run in a row (reset by any other answer)
}

func (c *toolSearchConv) request() (string, []byte, error) {
	url, body, err := c.responsesConv.request()
	if err != nil {
		return "", nil, err
	}
	body, err = editBody(body, func(m map[string]json.RawMessage) error {
		m["tools"] = raw([]any{
			map[string]any{"type": "function", "name": "exec_command", "description": "Runs a command in a PTY.", "strict": false,
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"cmd": map[string]any{"type": "string"}}, "required": []string{"cmd"}}},
			map[string]any{"type": "tool_search", "execution": "client", "description": toolSearchDescription,
				"parameters": map[string]any{"type": "object", "properties": map[string]any{
					"limit": map[string]any{"type": "number", "description": "Maximum number of tools to return. Defaults to 8."},
					"query": map[string]any{"type": "string", "description": "Search query for deferred tools."}},
					"required": []string{"query"}, "additionalProperties": false}},
		})
		return nil
	})
	return url, body, err
}

// parse reads an answer; a tool_search_call in it is run at once: the call and its output go
// to the history and the answer to the next request is returned instead.
func (c *toolSearchConv) parse(r io.Reader, streamed bool) (turn, error) {
	t, err := c.namespaceConv.parse(r, streamed)
	if err != nil {
		return t, err
	}
	var outputs []json.RawMessage
	for _, item := range t.replay {
		var kind struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(item, &kind); err != nil {
			return turn{}, fmt.Errorf("output item: %w", err)
		}
		if kind.Type != "tool_search_call" {
			continue
		}
		var it struct {
			CallID    string `json:"call_id"`
			Execution string `json:"execution"`
			Arguments struct {
				Query string   `json:"query"`
				Limit *float64 `json:"limit"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(item, &it); err != nil {
			return turn{}, fmt.Errorf("tool_search_call: %w", err)
		}
		if it.Execution != "client" || it.CallID == "" {
			return turn{}, fmt.Errorf("tool_search_call with execution %q and call_id %q: not a client search", it.Execution, it.CallID)
		}
		limit := 8
		if it.Arguments.Limit != nil {
			limit = int(*it.Arguments.Limit)
		}
		outputs = append(outputs, raw(map[string]any{"type": "tool_search_output", "call_id": it.CallID, "status": "completed",
			"execution": "client", "tools": c.search(it.Arguments.Query, limit)}))
	}
	if len(outputs) == 0 {
		c.searches = 0
		return t, nil
	}
	if len(t.calls) > 0 {
		return turn{}, errors.New("an answer both searches for tools and calls one")
	}
	if c.searches++; c.searches > maxToolSearches {
		return turn{}, fmt.Errorf("more than %d tool searches in a row", maxToolSearches)
	}
	c.history = append(c.history, t.replay...)
	c.history = append(c.history, outputs...)
	return send(c.ctx, c.hc, c, c.stream)
}

// search finds the declared tools whose name or description holds a word of query (at most
// limit), as one namespace tool CodexNamespace; none found gives no tools.
func (c *toolSearchConv) search(query string, limit int) []any {
	words := strings.Fields(strings.ToLower(query))
	var found []any
	for _, t := range c.tools {
		text := strings.ToLower(t.name + " " + t.description)
		if len(found) < limit && slices.ContainsFunc(words, func(w string) bool { return strings.Contains(text, w) }) {
			found = append(found, map[string]any{"type": "function", "name": t.name, "description": t.description,
				"strict": false, "defer_loading": true, "parameters": schemaOf(t)})
		}
	}
	if len(found) == 0 {
		return []any{}
	}
	return []any{map[string]any{"type": "namespace", "name": CodexNamespace,
		"description": "Tools in the " + CodexNamespace + " namespace.", "tools": found}}
}

// ---- OpenAI Responses: custom tools ----

// customConv is a Responses conversation that declares its tools as custom tools.
type customConv struct{ *responsesConv }

func (c *customConv) request() (string, []byte, error) {
	url, body, err := c.responsesConv.request()
	if err != nil {
		return "", nil, err
	}
	body, err = editBody(body, func(m map[string]json.RawMessage) error {
		tools := make([]any, len(c.tools))
		for i, t := range c.tools {
			tools[i] = map[string]any{"type": "custom", "name": t.name, "description": t.description}
		}
		m["tools"] = raw(tools)
		return nil
	})
	return url, body, err
}

func (c *customConv) parse(r io.Reader, streamed bool) (turn, error) {
	t, err := c.responsesConv.parse(r, streamed)
	if err != nil {
		return t, err
	}
	if len(t.calls) > 0 {
		return turn{}, errors.New("the model made a function_call to a custom tool")
	}
	for _, item := range t.replay {
		var it struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Name   string `json:"name"`
			Input  string `json:"input"`
		}
		if err := json.Unmarshal(item, &it); err != nil {
			return turn{}, fmt.Errorf("output item: %w", err)
		}
		if it.Type != "custom_tool_call" {
			continue
		}
		args, err := argsOf(it.Input)
		if err != nil {
			return turn{}, fmt.Errorf("custom_tool_call input: %w", err)
		}
		t.calls = append(t.calls, toolCall{id: it.CallID, name: it.Name, args: args})
	}
	return t, nil
}

func (c *customConv) record(t turn, results []toolOutput) error {
	c.history = append(c.history, t.replay...)
	for i, call := range t.calls {
		c.history = append(c.history, raw(map[string]any{"type": "custom_tool_call_output", "call_id": call.id, "output": results[i].joined()}))
	}
	return nil
}

// ---- side calls ----

// routerSchema is the JSON schema gemini-cli's classifier router asks for
// (packages/core/src/routing/strategies/classifierStrategy.ts RESPONSE_SCHEMA), with the
// Gemini API's upper-case type names.
const routerSchema = `{"type":"OBJECT","properties":{"reasoning":{"type":"STRING","description":"A brief explanation."},` +
	`"model_choice":{"type":"STRING","enum":["flash","pro"]}},"required":["reasoning","model_choice"]}`

// sideCalls makes ModeSideCalls' requests and checks that their answers parse.
func sideCalls(ctx context.Context, hc *http.Client, cfg Config, getenv func(string) string) error {
	schema := json.RawMessage(strings.ToLower(routerSchema))
	router := func(m map[string]json.RawMessage) error {
		switch cfg.API {
		case fakeprovider.Gemini:
			m["systemInstruction"] = raw(map[string]any{"role": "user", "parts": []any{map[string]any{"text": "You are a specialized Task Routing AI."}}})
			m["generationConfig"] = raw(map[string]any{"temperature": 0, "responseJsonSchema": json.RawMessage(routerSchema),
				"responseMimeType": "application/json"})
		case fakeprovider.OpenAIResponses:
			m["text"] = raw(map[string]any{"format": map[string]any{"type": "json_schema", "name": "router", "strict": true, "schema": schema}})
		case fakeprovider.OpenAIChat:
			m["response_format"] = raw(map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "router", "strict": true, "schema": schema}})
		}
		return nil
	}
	for _, side := range []struct {
		name string
		edit func(map[string]json.RawMessage) error
		json bool
	}{
		{name: "router", edit: router, json: cfg.API != fakeprovider.Anthropic},
		{name: "title", edit: func(map[string]json.RawMessage) error { return nil }},
	} {
		inner, err := newConversation(Config{API: cfg.API, Stream: cfg.Stream, Prompt: "Generate a title for: " + cfg.Prompt}, nil, getenv)
		if err != nil {
			return err
		}
		conv := &editedConv{conversation: inner, edit: func(m map[string]json.RawMessage) error {
			delete(m, "tools") // a side call lists no tools at all
			return side.edit(m)
		}}
		answer, err := send(ctx, hc, conv, cfg.Stream)
		if err != nil {
			return fmt.Errorf("side call %s (%s): %w", side.name, cfg.API, err)
		}
		if len(answer.calls) > 0 {
			return fmt.Errorf("side call %s: the model called a tool it was never given", side.name)
		}
		if !side.json {
			if strings.TrimSpace(answer.text) == "" {
				return fmt.Errorf("side call %s: an empty answer", side.name)
			}
			continue
		}
		// As gemini-cli: JSON.parse, then zod's object({reasoning: string, model_choice: enum}).
		var choice struct {
			Reasoning   *string `json:"reasoning"`
			ModelChoice *string `json:"model_choice"`
		}
		if err := json.Unmarshal([]byte(answer.text), &choice); err != nil {
			return fmt.Errorf("side call %s: the answer %s is not JSON: %w", side.name, snippet([]byte(answer.text)), err)
		}
		if choice.Reasoning == nil || choice.ModelChoice == nil || !slices.Contains([]string{"flash", "pro"}, *choice.ModelChoice) {
			return fmt.Errorf("side call %s: the answer %s does not fit the schema", side.name, snippet([]byte(answer.text)))
		}
	}
	return nil
}

// editedConv is a conversation whose request bodies edit changes.
type editedConv struct {
	conversation
	edit func(map[string]json.RawMessage) error
}

func (c *editedConv) request() (string, []byte, error) {
	url, body, err := c.conversation.request()
	if err != nil {
		return "", nil, err
	}
	body, err = editBody(body, c.edit)
	return url, body, err
}

// editBody decodes a request body's top-level members, lets edit change them and encodes
// them again.
func editBody(body []byte, edit func(map[string]json.RawMessage) error) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("edit the request body: %w", err)
	}
	if err := edit(m); err != nil {
		return nil, fmt.Errorf("edit the request body: %w", err)
	}
	return strictjson.MarshalGo(m)
}
