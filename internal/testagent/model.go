package testagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Default model names, one per API family.
const (
	openAIModel    = "gpt-4.1"
	anthropicModel = "claude-sonnet-4-5"
	geminiModel    = "gemini-2.5-flash"
)

// AnthropicVersion is the anthropic-version header the agent sends.
const AnthropicVersion = "2023-06-01"

// toolCall is one tool call a model answer asked for.
type toolCall struct {
	id    string
	name  string          // the name as the model gave it (ToolPrefix + MCP name)
	args  json.RawMessage // a JSON object
	hasID bool            // Gemini: the functionCall carried an id
}

// turn is one model answer: tool calls, or a final text.
type turn struct {
	calls  []toolCall
	text   string
	replay []json.RawMessage // what the history keeps of the answer, in the API's own shape
}

// toolOutput is an MCP tools/call outcome: a result, or a JSON-RPC error.
type toolOutput struct {
	blocks  []mcpBlock
	isError *bool // the result's isError when it is a boolean
	rpcErr  *rpcError
}

// mcpBlock is one content block of an MCP result.
type mcpBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	raw      json.RawMessage
}

// parseOutput reads a tools/call result.
func parseOutput(res json.RawMessage) (toolOutput, error) {
	var r struct {
		Content []json.RawMessage `json:"content"`
		IsError json.RawMessage   `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return toolOutput{}, fmt.Errorf("MCP tools/call: the result is not a CallToolResult: %w", err)
	}
	var out toolOutput
	for _, c := range r.Content {
		var b mcpBlock
		if err := json.Unmarshal(c, &b); err != nil {
			return toolOutput{}, fmt.Errorf("MCP tools/call: content block %s: %w", snippet(c), err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, c); err != nil {
			return toolOutput{}, fmt.Errorf("MCP tools/call: content block: %w", err)
		}
		b.raw = compact.Bytes()
		out.blocks = append(out.blocks, b)
	}
	switch string(bytes.TrimSpace(r.IsError)) {
	case "true":
		t := true
		out.isError = &t
	case "false":
		f := false
		out.isError = &f
	}
	return out, nil
}

// failed reports whether the outcome is an error: isError true or a JSON-RPC error.
func (o toolOutput) failed() bool { return o.rpcErr != nil || o.isError != nil && *o.isError }

// texts lists the outcome as text items: a text block's text, any other block's JSON (compact,
// as the server sent it), or for a JSON-RPC error "MCP error CODE: MESSAGE".
func (o toolOutput) texts() []string {
	if o.rpcErr != nil {
		return []string{fmt.Sprintf("MCP error %d: %s", o.rpcErr.Code, o.rpcErr.Message)}
	}
	var ts []string
	for _, b := range o.blocks {
		if b.Type == "text" {
			ts = append(ts, b.Text)
		} else {
			ts = append(ts, string(b.raw))
		}
	}
	return ts
}

// joined is texts joined by newlines.
func (o toolOutput) joined() string { return strings.Join(o.texts(), "\n") }

// onlyText reports whether every item is text (a JSON-RPC error counts as one).
func (o toolOutput) onlyText() bool {
	if o.rpcErr != nil {
		return true
	}
	for _, b := range o.blocks {
		if b.Type != "text" {
			return false
		}
	}
	return true
}

// conversation is the model side of the agent for one provider API: the history it sends and
// how it reads the answers.
type conversation interface {
	// request returns the URL and body of the next model request.
	request() (url string, body []byte, err error)
	// header sets the API's authentication and version headers.
	header(h http.Header)
	// parse reads an answer (plain JSON or SSE).
	parse(body io.Reader, streamed bool) (turn, error)
	// record appends an answer and the results of its calls to the history.
	record(t turn, results []toolOutput) error
}

// raw marshals v for the history.
func raw(v any) json.RawMessage {
	b, err := strictjson.MarshalGo(v)
	if err != nil {
		panic("testagent: encode: " + err.Error()) // only values built here
	}
	return b
}

// declaredTool is an MCP tool as the agent declares it to the model.
type declaredTool struct {
	name, description string
	schema            json.RawMessage
}

// newConversation returns the conversation for cfg's API.
func newConversation(cfg Config, tools []declaredTool, getenv func(string) string) (conversation, error) {
	base := func(key string) (string, error) {
		v := strings.TrimRight(getenv(key), "/")
		if v == "" {
			return "", fmt.Errorf("%s is not set: the test agent only talks to a local fake provider", key)
		}
		return v, nil
	}
	key := func(keys ...string) string {
		for _, k := range keys {
			if v := getenv(k); v != "" {
				return v
			}
		}
		return fakeprovider.DummyKey
	}
	prompt := raw(cfg.Prompt)
	switch cfg.API {
	case fakeprovider.OpenAIResponses, fakeprovider.OpenAIChat:
		b, err := base("OPENAI_BASE_URL")
		if err != nil {
			return nil, err
		}
		if cfg.API == fakeprovider.OpenAIChat {
			return &chatConv{base: b, key: key("OPENAI_API_KEY"), stream: cfg.Stream, tools: tools,
				history: []json.RawMessage{raw(map[string]any{"role": "user", "content": prompt})}}, nil
		}
		return &responsesConv{base: b, key: key("OPENAI_API_KEY"), stream: cfg.Stream, tools: tools,
			history: []json.RawMessage{raw(map[string]any{"role": "user", "content": prompt})}}, nil
	case fakeprovider.Anthropic:
		b, err := base("ANTHROPIC_BASE_URL")
		if err != nil {
			return nil, err
		}
		return &anthropicConv{base: b, key: key("ANTHROPIC_API_KEY"), stream: cfg.Stream, tools: tools,
			history: []json.RawMessage{raw(map[string]any{"role": "user", "content": prompt})}}, nil
	case fakeprovider.Gemini:
		b, err := base("GOOGLE_GEMINI_BASE_URL")
		if err != nil {
			return nil, err
		}
		return &geminiConv{base: b, key: key("GEMINI_API_KEY", "GOOGLE_API_KEY"), stream: cfg.Stream, tools: tools,
			history: []json.RawMessage{raw(map[string]any{"role": "user", "parts": []any{map[string]any{"text": cfg.Prompt}}})}}, nil
	}
	return nil, fmt.Errorf("unknown provider API %q", cfg.API)
}

// schemaOf is a tool's input schema, an empty object schema when the server gave none.
func schemaOf(t declaredTool) json.RawMessage {
	if len(bytes.TrimSpace(t.schema)) == 0 || string(t.schema) == "null" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return t.schema
}

// argsOf validates a call's arguments text as a JSON object ("" means {}).
func argsOf(s string) (json.RawMessage, error) {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}"), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, fmt.Errorf("tool call arguments %s are not a JSON object", snippet([]byte(s)))
	}
	return json.RawMessage(s), nil
}

// ---- OpenAI Responses ----

// responsesConv speaks the Responses API statelessly: the whole history goes in input[].
type responsesConv struct {
	base, key string
	stream    bool
	tools     []declaredTool
	history   []json.RawMessage
}

func (c *responsesConv) header(h http.Header) { h.Set("Authorization", "Bearer "+c.key) }

func (c *responsesConv) request() (string, []byte, error) {
	tools := make([]any, len(c.tools))
	for i, t := range c.tools {
		tools[i] = map[string]any{"type": "function", "name": t.name, "description": t.description, "parameters": schemaOf(t), "strict": false}
	}
	body := map[string]any{"model": openAIModel, "input": c.history, "tools": tools}
	if c.stream {
		body["stream"] = true
	}
	b, err := strictjson.MarshalGo(body)
	return c.base + "/responses", b, err
}

func (c *responsesConv) parse(r io.Reader, streamed bool) (turn, error) {
	var output []json.RawMessage
	if streamed {
		err := readSSE(r, func(name string, data []byte) (bool, error) {
			var ev struct {
				Type     string `json:"type"`
				Response struct {
					Output []json.RawMessage `json:"output"`
					Error  json.RawMessage   `json:"error"`
				} `json:"response"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(data, &ev); err != nil {
				return false, fmt.Errorf("event %s: %w", name, err)
			}
			switch ev.Type {
			case "response.completed":
				output = ev.Response.Output
				if output == nil {
					output = []json.RawMessage{}
				}
				return true, nil
			case "response.failed", "response.incomplete":
				return false, fmt.Errorf("%s: %s", ev.Type, snippet(ev.Response.Error))
			case "error":
				return false, fmt.Errorf("stream error: %s", ev.Message)
			}
			return false, nil
		})
		if err != nil {
			return turn{}, err
		}
		if output == nil {
			return turn{}, errors.New("the stream ended without response.completed")
		}
	} else {
		var resp struct {
			Output []json.RawMessage `json:"output"`
		}
		if err := decodeBody(r, &resp); err != nil {
			return turn{}, err
		}
		output = resp.Output
	}
	var t turn
	for _, item := range output {
		var it struct {
			Type      string          `json:"type"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"` // a string; an object in a tool_search_call
			Content   []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(item, &it); err != nil {
			return turn{}, fmt.Errorf("output item: %w", err)
		}
		switch it.Type {
		case "function_call":
			var text string
			if err := json.Unmarshal(it.Arguments, &text); err != nil {
				return turn{}, fmt.Errorf("function_call arguments: %w", err)
			}
			args, err := argsOf(text)
			if err != nil {
				return turn{}, err
			}
			t.calls = append(t.calls, toolCall{id: it.CallID, name: it.Name, args: args})
		case "message":
			for _, c := range it.Content {
				if c.Type == "output_text" {
					t.text += c.Text
				}
			}
		}
		t.replay = append(t.replay, item)
	}
	return t, nil
}

