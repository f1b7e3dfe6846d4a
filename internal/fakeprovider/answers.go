package fakeprovider

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// The answers below follow the providers' published response and stream-event types, as the
// official SDKs parse them:
//
//   - OpenAI Responses (openai-python src/openai/types/responses/response_*_event.py and
//     lib/streaming/responses/_responses.py, which requires response.created first):
//     response.created, response.in_progress, response.output_item.added, then for a call
//     response.function_call_arguments.delta and .done, for text response.content_part.added,
//     response.output_text.delta and .done and response.content_part.done, then
//     response.output_item.done and response.completed; each event as `event: T` and
//     `data: {"type": T, "sequence_number": n, …}` with n counting from 0.
//   - OpenAI Chat Completions (openai-go streamaccumulator.go, openai-python
//     lib/streaming/chat/_completions.py): `data: {chat.completion.chunk}` chunks sharing one id,
//     the first with the role and the tool call's index, id, type and name, the next with the
//     arguments (or the text), one with finish_reason, a usage chunk with empty choices when
//     stream_options.include_usage, then `data: [DONE]`.
//   - Anthropic Messages (anthropic-sdk-go messageutil.go Accumulate, packages/ssestream):
//     message_start, content_block_start (tool_use with input {} or text ""), ping,
//     content_block_delta (input_json_delta or text_delta), content_block_stop, message_delta
//     (stop_reason, usage), message_stop; each as `event: T` and `data: {"type": T, …}`.
//   - Gemini (go-genai api_client.go iterateResponseStream, which rejects any line that is not
//     `data:`; python-genai and js-genai split on blank lines too): one `data:
//     {GenerateContentResponse}` chunk per answer and nothing else; without alt=sse a JSON array.

// created is the fixed creation time of every answer (no clock is read).
const created = 1700000000

// createdRFC3339 is created as an RFC 3339 timestamp (Anthropic's model list).
const createdRFC3339 = "2023-11-14T22:13:20Z"

// The fixed token counts of a generation answer.
const (
	inputTokens  = 10
	outputTokens = 5
)

// obj is a JSON object whose keys keep their order.
type obj []kv

// kv is one member of an obj.
type kv struct {
	k string
	v any
}

// MarshalJSON writes the members in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := strictjson.MarshalGo(m.k)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := strictjson.MarshalGo(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// mustMarshal is marshal for values built here, which always encode.
func mustMarshal(v any) []byte {
	b, err := strictjson.MarshalGo(v)
	if err != nil {
		panic("fakeprovider: encode answer: " + err.Error())
	}
	return b
}

// sse collects a text/event-stream body.
type sse struct{ bytes.Buffer }

// event appends one event; an empty name writes the data line alone.
func (s *sse) event(name string, data []byte) {
	if name != "" {
		s.WriteString("event: " + name + "\n")
	}
	s.WriteString("data: ")
	s.Write(data)
	s.WriteString("\n\n")
}

