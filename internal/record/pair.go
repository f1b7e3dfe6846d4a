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
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// mcpCall is one tools/call the MCP server answered: the tool's name, its arguments (decoded,
// numbers as json.Number) and the result as the server sent it.
type mcpCall struct {
	name   string
	args   any
	source blob     // the response's result member, or the whole response for a JSON-RPC error
	sum    [32]byte // the source's sha256: equal sums are one fixture
	toks   []string
	// taint is set when the call was a candidate of an item written ambiguous that another call
	// was taken for: the results that item could have carried, one of which is this call's
	// perhaps. Such a call is paired only by evidence that sets it apart from them too.
	taint *ambiguity
}

// provResult is one tool result a provider request carries, with the call it answers as the
// request's history holds it, and the item's exact bytes (H4).
type provResult struct {
	api  fakeprovider.API
	key  string // the call id (or, for a Gemini call without one, a key from its position)
	name string
	args any
	item blob // in memory as providerResults returns it; the engine may spool it
	h    *haystack
	// ambiguous, when not 0, is how many distinct results the item could carry, at least (more
	// than maxAmbiguity when they are no longer known): it is written as an ambiguous record of
	// the call it is handed with, not as a pair.
	ambiguous int
	// failure is what failed when the request's answer was not a success ("" when it was):
	// the pair is then written execution_failed with it.
	failure string
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

// Evidence of which result a provider item carries. A tools/call result's text reaches the model
// in the provider item as JSON string content (a text block's text as the item's content, or the
// whole result serialised into a string, or a Gemini response object), so the recorder compares
// strings: the string values of the result (and of a string that is itself JSON, as a text
// counterpart of structuredContent is) against the item's string values, read the same way. A
// string of a result found in the item, equal to one of its strings or inside one, is evidence
// that the item carries that result; strings every candidate holds (a block's "text" type) are
// evidence of nothing.

// maxEvidenceDepth bounds how deep strings that hold JSON are read into.
const maxEvidenceDepth = 3

// jsonStrings returns the non-empty string values of a JSON text (not its member names), reading
// into strings that are themselves a JSON object or array, deduplicated, in order of appearance.
func jsonStrings(data []byte) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		strictjson.EachString(v, func(x string) {
			if x == "" {
				return
			}
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
			if depth < maxEvidenceDepth {
				if t := strings.TrimSpace(x); len(t) > 1 && (t[0] == '{' || t[0] == '[') {
					var inner any
					if json.Unmarshal([]byte(t), &inner) == nil {
						walk(inner, depth+1)
					}
				}
			}
		})
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		walk(v, 0)
	}
	return out
}

// tokens returns the call's result strings, read once.
func (c *mcpCall) tokens() []string {
	if c.toks != nil {
		return c.toks
	}
	data, _ := c.source.bytes() // a spool file that cannot be read gives no strings: no evidence
	toks := jsonStrings(data)
	if toks == nil {
		toks = []string{}
	}
	if c.source.file == nil { // a spooled result's strings are read again when needed, not kept
		c.toks = toks
	}
	return toks
}

// haystack is what of a provider item is searched: its strings (but the call id and the tool
// name, which say nothing of the result), each between NUL bytes, and the same strings as a set.
type haystack struct {
	joined string
	leaves map[string]bool
}

// hay returns the item's haystack, read once (each time for a spooled item).
func (r *provResult) hay() *haystack {
	if r.h == nil {
		h := &haystack{leaves: map[string]bool{}}
		var b strings.Builder
		b.WriteByte(0)
		data, _ := r.item.bytes() // a spool file that cannot be read gives no strings: no evidence
		for _, s := range jsonStrings(data) {
			if s == r.key || s == r.name {
				continue
			}
			h.leaves[s] = true
			b.WriteString(s)
			b.WriteByte(0)
		}
		h.joined = b.String()
		if r.item.file != nil { // a spooled item's strings are read again when needed, not kept
			return h
		}
		r.h = h
	}
	return r.h
}

// found is what one candidate result's strings show in an item: the strings equal to one of the
// item's strings (exact) and those inside one (within, exact ones included).
type found struct {
	exact, within []string
}

// candidateEvidence compares the distinct candidate results (their strings, each list
// deduplicated) with an item: strings every candidate holds are left out.
func candidateEvidence(cands [][]string, h *haystack) []found {
	common := map[string]int{}
	for _, toks := range cands {
		for _, t := range toks {
			common[t]++
		}
	}
	out := make([]found, len(cands))
	for i, toks := range cands {
		for _, t := range toks {
			if common[t] == len(cands) || strings.IndexByte(t, 0) >= 0 {
				continue
			}
			if h.leaves[t] {
				out[i].exact = append(out[i].exact, t)
				out[i].within = append(out[i].within, t)
			} else if strings.Contains(h.joined, t) {
				out[i].within = append(out[i].within, t)
			}
		}
	}
	return out
}

// singledOut returns the index of the one candidate the evidence points to, and whether the
// evidence holds a whole string of the item (exact), or -1 when it points to none or to more than
// one. A candidate with a string equal to one of the item's strings wins when it is the only one;
// else, among those with a string inside the item's, a candidate whose strings found are each
// inside a longer string found of another (the "result 1" of "result 10") is set aside, and the
// one left, if one is, wins.
func singledOut(ev []found) (int, bool) {
	winner := -1
	for i, f := range ev {
		if len(f.exact) > 0 {
			if winner >= 0 {
				winner = -2
				break
			}
			winner = i
		}
	}
	if winner >= 0 {
		return winner, true
	}
	if winner == -2 {
		return -1, false
	}
	var left []int
	for i, f := range ev {
		if len(f.within) > 0 {
			left = append(left, i)
		}
	}
	covered := func(a, b []string) bool { // every string of a is inside one of b
		for _, x := range a {
			ok := false
			for _, y := range b {
				if strings.Contains(y, x) {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
		return true
	}
	var maximal []int
	for _, i := range left {
		dominated := false
		for _, j := range left {
			if i != j && covered(ev[i].within, ev[j].within) && !covered(ev[j].within, ev[i].within) {
				dominated = true
				break
			}
		}
		if !dominated {
			maximal = append(maximal, i)
		}
	}
	if len(maximal) == 1 {
		return maximal[0], false
	}
	return -1, false
}
