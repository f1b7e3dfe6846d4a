package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/contractcheck/contractcheck/internal/fakeprovider"
)

// mcpCall is one tools/call the MCP server answered: the tool's name, its arguments (decoded,
// numbers as json.Number) and the result as the server sent it.
type mcpCall struct {
	name   string
	args   any
	source blob // the response's result member, or the whole response for a JSON-RPC error
}

// provResult is one tool result a provider request carries, with the call it answers as the
// request's history holds it, and the item's exact bytes (H4).
type provResult struct {
	api  fakeprovider.API
	key  string // the call id (or, for a Gemini call without one, a key from its position)
	name string
	args any
	item blob // in memory as providerResults returns it; the engine may spool it
}

// historyCall is a tool call of the model as a request's history shows it.
type historyCall struct {
	name string
	args []byte // the arguments as JSON text
}

// providerResults reads a provider request body of api: every tool result it carries whose call
// the history also holds, with the exact bytes of the item (fakeprovider.FindResult). Results
// whose call the body does not hold are counted in orphans.
func providerResults(api fakeprovider.API, body []byte) (out []provResult, orphans int, err error) {
	calls := map[string]historyCall{}
	var results []string // call ids, in body order
	dec := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(body))
		return d.Decode(v)
	}
	switch api {
	case fakeprovider.OpenAIResponses:
		var b struct {
			Input json.RawMessage `json:"input"`
		}
		if err := dec(&b); err != nil {
			return nil, 0, err
		}
		var items []struct {
			Type      string `json:"type"`
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}
		if len(b.Input) == 0 || b.Input[0] != '[' {
			return nil, 0, nil
		}
		if err := json.Unmarshal(b.Input, &items); err != nil {
			return nil, 0, fmt.Errorf("input: %w", err)
		}
		for _, it := range items {
			switch it.Type {
			case "function_call":
				calls[it.CallID] = historyCall{it.Name, []byte(it.Arguments)}
			case "function_call_output":
				results = append(results, it.CallID)
			}
		}
	case fakeprovider.OpenAIChat:
		var b struct {
			Messages []struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
		}
		if err := dec(&b); err != nil {
			return nil, 0, err
		}
		for _, m := range b.Messages {
			for _, c := range m.ToolCalls {
				calls[c.ID] = historyCall{c.Function.Name, []byte(c.Function.Arguments)}
			}
			if m.Role == "tool" {
				results = append(results, m.ToolCallID)
			}
		}
	case fakeprovider.Anthropic:
		var b struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := dec(&b); err != nil {
			return nil, 0, err
		}
		for _, m := range b.Messages {
			if len(m.Content) == 0 || m.Content[0] != '[' {
				continue
			}
			var blocks []struct {
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
			}
			if err := json.Unmarshal(m.Content, &blocks); err != nil {
				return nil, 0, fmt.Errorf("messages[].content: %w", err)
			}
			for _, bl := range blocks {
				switch bl.Type {
				case "tool_use":
					calls[bl.ID] = historyCall{bl.Name, bl.Input}
				case "tool_result":
					results = append(results, bl.ToolUseID)
				}
			}
		}
	case fakeprovider.Gemini:
		return geminiResults(body)
	default:
		return nil, 0, fmt.Errorf("unknown provider API %q", api)
	}
	for _, id := range results {
		c, ok := calls[id]
		if !ok || id == "" {
			orphans++
			continue
		}
		item, found, err := fakeprovider.FindResult(api, body, id, -1)
		if err != nil || !found {
			orphans++
			continue
		}
		out = append(out, provResult{api: api, key: id, name: c.name, args: decodeArgs(c.args), item: bytesOf(bytes.Clone(item))})
	}
	return out, orphans, nil
}

