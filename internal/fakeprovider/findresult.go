package fakeprovider

import (
	"fmt"
	"slices"
)

// FindResult finds, in one provider request body of api, the item that carries the result of
// tool call callID and returns its exact bytes (a sub-slice of body, never re-encoded):
//
//   - OpenAI Responses: the input[] item with type "function_call_output" (or
//     "custom_tool_call_output", a custom tool's result) and call_id callID;
//   - OpenAI Chat Completions: the messages[] message with role "tool" and tool_call_id callID;
//   - Anthropic Messages: the messages[].content[] block with type "tool_result" and
//     tool_use_id callID;
//   - Gemini: the contents[].parts[] part whose functionResponse (or function_response) has id
//     callID; when no part has that id, the callIndex-th (0-based, in request order) such part
//     that carries no id at all, since some frameworks drop the call id on the way back.
//
// ok is false when the body carries no such item; err reports a body that is not a JSON object.
func FindResult(api API, body []byte, callID string, callIndex int) (item []byte, ok bool, err error) {
	return findResult(api, body, callID, callIndex, "", nil)
}

// findResult is FindResult; for Gemini parts without an id, a non-empty name also requires
// functionResponse.name to equal it. When ours is not nil it holds every call id the fake
// provider may have issued: a Gemini functionResponse id outside it was made by the client
// (gemini-cli gives an id-less functionCall one of its own and echoes it back), so the part
// counts among the id-less ones, matched by name and order.
func findResult(api API, body []byte, callID string, callIndex int, name string, ours map[string]bool) ([]byte, bool, error) {
	ms, err := root(body)
	if err != nil {
		return nil, false, fmt.Errorf("find the result of %s: %w", callID, err)
	}
	if api == Gemini {
		return geminiResult(body, ms, callID, callIndex, name, ours)
	}
	sl, known := resultSlots[api]
	if !known {
		return nil, false, fmt.Errorf("find the result of %s: unknown provider API %q", callID, api)
	}
	items, _, err := elems(body, ms, sl.list)
	if err != nil {
		return nil, false, err
	}
	for _, it := range items {
		candidates := [][2]int{it}
		if sl.nested != "" {
			im, ok, err := objectMembers(body, it[0], it[1])
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
			if candidates, _, err = elems(body, im, sl.nested); err != nil {
				return nil, false, err
			}
		}
		for _, c := range candidates {
			cm, ok, err := objectMembers(body, c[0], c[1])
			if err != nil {
				return nil, false, err
			}
			if k, _ := str(body, cm, sl.kindKey); ok && slices.Contains(sl.kinds, k) {
				if id, _ := str(body, cm, sl.idKey); id == callID {
					return body[c[0]:c[1]:c[1]], true, nil
				}
			}
		}
	}
	return nil, false, nil
}

// resultSlot is where a request body of one API carries tool results: the items of the list
// under list (or of the list under nested in each of them), of which the one whose kindKey is
// one of kinds and whose idKey is the call id carries the call's result.
type resultSlot struct {
	list, nested, kindKey string
	kinds                 []string
	idKey                 string
}

var resultSlots = map[API]resultSlot{
	// A custom tool's result is a custom_tool_call_output {call_id, output} (codex-rs
	// protocol/src/models.rs ResponseItem::CustomToolCallOutput, openai-python
	// types/responses/response_custom_tool_call_output_param.py).
	OpenAIResponses: {list: "input", kindKey: "type", kinds: []string{"function_call_output", "custom_tool_call_output"}, idKey: "call_id"},
	OpenAIChat:      {list: "messages", kindKey: "role", kinds: []string{"tool"}, idKey: "tool_call_id"},
	Anthropic:       {list: "messages", nested: "content", kindKey: "type", kinds: []string{"tool_result"}, idKey: "tool_use_id"},
}

// geminiResult is findResult for a Gemini generateContent body.
func geminiResult(body []byte, ms []member, callID string, callIndex int, name string, ours map[string]bool) ([]byte, bool, error) {
	contents, _, err := elems(body, ms, "contents")
	if err != nil {
		return nil, false, err
	}
	var idless [][2]int
	for _, c := range contents {
		cm, ok, err := objectMembers(body, c[0], c[1])
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		parts, _, err := elems(body, cm, "parts")
		if err != nil {
			return nil, false, err
		}
		for _, p := range parts {
			pm, ok, err := objectMembers(body, p[0], p[1])
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
			fr, ok, err := field(body, pm, "functionResponse")
			if err == nil && !ok {
				fr, ok, err = field(body, pm, "function_response")
			}
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
			id, hasID := str(body, fr, "id")
			if hasID && id == callID {
				return body[p[0]:p[1]:p[1]], true, nil
			}
			// An absent id, null or "" counts as none, and so does an id the client made (one
			// not in ours); any other id is another call's.
			if m, present := lookup(fr, "id"); present {
				raw := string(body[m.start:m.end])
				clientMade := ours != nil && hasID && !ours[id]
				if raw != "null" && raw != `""` && !clientMade {
					continue
				}
			}
			if n, _ := str(body, fr, "name"); name == "" || n == name {
				idless = append(idless, p)
			}
		}
	}
	if callIndex >= 0 && callIndex < len(idless) {
		p := idless[callIndex]
		return body[p[0]:p[1]:p[1]], true, nil
	}
	return nil, false, nil
}