func (c *responsesConv) record(t turn, results []toolOutput) error {
	c.history = append(c.history, t.replay...)
	for i, call := range t.calls {
		out := results[i]
		var output any = out.joined()
		if !out.onlyText() {
			var parts []any
			for j, b := range out.blocks {
				switch b.Type {
				case "text":
					parts = append(parts, map[string]any{"type": "input_text", "text": b.Text})
				case "image":
					parts = append(parts, map[string]any{"type": "input_image", "image_url": "data:" + b.MimeType + ";base64," + b.Data})
				default:
					parts = append(parts, map[string]any{"type": "input_text", "text": out.texts()[j]})
				}
			}
			output = parts
		}
		c.history = append(c.history, raw(map[string]any{"type": "function_call_output", "call_id": call.id, "output": output}))
	}
	return nil
}

// ---- OpenAI Chat Completions ----

type chatConv struct {
	base, key string
	stream    bool
	tools     []declaredTool
	history   []json.RawMessage
}

func (c *chatConv) header(h http.Header) { h.Set("Authorization", "Bearer "+c.key) }

func (c *chatConv) request() (string, []byte, error) {
	tools := make([]any, len(c.tools))
	for i, t := range c.tools {
		tools[i] = map[string]any{"type": "function", "function": map[string]any{"name": t.name, "description": t.description, "parameters": schemaOf(t)}}
	}
	body := map[string]any{"model": openAIModel, "messages": c.history, "tools": tools}
	if c.stream {
		body["stream"] = true
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	b, err := strictjson.MarshalGo(body)
	return c.base + "/chat/completions", b, err
}

// chatToolCall is a tool call of a chat message or of a chunk's delta.
type chatToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (c *chatConv) parse(r io.Reader, streamed bool) (turn, error) {
	var content *string
	var calls []chatToolCall
	if streamed {
		done := false
		err := readSSE(r, func(_ string, data []byte) (bool, error) {
			if string(data) == "[DONE]" {
				done = true
				return true, nil
			}
			var chunk struct {
				Choices []struct {
					Delta struct {
						Content   *string        `json:"content"`
						ToolCalls []chatToolCall `json:"tool_calls"`
					} `json:"delta"`
				} `json:"choices"`
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(data, &chunk); err != nil {
				return false, fmt.Errorf("chunk: %w", err)
			}
			if chunk.Error != nil {
				return false, fmt.Errorf("stream error: %s", snippet(chunk.Error))
			}
			for _, ch := range chunk.Choices {
				if ch.Delta.Content != nil {
					s := *ch.Delta.Content
					if content != nil {
						s = *content + s
					}
					content = &s
				}
				for _, d := range ch.Delta.ToolCalls {
					for d.Index >= len(calls) {
						calls = append(calls, chatToolCall{Index: len(calls)})
					}
					tc := &calls[d.Index]
					if d.ID != "" {
						tc.ID = d.ID
					}
					if d.Type != "" {
						tc.Type = d.Type
					}
					tc.Function.Name += d.Function.Name
					tc.Function.Arguments += d.Function.Arguments
				}
			}
			return false, nil
		})
		if err != nil {
			return turn{}, err
		}
		if !done {
			return turn{}, errors.New("the stream ended without data: [DONE]")
		}
	} else {
		var resp struct {
			Choices []struct {
				Message struct {
					Content   *string        `json:"content"`
					ToolCalls []chatToolCall `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := decodeBody(r, &resp); err != nil {
			return turn{}, err
		}
		if len(resp.Choices) == 0 {
			return turn{}, errors.New("an answer without choices")
		}
		content, calls = resp.Choices[0].Message.Content, resp.Choices[0].Message.ToolCalls
	}
	var t turn
	msg := map[string]any{"role": "assistant", "content": content}
	if content != nil {
		t.text = *content
	}
	if len(calls) > 0 {
		var replay []any
		for _, tc := range calls {
			args, err := argsOf(tc.Function.Arguments)
			if err != nil {
				return turn{}, err
			}
			t.calls = append(t.calls, toolCall{id: tc.ID, name: tc.Function.Name, args: args})
			replay = append(replay, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Function.Name, "arguments": tc.Function.Arguments}})
		}
		msg["tool_calls"] = replay
	}
	t.replay = []json.RawMessage{raw(msg)}
	return t, nil
}

func (c *chatConv) record(t turn, results []toolOutput) error {
	c.history = append(c.history, t.replay...)
	for i, call := range t.calls {
		c.history = append(c.history, raw(map[string]any{"role": "tool", "tool_call_id": call.id, "content": results[i].joined()}))
	}
	return nil
}

// ---- Anthropic Messages ----

type anthropicConv struct {
	base, key string
	stream    bool
	tools     []declaredTool
	history   []json.RawMessage
}

func (c *anthropicConv) header(h http.Header) {
	h.Set("x-api-key", c.key)
	h.Set("anthropic-version", AnthropicVersion)
}

func (c *anthropicConv) request() (string, []byte, error) {
	tools := make([]any, len(c.tools))
	for i, t := range c.tools {
		tools[i] = map[string]any{"name": t.name, "description": t.description, "input_schema": schemaOf(t)}
	}
	body := map[string]any{"model": anthropicModel, "max_tokens": 1024, "messages": c.history, "tools": tools}
	if c.stream {
		body["stream"] = true
	}
	b, err := strictjson.MarshalGo(body)
	return c.base + "/v1/messages", b, err
}

// anthropicBlock is a content block of an answer.
type anthropicBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

func (c *anthropicConv) parse(r io.Reader, streamed bool) (turn, error) {
	var blocks []anthropicBlock
	if streamed {
		stopped := false
		partial := map[int]*bytes.Buffer{}
		err := readSSE(r, func(name string, data []byte) (bool, error) {
			var ev struct {
				Type         string          `json:"type"`
				Index        int             `json:"index"`
				ContentBlock json.RawMessage `json:"content_block"`
				Delta        struct {
					Type        string `json:"type"`
					Text        string `json:"text"`
					PartialJSON string `json:"partial_json"`
				} `json:"delta"`
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(data, &ev); err != nil {
				return false, fmt.Errorf("event %s: %w", name, err)
			}
			switch ev.Type {
			case "content_block_start":
				if ev.Index != len(blocks) {
					return false, fmt.Errorf("content block %d started after %d blocks", ev.Index, len(blocks))
				}
				var b anthropicBlock
				if err := json.Unmarshal(ev.ContentBlock, &b); err != nil {
					return false, fmt.Errorf("content_block_start: %w", err)
				}
				blocks = append(blocks, b)
				partial[ev.Index] = &bytes.Buffer{}
			case "content_block_delta":
				if ev.Index < 0 || ev.Index >= len(blocks) {
					return false, fmt.Errorf("a delta for content block %d of %d", ev.Index, len(blocks))
				}
				switch ev.Delta.Type {
				case "text_delta":
					blocks[ev.Index].Text += ev.Delta.Text
				case "input_json_delta":
					partial[ev.Index].WriteString(ev.Delta.PartialJSON)
				}
			case "message_stop":
				stopped = true
				return true, nil
			case "error":
				return false, fmt.Errorf("stream error: %s", snippet(ev.Error))
			}
			return false, nil
		})
		if err != nil {
			return turn{}, err
		}
		if !stopped {
			return turn{}, errors.New("the stream ended without message_stop")
		}
		for i := range blocks {
			if blocks[i].Type == "tool_use" && partial[i].Len() > 0 {
				blocks[i].Input = json.RawMessage(partial[i].String())
			}
		}
	} else {
		var msg struct {
			Content []anthropicBlock `json:"content"`
		}
		if err := decodeBody(r, &msg); err != nil {
			return turn{}, err
		}
		blocks = msg.Content
	}
	var t turn
	var content []any
	for _, b := range blocks {
		switch b.Type {
		case "text":
			t.text += b.Text
			content = append(content, map[string]any{"type": "text", "text": b.Text})
		case "tool_use":
			args, err := argsOf(string(b.Input))
			if err != nil {
				return turn{}, err
			}
			t.calls = append(t.calls, toolCall{id: b.ID, name: b.Name, args: args})
			content = append(content, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": args})
		}
	}
	t.replay = []json.RawMessage{raw(map[string]any{"role": "assistant", "content": content})}
	return t, nil
}

func (c *anthropicConv) record(t turn, results []toolOutput) error {
	c.history = append(c.history, t.replay...)
	if len(t.calls) == 0 {
		return nil
	}
	var blocks []any
	for i, call := range t.calls {
		out := results[i]
		content := []any{}
		texts := out.texts()
		if out.rpcErr != nil {
			content = append(content, map[string]any{"type": "text", "text": texts[0]})
		}
		for j, b := range out.blocks {
			if b.Type == "image" {
				content = append(content, map[string]any{"type": "image",
					"source": map[string]any{"type": "base64", "media_type": b.MimeType, "data": b.Data}})
			} else {
				content = append(content, map[string]any{"type": "text", "text": texts[j]})
			}
		}
		block := map[string]any{"type": "tool_result", "tool_use_id": call.id, "content": content}
		switch {
		case out.rpcErr != nil:
			block["is_error"] = true
		case out.isError != nil:
			block["is_error"] = *out.isError
		}
		blocks = append(blocks, block)
	}
	c.history = append(c.history, raw(map[string]any{"role": "user", "content": blocks}))
	return nil
}

// ---- Gemini ----

type geminiConv struct {
	base, key string
	stream    bool
	tools     []declaredTool
	history   []json.RawMessage
}

func (c *geminiConv) header(h http.Header) { h.Set("x-goog-api-key", c.key) }

func (c *geminiConv) request() (string, []byte, error) {
	decls := make([]any, len(c.tools))
	for i, t := range c.tools {
		decls[i] = map[string]any{"name": t.name, "description": t.description, "parametersJsonSchema": schemaOf(t)}
	}
	body := map[string]any{"contents": c.history, "tools": []any{map[string]any{"functionDeclarations": decls}}}
	b, err := strictjson.MarshalGo(body)
	url := c.base + "/v1beta/models/" + geminiModel + ":generateContent"
	if c.stream {
		url = c.base + "/v1beta/models/" + geminiModel + ":streamGenerateContent?alt=sse"
	}
	return url, b, err
}

// geminiChunk is a GenerateContentResponse.
type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []json.RawMessage `json:"parts"`
		} `json:"content"`
	} `json:"candidates"`
	Error json.RawMessage `json:"error"`
}

func (c *geminiConv) parse(r io.Reader, streamed bool) (turn, error) {
	var parts []json.RawMessage
	add := func(ch geminiChunk) error {
		if ch.Error != nil {
			return fmt.Errorf("error: %s", snippet(ch.Error))
		}
		if len(ch.Candidates) > 0 {
			parts = append(parts, ch.Candidates[0].Content.Parts...)
		}
		return nil
	}
	if streamed {
		n := 0
		err := readSSE(r, func(_ string, data []byte) (bool, error) {
			var ch geminiChunk
			if err := json.Unmarshal(data, &ch); err != nil {
				return false, fmt.Errorf("chunk: %w", err)
			}
			n++
			return false, add(ch)
		})
		if err != nil {
			return turn{}, err
		}
		if n == 0 {
			return turn{}, errors.New("an empty stream")
		}
	} else {
		var ch geminiChunk
		if err := decodeBody(r, &ch); err != nil {
			return turn{}, err
		}
		if err := add(ch); err != nil {
			return turn{}, err
		}
	}
	var t turn
	for _, p := range parts {
		var part struct {
			Text         string `json:"text"`
			FunctionCall *struct {
				ID   *string         `json:"id"`
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			} `json:"functionCall"`
		}
		if err := json.Unmarshal(p, &part); err != nil {
			return turn{}, fmt.Errorf("part: %w", err)
		}
		if fc := part.FunctionCall; fc != nil {
			args, err := argsOf(string(fc.Args))
			if err != nil {
				return turn{}, err
			}
			call := toolCall{name: fc.Name, args: args}
			if fc.ID != nil {
				call.id, call.hasID = *fc.ID, true
			}
			t.calls = append(t.calls, call)
		} else {
			t.text += part.Text
		}
	}
	if parts == nil {
		parts = []json.RawMessage{}
	}
	t.replay = []json.RawMessage{raw(map[string]any{"role": "model", "parts": parts})}
	return t, nil
}

func (c *geminiConv) record(t turn, results []toolOutput) error {
	c.history = append(c.history, t.replay...)
	if len(t.calls) == 0 {
		return nil
	}
	var parts []any
	for i, call := range t.calls {
		out := results[i]
		response := map[string]any{"output": out.joined()}
		if out.failed() {
			response = map[string]any{"error": out.joined()}
		}
		fr := map[string]any{"name": call.name, "response": response}
		if call.hasID {
			fr["id"] = call.id
		}
		parts = append(parts, map[string]any{"functionResponse": fr})
	}
	c.history = append(c.history, raw(map[string]any{"role": "user", "parts": parts}))
	return nil
}

// decodeBody decodes a plain JSON answer.
func decodeBody(r io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, maxMessageBytes+1))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("the answer is not the API's JSON: %w: %s", err, snippet(b))
	}
	return nil
}