// geminiFunc is a Gemini functionCall or functionResponse (camelCase or snake_case).
type geminiFunc struct {
	ID   *string         `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// geminiResults is providerResults for a Gemini body. A functionResponse without an id answers
// the functionCall without an id at the same position among those (frameworks drop ids on the
// way back); its key is derived from the history up to its content, so that the same result in a
// later request of the conversation is known again.
func geminiResults(body []byte) (out []provResult, orphans int, err error) {
	var b struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, 0, err
	}
	calls := map[string]historyCall{}
	var idless []historyCall
	h := sha256.New()
	k := 0 // idless responses so far
	for _, c := range b.Contents {
		h.Write(c)
		var content struct {
			Parts []struct {
				FunctionCall      *geminiFunc `json:"functionCall"`
				FunctionCallS     *geminiFunc `json:"function_call"`
				FunctionResponse  *geminiFunc `json:"functionResponse"`
				FunctionResponseS *geminiFunc `json:"function_response"`
			} `json:"parts"`
		}
		if err := json.Unmarshal(c, &content); err != nil {
			return nil, 0, fmt.Errorf("contents[]: %w", err)
		}
		prefix := hex.EncodeToString(h.Sum(nil))[:16]
		for _, p := range content.Parts {
			if fc := cmp(p.FunctionCall, p.FunctionCallS); fc != nil {
				if fc.ID != nil && *fc.ID != "" {
					calls[*fc.ID] = historyCall{fc.Name, fc.Args}
				} else {
					idless = append(idless, historyCall{fc.Name, fc.Args})
				}
			}
			fr := cmp(p.FunctionResponse, p.FunctionResponseS)
			if fr == nil {
				continue
			}
			if fr.ID != nil && *fr.ID != "" {
				c, ok := calls[*fr.ID]
				item, found, err := fakeprovider.FindResult(fakeprovider.Gemini, body, *fr.ID, -1)
				if !ok || err != nil || !found {
					orphans++
					continue
				}
				out = append(out, provResult{api: fakeprovider.Gemini, key: *fr.ID, name: c.name, args: decodeArgs(c.args), item: bytesOf(bytes.Clone(item))})
				continue
			}
			item, found, err := fakeprovider.FindResult(fakeprovider.Gemini, body, "\x00no id", k)
			if k >= len(idless) || err != nil || !found {
				orphans++
				k++
				continue
			}
			c := idless[k]
			out = append(out, provResult{api: fakeprovider.Gemini, key: "gemini:" + prefix + ":" + strconv.Itoa(k), name: c.name, args: decodeArgs(c.args), item: bytesOf(bytes.Clone(item))})
			k++
		}
	}
	return out, orphans, nil
}

func cmp(a, b *geminiFunc) *geminiFunc {
	if a != nil {
		return a
	}
	return b
}

// decodeArgs decodes a call's arguments for comparison: numbers by value, absent, null and
// empty as an empty object. Text that is not JSON stays a string (it then matches nothing but
// the same text).
func decodeArgs(raw []byte) any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "\x00" + string(raw)
	}
	return normalize(v)
}

// normalize makes numbers comparable by value (1 and 1.0 are the same argument).
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return f
		}
		return string(x)
	}
	return v
}

// sameArgs reports whether two decoded argument values are equal.
func sameArgs(a, b any) bool { return reflect.DeepEqual(a, b) }

// nameMatches reports whether the provider-side tool name names the MCP tool: the same name, or
// the MCP name after a separator, as frameworks prefix a server's tools (rawmcp_lookup,
// mcp__srv__lookup).
func nameMatches(mcpName, provName string) bool {
	if provName == mcpName {
		return true
	}
	if !strings.HasSuffix(provName, mcpName) || len(provName) == len(mcpName) {
		return false
	}
	return strings.ContainsRune("_-.:/", rune(provName[len(provName)-len(mcpName)-1]))
}

// rpcMessage is the part of a JSON-RPC message the recorder reads.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// splitMessages returns the JSON-RPC messages of one transport message: itself, or the elements
// of a batch, as exact sub-slices.
func splitMessages(msg []byte) ([][]byte, error) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return nil, nil
	}
	if msg[0] != '[' {
		if !json.Valid(msg) {
			return nil, errors.New("a message that is not JSON")
		}
		return [][]byte{msg}, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(msg, &elems); err != nil {
		return nil, err
	}
	out := make([][]byte, len(elems))
	for i, e := range elems {
		out[i] = e
	}
	return out, nil
}

// resultBytes is the source of a tools/call response: its result member's exact bytes, or the
// whole response when it is a JSON-RPC error.
func resultBytes(msg []byte, m *rpcMessage) ([]byte, bool) {
	if len(m.Result) > 0 {
		s, e, ok, err := fakeprovider.ValueAt(msg, []string{"result"})
		if err != nil || !ok {
			return nil, false
		}
		return bytes.Clone(msg[s:e]), true
	}
	if len(m.Error) > 0 {
		return bytes.Clone(bytes.TrimSpace(msg)), true
	}
	return nil, false
}