// write sends the answer planned in pl.
func write(w http.ResponseWriter, pl plan) {
	h := w.Header()
	h.Set("x-request-id", "req_probe_"+strconv.Itoa(pl.seq))
	if pl.status != 0 {
		writeJSON(w, pl.status, errorBody(pl.api, pl.status, pl.message))
		return
	}
	switch pl.kind {
	case kindModels, kindModel:
		writeJSON(w, http.StatusOK, models(pl.api, pl.kind, pl.model))
	case kindCount:
		if pl.api == Anthropic {
			writeJSON(w, http.StatusOK, obj{{"input_tokens", pl.tokens}})
		} else {
			writeJSON(w, http.StatusOK, obj{{"totalTokens", pl.tokens}})
		}
	case kindResponsesInputTokens:
		writeJSON(w, http.StatusOK, obj{{"object", "response.input_tokens"}, {"input_tokens", pl.tokens}})
	case kindGenerate:
		switch pl.api {
		case OpenAIResponses:
			if pl.streamed {
				writeSSE(w, responsesStream(pl))
			} else {
				writeJSON(w, http.StatusOK, responsesObject(pl, "completed", []any{responsesItem(pl, "completed")}, responsesUsage()))
			}
		case OpenAIChat:
			if pl.streamed {
				writeSSE(w, chatStream(pl))
			} else {
				writeJSON(w, http.StatusOK, chatCompletion(pl))
			}
		case Anthropic:
			h.Set("request-id", "req_probe_"+strconv.Itoa(pl.seq))
			if pl.streamed {
				writeSSE(w, anthropicStream(pl))
			} else {
				writeJSON(w, http.StatusOK, anthropicMessage(pl, anthropicBlock(pl, false), anthropicStop(pl), outputTokens))
			}
		case Gemini:
			g := geminiResponse(pl)
			switch {
			case pl.stream && pl.sse:
				var s sse
				s.event("", mustMarshal(g))
				writeSSE(w, &s)
			case pl.stream:
				writeJSON(w, http.StatusOK, []any{g})
			default:
				writeJSON(w, http.StatusOK, g)
			}
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b := mustMarshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeSSE(w http.ResponseWriter, s *sse) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(s.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// errorBody is an error in the API's own error shape.
func errorBody(api API, status int, message string) any {
	switch api {
	case Anthropic:
		typ := "invalid_request_error"
		if status == http.StatusNotFound {
			typ = "not_found_error"
		}
		return obj{{"type", "error"}, {"error", obj{{"type", typ}, {"message", message}}}}
	case Gemini:
		s := "INVALID_ARGUMENT"
		if status == http.StatusNotFound {
			s = "NOT_FOUND"
		}
		return obj{{"error", obj{{"code", status}, {"message", message}, {"status", s}}}}
	}
	typ := "invalid_request_error"
	if status == http.StatusNotFound {
		typ = "not_found_error"
	}
	return obj{{"error", obj{{"message", message}, {"type", typ}, {"param", nil}, {"code", nil}}}}
}

// models answers a model list or a single model.
func models(api API, k kind, id string) any {
	switch api {
	case Anthropic:
		one := func(id string) obj {
			return obj{{"type", "model"}, {"id", id}, {"display_name", id}, {"created_at", createdRFC3339}}
		}
		if k == kindModel {
			return one(id)
		}
		ids := []string{"claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"}
		data := make([]any, len(ids))
		for i, id := range ids {
			data[i] = one(id)
		}
		return obj{{"data", data}, {"has_more", false}, {"first_id", ids[0]}, {"last_id", ids[len(ids)-1]}}
	case Gemini:
		one := func(id string) obj {
			return obj{{"name", "models/" + id}, {"version", "001"}, {"displayName", id}, {"description", "contractcheck probe model"},
				{"inputTokenLimit", 1048576}, {"outputTokenLimit", 65536},
				{"supportedGenerationMethods", []string{"generateContent", "countTokens"}}}
		}
		if k == kindModel {
			return one(id)
		}
		return obj{{"models", []any{one("gemini-2.5-flash"), one("gemini-2.5-pro"), one("gemini-2.0-flash")}}}
	}
	one := func(id string) obj {
		return obj{{"id", id}, {"object", "model"}, {"created", created}, {"owned_by", "contractcheck"}}
	}
	if k == kindModel {
		return one(id)
	}
	ids := []string{"gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini"}
	data := make([]any, len(ids))
	for i, id := range ids {
		data[i] = one(id)
	}
	return obj{{"object", "list"}, {"data", data}}
}

// turnID is a deterministic id for the answer of pl's turn; side calls are numbered apart
// (resp_probe_side_1, …), so that an agent's turns keep their ids whatever it asks aside.
func turnID(prefix string, pl plan) string {
	if pl.side {
		return prefix + "side_" + strconv.Itoa(pl.turn)
	}
	return prefix + strconv.Itoa(pl.turn)
}

// ---- OpenAI Responses ----

func responsesUsage() obj {
	return obj{{"input_tokens", inputTokens}, {"input_tokens_details", obj{{"cached_tokens", 0}}},
		{"output_tokens", outputTokens}, {"output_tokens_details", obj{{"reasoning_tokens", 0}}},
		{"total_tokens", inputTokens + outputTokens}}
}

func responsesObject(pl plan, status string, output []any, usage any) obj {
	return obj{
		{"id", turnID("resp_probe_", pl)}, {"object", "response"}, {"created_at", created}, {"status", status},
		{"background", false}, {"error", nil}, {"incomplete_details", nil}, {"instructions", nil},
		{"max_output_tokens", nil}, {"model", pl.model}, {"output", output}, {"parallel_tool_calls", true},
		{"previous_response_id", nil}, {"reasoning", obj{{"effort", nil}, {"summary", nil}}}, {"store", false},
		{"temperature", 1}, {"text", obj{{"format", obj{{"type", "text"}}}}}, {"tool_choice", "auto"},
		{"tools", []any{}}, {"top_p", 1}, {"truncation", "disabled"}, {"usage", usage}, {"user", nil},
		{"metadata", obj{}},
	}
}

// responsesItem is the output item of pl's answer; status "in_progress" gives the item as
// response.output_item.added shows it (no arguments, no content yet). A call to a tool inside a
// namespace tool carries its name there and the namespace, as codex reads a function_call
// (codex-rs/protocol/src/models.rs ResponseItem::FunctionCall {name, namespace, arguments,
// call_id}); a call to a custom tool is a custom_tool_call whose input is the arguments' text.
func responsesItem(pl plan, status string) obj {
	if pl.search != nil {
		return searchItem(pl, status)
	}
	done := status == "completed"
	if pl.call != nil {
		args := ""
		if done {
			args = pl.call.Arguments
		}
		var item obj
		if pl.tool.custom {
			item = obj{{"id", responsesItemID(pl)}, {"type", "custom_tool_call"}, {"status", status},
				{"call_id", pl.call.ID}, {"name", pl.tool.name}}
		} else {
			item = obj{{"id", responsesItemID(pl)}, {"type", "function_call"}, {"status", status},
				{"arguments", args}, {"call_id", pl.call.ID}, {"name", pl.tool.name}}
		}
		if pl.tool.namespace != "" {
			item = append(item, kv{"namespace", pl.tool.namespace})
		}
		if pl.tool.custom {
			item = append(item, kv{"input", args})
		}
		return item
	}
	content := []any{}
	if done {
		content = []any{responsesText(pl.finalText)}
	}
	return obj{{"id", responsesItemID(pl)}, {"type", "message"}, {"status", status},
		{"content", content}, {"role", "assistant"}}
}

// responsesItemID is the id of pl's output item: tsc_probe_N for a tool search call, fc_probe_N
// for a function call, ctc_probe_N for a custom tool call, msg_probe_N for a message.
func responsesItemID(pl plan) string {
	switch {
	case pl.search != nil:
		return turnID("tsc_probe_", pl)
	case pl.call != nil && pl.tool.custom:
		return turnID("ctc_probe_", pl)
	case pl.call != nil:
		return turnID("fc_probe_", pl)
	}
	return turnID("msg_probe_", pl)
}

func responsesText(text string) obj {
	return obj{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", text}}
}

func responsesStream(pl plan) *sse {
	var s sse
	seq := 0
	emit := func(typ string, fields ...kv) {
		o := append(obj{{"type", typ}, {"sequence_number", seq}}, fields...)
		s.event(typ, mustMarshal(o))
		seq++
	}
	started := responsesObject(pl, "in_progress", []any{}, nil)
	emit("response.created", kv{"response", started})
	emit("response.in_progress", kv{"response", started})
	emit("response.output_item.added", kv{"output_index", 0}, kv{"item", responsesItem(pl, "in_progress")})
	itemID := kv{"item_id", responsesItemID(pl)}
	switch {
	case pl.search != nil:
		// A tool search has no events of its own between the item's added and done.
	case pl.call != nil && pl.tool.custom:
		// openai-python types/responses/response_custom_tool_call_input_{delta,done}_event.py
		emit("response.custom_tool_call_input.delta", itemID, kv{"output_index", 0}, kv{"delta", pl.call.Arguments})
		emit("response.custom_tool_call_input.done", itemID, kv{"output_index", 0}, kv{"input", pl.call.Arguments})
	case pl.call != nil:
		emit("response.function_call_arguments.delta", itemID, kv{"output_index", 0}, kv{"delta", pl.call.Arguments})
		emit("response.function_call_arguments.done", itemID, kv{"output_index", 0}, kv{"name", pl.tool.name},
			kv{"arguments", pl.call.Arguments})
	default:
		emit("response.content_part.added", itemID, kv{"output_index", 0}, kv{"content_index", 0},
			kv{"part", responsesText("")})
		emit("response.output_text.delta", itemID, kv{"output_index", 0}, kv{"content_index", 0},
			kv{"delta", pl.finalText}, kv{"logprobs", []any{}})
		emit("response.output_text.done", itemID, kv{"output_index", 0}, kv{"content_index", 0},
			kv{"text", pl.finalText}, kv{"logprobs", []any{}})
		emit("response.content_part.done", itemID, kv{"output_index", 0}, kv{"content_index", 0},
			kv{"part", responsesText(pl.finalText)})
	}
	item := responsesItem(pl, "completed")
	emit("response.output_item.done", kv{"output_index", 0}, kv{"item", item})
	emit("response.completed", kv{"response", responsesObject(pl, "completed", []any{item}, responsesUsage())})
	return &s
}

// ---- OpenAI Chat Completions ----

func chatUsage() obj {
	return obj{{"prompt_tokens", inputTokens}, {"completion_tokens", outputTokens}, {"total_tokens", inputTokens + outputTokens}}
}

func chatFinish(pl plan) string {
	if pl.call != nil {
		return "tool_calls"
	}
	return "stop"
}

func chatCompletion(pl plan) obj {
	msg := obj{{"role", "assistant"}, {"content", pl.finalText}, {"refusal", nil}, {"annotations", []any{}}}
	if pl.call != nil {
		msg = obj{{"role", "assistant"}, {"content", nil}, {"refusal", nil}, {"annotations", []any{}},
			{"tool_calls", []any{obj{{"id", pl.call.ID}, {"type", "function"},
				{"function", obj{{"name", pl.tool.name}, {"arguments", pl.call.Arguments}}}}}}}
	}
	return obj{
		{"id", turnID("chatcmpl-probe-", pl)}, {"object", "chat.completion"}, {"created", created}, {"model", pl.model},
		{"choices", []any{obj{{"index", 0}, {"message", msg}, {"logprobs", nil}, {"finish_reason", chatFinish(pl)}}}},
		{"usage", chatUsage()}, {"service_tier", "default"}, {"system_fingerprint", nil},
	}
}

func chatStream(pl plan) *sse {
	var s sse
	chunk := func(choices []any, usage any) {
		o := obj{{"id", turnID("chatcmpl-probe-", pl)}, {"object", "chat.completion.chunk"}, {"created", created},
			{"model", pl.model}, {"service_tier", "default"}, {"system_fingerprint", nil}, {"choices", choices}}
		if pl.includeUsage {
			o = append(o, kv{"usage", usage})
		}
		s.event("", mustMarshal(o))
	}
	choice := func(delta obj, finish any) []any {
		return []any{obj{{"index", 0}, {"delta", delta}, {"logprobs", nil}, {"finish_reason", finish}}}
	}
	if pl.call != nil {
		chunk(choice(obj{{"role", "assistant"}, {"content", nil}, {"refusal", nil}, {"tool_calls", []any{
			obj{{"index", 0}, {"id", pl.call.ID}, {"type", "function"}, {"function", obj{{"name", pl.tool.name}, {"arguments", ""}}}},
		}}}, nil), nil)
		chunk(choice(obj{{"tool_calls", []any{
			obj{{"index", 0}, {"function", obj{{"arguments", pl.call.Arguments}}}},
		}}}, nil), nil)
	} else {
		chunk(choice(obj{{"role", "assistant"}, {"content", ""}, {"refusal", nil}}, nil), nil)
		chunk(choice(obj{{"content", pl.finalText}}, nil), nil)
	}
	chunk(choice(obj{}, chatFinish(pl)), nil)
	if pl.includeUsage {
		chunk([]any{}, chatUsage())
	}
	s.WriteString("data: [DONE]\n\n")
	return &s
}

// ---- Anthropic Messages ----

func anthropicStop(pl plan) string {
	if pl.call != nil {
		return "tool_use"
	}
	return "end_turn"
}

// anthropicBlock is the answer's content block; start gives it as content_block_start shows it.
func anthropicBlock(pl plan, start bool) obj {
	if pl.call != nil {
		input := json.RawMessage(pl.call.Arguments)
		if start {
			input = json.RawMessage("{}")
		}
		return obj{{"type", "tool_use"}, {"id", pl.call.ID}, {"name", pl.tool.name}, {"input", input}}
	}
	text := pl.finalText
	if start {
		text = ""
	}
	return obj{{"type", "text"}, {"text", text}}
}

func anthropicMessage(pl plan, block any, stop any, out int) obj {
	content := []any{}
	if block != nil {
		content = []any{block}
	}
	return obj{
		{"id", turnID("msg_probe_", pl)}, {"type", "message"}, {"role", "assistant"}, {"model", pl.model},
		{"content", content}, {"stop_reason", stop}, {"stop_sequence", nil},
		{"usage", obj{{"input_tokens", inputTokens}, {"cache_creation_input_tokens", 0},
			{"cache_read_input_tokens", 0}, {"output_tokens", out}}},
	}
}

func anthropicStream(pl plan) *sse {
	var s sse
	emit := func(typ string, fields ...kv) {
		s.event(typ, mustMarshal(append(obj{{"type", typ}}, fields...)))
	}
	emit("message_start", kv{"message", anthropicMessage(pl, nil, nil, 1)})
	emit("content_block_start", kv{"index", 0}, kv{"content_block", anthropicBlock(pl, true)})
	emit("ping")
	if pl.call != nil {
		emit("content_block_delta", kv{"index", 0}, kv{"delta", obj{{"type", "input_json_delta"}, {"partial_json", pl.call.Arguments}}})
	} else {
		emit("content_block_delta", kv{"index", 0}, kv{"delta", obj{{"type", "text_delta"}, {"text", pl.finalText}}})
	}
	emit("content_block_stop", kv{"index", 0})
	emit("message_delta", kv{"delta", obj{{"stop_reason", anthropicStop(pl)}, {"stop_sequence", nil}}},
		kv{"usage", obj{{"output_tokens", outputTokens}}})
	emit("message_stop")
	return &s
}

// ---- Gemini ----

func geminiResponse(pl plan) obj {
	part := obj{{"text", pl.finalText}}
	if pl.call != nil {
		// No id, as the Gemini Developer API answers generateContent (FunctionCall.id is
		// optional): a framework has nothing to echo, and its functionResponse is found by
		// order and name (FindResult), as the capture programs' fake Gemini left it.
		part = obj{{"functionCall", obj{{"name", pl.tool.name}, {"args", json.RawMessage(pl.call.Arguments)}}}}
	}
	return obj{
		{"candidates", []any{obj{{"content", obj{{"parts", []any{part}}, {"role", "model"}}}, {"finishReason", "STOP"}, {"index", 0}}}},
		{"usageMetadata", obj{{"promptTokenCount", inputTokens}, {"candidatesTokenCount", outputTokens}, {"totalTokenCount", inputTokens + outputTokens}}},
		{"modelVersion", pl.model}, {"responseId", turnID("resp-probe-", pl)},
	}
}
