package fakeprovider

import (
	"fmt"
)

// FindResult finds, in one provider request body of api, the item that carries the result of
// tool call callID and returns its exact bytes (a sub-slice of body, never re-encoded):
//
//   - OpenAI Responses: the input[] item with type "function_call_output" and call_id callID;
//   - OpenAI Chat Completions: the messages[] message with role "tool" and tool_call_id callID;
//   - Anthropic Messages: the messages[].content[] block with type "tool_result" and
//     tool_use_id callID;
//   - Gemini: the contents[].parts[] part whose functionResponse (or function_response) has id
//     callID; when no part has that id, the callIndex-th (0-based, in request order) such part
//     that carries no id at all, since some frameworks drop the call id on the way back.
//
// ok is false when the body carries no such item; err reports a body that is not a JSON object.
func FindResult(api API, body []byte, callID string, callIndex int) (item []byte, ok bool, err error) {
	return findResult(api, body, callID, callIndex, "")
}

// findResult is FindResult; for Gemini parts without an id, a non-empty name also requires
// functionResponse.name to equal it.
func findResult(api API, body []byte, callID string, callIndex int, name string) ([]byte, bool, error) {
	ms, err := root(body)
	if err != nil {
		return nil, false, fmt.Errorf("find the result of %s: %w", callID, err)
	}
	cut := func(s [2]int) []byte { return body[s[0]:s[1]:s[1]] }
	switch api {
	case OpenAIResponses:
		input, _, err := elems(body, ms, "input")
		if err != nil {
			return nil, false, err
		}
		for _, it := range input {
			im, ok, err := objectMembers(body, it[0], it[1])
			if err != nil {
				return nil, false, err
			}
			if t, _ := str(body, im, "type"); ok && t == "function_call_output" {
				if id, _ := str(body, im, "call_id"); id == callID {
					return cut(it), true, nil
				}
			}
		}
	case OpenAIChat:
		msgs, _, err := elems(body, ms, "messages")
		if err != nil {
			return nil, false, err
		}
		for _, m := range msgs {
			mm, ok, err := objectMembers(body, m[0], m[1])
			if err != nil {
				return nil, false, err
			}
			if role, _ := str(body, mm, "role"); ok && role == "tool" {
				if id, _ := str(body, mm, "tool_call_id"); id == callID {
					return cut(m), true, nil
				}
			}
		}
	case Anthropic:
		msgs, _, err := elems(body, ms, "messages")
		if err != nil {
			return nil, false, err
		}
		for _, m := range msgs {
			mm, ok, err := objectMembers(body, m[0], m[1])
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
			blocks, _, err := elems(body, mm, "content")
			if err != nil {
				return nil, false, err
			}
			for _, b := range blocks {
				bm, ok, err := objectMembers(body, b[0], b[1])
				if err != nil {
					return nil, false, err
				}
				if t, _ := str(body, bm, "type"); ok && t == "tool_result" {
					if id, _ := str(body, bm, "tool_use_id"); id == callID {
						return cut(b), true, nil
					}
				}
			}
		}
	case Gemini:
		return geminiResult(body, ms, callID, callIndex, name)
	default:
		return nil, false, fmt.Errorf("find the result of %s: unknown provider API %q", callID, api)
	}
	return nil, false, nil
}

// geminiResult is findResult for a Gemini generateContent body.
func geminiResult(body []byte, ms []member, callID string, callIndex int, name string) ([]byte, bool, error) {
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
			// An absent id, null or "" counts as none; any other id is another call's.
			if m, present := lookup(fr, "id"); present {
				if raw := string(body[m.start:m.end]); raw != "null" && raw != `""` {
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
