package fakeprovider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The decoders below read the provider's answers the way the official SDKs do (the rules are
// cited per API in answers.go) and fail on anything an SDK would reject.

// answer is what a model turn said: a tool call or a text.
type answer struct {
	callID, name, args, text string
	model                    string
	namespace                string // Responses: the namespace a call names
	custom                   bool   // Responses: a custom_tool_call (args is its input)
	search                   string // Responses: a client tool_search_call's arguments, compacted
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data []byte
}

// readSSE splits a text/event-stream body into events as openai-go's and anthropic-sdk-go's
// eventStreamDecoder do: `event:` and `data:` lines, dispatched at a blank line.
func readSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var evs []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if cur.data != nil {
				evs = append(evs, cur)
			}
			cur = sseEvent{}
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			cur.name = value
		case "data":
			if cur.data != nil {
				cur.data = append(cur.data, '\n')
			}
			cur.data = append(cur.data, value...)
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.data != nil {
		t.Fatalf("stream ends inside an event (no blank line after %q)", cur.data)
	}
	return evs
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

// compact spells a JSON text compactly (Anthropic and Gemini carry arguments as objects).
func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return b.String()
}

// decode reads one generation answer of api from resp.
func decode(t *testing.T, api API, resp *http.Response, streamed, includeUsage bool) answer {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s: %s", resp.Status, body)
	}
	ct := resp.Header.Get("Content-Type")
	sseBody := api != Gemini && streamed || api == Gemini && strings.Contains(resp.Request.URL.RawQuery, "alt=sse")
	if sseBody != (ct == "text/event-stream") {
		t.Fatalf("Content-Type %q for a streamed=%v answer", ct, sseBody)
	}
	switch api {
	case OpenAIResponses:
		if streamed {
			return responsesFromStream(t, body)
		}
		var r responsesResp
		mustJSON(t, body, &r)
		return r.answer(t)
	case OpenAIChat:
		if streamed {
			return chatFromStream(t, body, includeUsage)
		}
		var r struct {
			Object  string
			Model   string
			Choices []struct {
				Message struct {
					Content   *string
					ToolCalls []struct {
						ID, Type string
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
				FinishReason string `json:"finish_reason"`
			}
		}
		mustJSON(t, body, &r)
		if r.Object != "chat.completion" || len(r.Choices) != 1 {
			t.Fatalf("not one chat.completion choice: %s", body)
		}
		m := r.Choices[0].Message
		a := answer{model: r.Model}
		if len(m.ToolCalls) > 0 {
			tc := m.ToolCalls[0]
			if tc.Type != "function" || r.Choices[0].FinishReason != "tool_calls" {
				t.Fatalf("tool call type %q, finish_reason %q", tc.Type, r.Choices[0].FinishReason)
			}
			a.callID, a.name, a.args = tc.ID, tc.Function.Name, tc.Function.Arguments
		} else if m.Content != nil {
			a.text = *m.Content
		}
		return a
	case Anthropic:
		if streamed {
			return anthropicFromStream(t, body)
		}
		var m anthropicMsg
		mustJSON(t, body, &m)
		return m.answer(t)
	case Gemini:
		var chunks []geminiResp
		switch {
		case sseBody:
			// go-genai: every non-empty line must be a data: line.
			for _, line := range strings.Split(string(body), "\n") {
				if line != "" && !strings.HasPrefix(line, "data:") {
					t.Fatalf("go-genai rejects the stream line %q", line)
				}
			}
			for _, ev := range readSSE(t, body) {
				if ev.name != "" {
					t.Fatalf("Gemini stream carries an event name %q", ev.name)
				}
				var c geminiResp
				mustJSON(t, ev.data, &c)
				chunks = append(chunks, c)
			}
		case strings.Contains(resp.Request.URL.Path, ":streamGenerateContent"):
			mustJSON(t, body, &chunks)
		default:
			var c geminiResp
			mustJSON(t, body, &c)
			chunks = []geminiResp{c}
		}
		var a answer
		for _, c := range chunks {
			if len(c.Candidates) != 1 {
				t.Fatalf("chunk with %d candidates", len(c.Candidates))
			}
			a.model = c.ModelVersion
			for _, p := range c.Candidates[0].Content.Parts {
				if p.FunctionCall != nil {
					a.callID, a.name, a.args = p.FunctionCall.ID, p.FunctionCall.Name, compact(t, p.FunctionCall.Args)
				}
				a.text += p.Text
			}
		}
		return a
	}
	t.Fatalf("unknown API %q", api)
	return answer{}
}

type responsesResp struct {
	Object string
	Status string
	Model  string
	Output []struct {
		Type, ID, Status string
		CallID           string `json:"call_id"`
		Name             string
		Arguments        json.RawMessage // a string, but a JSON object in a tool_search_call
		Execution        string
		Namespace, Input string
		Content          []struct{ Type, Text string }
		Role             string
	}
}

func (r responsesResp) answer(t *testing.T) answer {
	t.Helper()
	if r.Object != "response" || r.Status != "completed" || len(r.Output) != 1 {
		t.Fatalf("not one completed response output: %+v", r)
	}
	o := r.Output[0]
	a := answer{model: r.Model}
	switch o.Type {
	case "function_call":
		mustJSON(t, o.Arguments, &a.args)
		a.callID, a.name, a.namespace = o.CallID, o.Name, o.Namespace
	case "tool_search_call":
		if o.Execution != "client" || !strings.HasPrefix(o.ID, "tsc_probe_") {
			t.Fatalf("tool_search_call with execution %q, id %q", o.Execution, o.ID)
		}
		a.callID, a.search = o.CallID, compact(t, o.Arguments)
	case "custom_tool_call":
		a.callID, a.name, a.args, a.namespace, a.custom = o.CallID, o.Name, o.Input, o.Namespace, true
	case "message":
		for _, c := range o.Content {
			if c.Type == "output_text" {
				a.text += c.Text
			}
		}
	default:
		t.Fatalf("output item of type %q", o.Type)
	}
	return a
}

// responsesFromStream follows openai-python's ResponseStreamState: response.created first,
// output items and content parts added before their deltas, response.completed last.
func responsesFromStream(t *testing.T, body []byte) answer {
	t.Helper()
	evs := readSSE(t, body)
	var args, text string
	var items []string
	var completed *responsesResp
	var doneItem string // the item of response.output_item.done, which codex reads
	for i, ev := range evs {
		var head struct {
			Type     string
			Sequence *int `json:"sequence_number"`
			Error    json.RawMessage
			Response json.RawMessage
			Item     struct{ Type string }
			Delta    string
			Output   *int `json:"output_index"`
		}
		mustJSON(t, ev.data, &head)
		if head.Type != ev.name {
			t.Fatalf("event %q carries type %q", ev.name, head.Type)
		}
		if head.Sequence == nil || *head.Sequence != i {
			t.Fatalf("event %d (%s) has sequence_number %v", i, ev.name, head.Sequence)
		}
		if head.Error != nil {
			t.Fatalf("event %s has a top-level error member (the SDKs raise on it)", ev.name)
		}
		if i == 0 && head.Type != "response.created" {
			t.Fatalf("first event %q, want response.created", head.Type)
		}
		switch head.Type {
		case "response.output_item.added":
			items = append(items, head.Item.Type)
		case "response.output_item.done":
			var d struct{ Item json.RawMessage }
			mustJSON(t, ev.data, &d)
			doneItem = compact(t, d.Item)
		case "response.function_call_arguments.delta":
			if len(items) != 1 || items[0] != "function_call" {
				t.Fatalf("arguments delta before its function_call item")
			}
			args += head.Delta
		case "response.custom_tool_call_input.delta":
			if len(items) != 1 || items[0] != "custom_tool_call" {
				t.Fatalf("custom tool input delta before its custom_tool_call item")
			}
			args += head.Delta
		case "response.output_text.delta":
			if len(items) != 1 || items[0] != "message" {
				t.Fatalf("text delta before its message item")
			}
			text += head.Delta
		case "response.completed":
			if i != len(evs)-1 {
				t.Fatalf("response.completed is not the last event")
			}
			completed = &responsesResp{}
			mustJSON(t, head.Response, completed)
			var raw struct{ Output []json.RawMessage }
			mustJSON(t, head.Response, &raw)
			if len(raw.Output) != 1 || compact(t, raw.Output[0]) != doneItem {
				t.Fatalf("response.completed output %s differs from response.output_item.done's item %s", raw.Output, doneItem)
			}
		}
	}
	if completed == nil {
		t.Fatal("no response.completed event")
	}
	a := completed.answer(t)
	if a.args != args || a.text != text {
		t.Fatalf("deltas give args %q text %q, response.completed %q %q", args, text, a.args, a.text)
	}
	return a
}

// chatFromStream follows openai-go's ChatCompletionAccumulator: one id for every chunk, tool
// calls accumulated by index, then data: [DONE].
func chatFromStream(t *testing.T, body []byte, includeUsage bool) answer {
	t.Helper()
	evs := readSSE(t, body)
	if len(evs) == 0 || string(evs[len(evs)-1].data) != "[DONE]" {
		t.Fatal("the chat stream does not end in data: [DONE]")
	}
	var a answer
	id, finish, usage := "", "", false
	for _, ev := range evs[:len(evs)-1] {
		if ev.name != "" {
			t.Fatalf("chat chunk with an event name %q", ev.name)
		}
		var c struct {
			ID, Object, Model string
			Choices           []struct {
				Index int
				Delta struct {
					Content   *string
					ToolCalls []struct {
						Index    int
						ID, Type string
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
				FinishReason *string `json:"finish_reason"`
			}
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			}
		}
		mustJSON(t, ev.data, &c)
		if id == "" {
			id = c.ID
		} else if c.ID != id {
			t.Fatalf("chunk id %q after %q (the accumulator refuses it)", c.ID, id)
		}
		if c.Object != "chat.completion.chunk" {
			t.Fatalf("object %q", c.Object)
		}
		a.model = c.Model
		if c.Usage != nil {
			usage = c.Usage.TotalTokens > 0 && len(c.Choices) == 0
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				a.text += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index != 0 {
					t.Fatalf("tool call index %d", tc.Index)
				}
				if tc.ID != "" {
					a.callID = tc.ID
				}
				a.name += tc.Function.Name
				a.args += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	want := "stop"
	if a.callID != "" {
		want = "tool_calls"
	}
	if finish != want {
		t.Fatalf("finish_reason %q, want %q", finish, want)
	}
	if usage != includeUsage {
		t.Fatalf("usage chunk %v, include_usage %v", usage, includeUsage)
	}
	return a
}

type anthropicMsg struct {
	ID, Type, Role, Model string
	Content               []anthropicContent
	StopReason            *string `json:"stop_reason"`
}

type anthropicContent struct {
	Type, ID, Name, Text string
	Input                json.RawMessage
}

func (m anthropicMsg) answer(t *testing.T) answer {
	t.Helper()
	if m.Type != "message" || m.Role != "assistant" || len(m.Content) != 1 || m.StopReason == nil {
		t.Fatalf("not an assistant message with one block: %+v", m)
	}
	a := answer{model: m.Model}
	b := m.Content[0]
	switch b.Type {
	case "tool_use":
		if *m.StopReason != "tool_use" {
			t.Fatalf("stop_reason %q for a tool_use", *m.StopReason)
		}
		a.callID, a.name, a.args = b.ID, b.Name, compact(t, b.Input)
	case "text":
		if *m.StopReason != "end_turn" {
			t.Fatalf("stop_reason %q for a text", *m.StopReason)
		}
		a.text = b.Text
	default:
		t.Fatalf("block type %q", b.Type)
	}
	return a
}

// anthropicFromStream follows anthropic-sdk-go's Message.Accumulate.
func anthropicFromStream(t *testing.T, body []byte) answer {
	t.Helper()
	evs := readSSE(t, body)
	var m anthropicMsg
	for i, ev := range evs {
		var e struct {
			Type         string
			Message      json.RawMessage
			Index        int
			ContentBlock json.RawMessage `json:"content_block"`
			Delta        struct {
				Type, Text  string
				PartialJSON string  `json:"partial_json"`
				StopReason  *string `json:"stop_reason"`
			}
		}
		mustJSON(t, ev.data, &e)
		if e.Type != ev.name {
			t.Fatalf("event %q carries type %q", ev.name, e.Type)
		}
		switch e.Type {
		case "message_start":
			if i != 0 {
				t.Fatal("message_start is not first")
			}
			mustJSON(t, e.Message, &m)
		case "content_block_start":
			if e.Index != len(m.Content) {
				t.Fatalf("content_block_start index %d, want %d", e.Index, len(m.Content))
			}
			var b anthropicContent
			mustJSON(t, e.ContentBlock, &b)
			m.Content = append(m.Content, b)
		case "content_block_delta":
			if e.Index >= len(m.Content) {
				t.Fatalf("delta for block %d of %d", e.Index, len(m.Content))
			}
			b := &m.Content[e.Index]
			switch e.Delta.Type {
			case "text_delta":
				b.Text += e.Delta.Text
			case "input_json_delta":
				if string(b.Input) == "{}" {
					b.Input = json.RawMessage(e.Delta.PartialJSON)
				} else {
					b.Input = append(b.Input, e.Delta.PartialJSON...)
				}
			default:
				t.Fatalf("delta type %q", e.Delta.Type)
			}
		case "message_delta":
			m.StopReason = e.Delta.StopReason
		case "message_stop":
			if i != len(evs)-1 {
				t.Fatal("message_stop is not last")
			}
		case "content_block_stop", "ping":
		default:
			t.Fatalf("event type %q", e.Type)
		}
	}
	return m.answer(t)
}

type geminiResp struct {
	Candidates []struct {
		Content struct {
			Role  string
			Parts []struct {
				Text         string
				FunctionCall *struct {
					ID, Name string
					Args     json.RawMessage
				}
			}
		}
		FinishReason string
	}
	ModelVersion string
}

// String makes failures readable.
func (a answer) String() string {
	return fmt.Sprintf("{call %q %q %s (namespace %q, custom %v), search %s, text %q, model %q}", a.callID, a.name, a.args, a.namespace, a.custom, a.search, a.text, a.model)
}
