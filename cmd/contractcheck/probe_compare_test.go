package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The carrier comparison of the probe agreement test (probe_frameworks_test.go): a committed
// carrier (the dedicated capture program's) against the one recorded under probe.

// providerIDs are the ids the fake provider of a per-fixture probe run gives the model's tool
// call (internal/probe: call id call_fixture_1; internal/fakeprovider: the Responses
// function_call item id fc_probe_1), each with the ids the capture programs' fake providers gave
// in its place (examples/capture/python/harness/provider.py CALL_ID and ITEM_ID; the TypeScript
// capture programs' fake gives call_fixture_1 too). A framework passes them on, so they appear
// in carriers (call_id, callId, fc_id): they are the fakes' choices, not the framework's
// behaviour. A Gemini function call carries no id under either fake (commit 2554fb4), so no id is
// forgiven anywhere else: a member only one side has is a difference.
var providerIDs = map[string][]string{
	"call_fixture_1": {"call_fixture_tool_1"},
	"fc_probe_1":     {"fc_fixture_tool_1"},
}

// carrierShape is how a lane's committed H4 carrier holds the provider item probe records.
type carrierShape struct {
	// body: the H4 carrier is the whole Gemini request body (probe --h4-body); the
	// functionResponse parts are compared, and the body beside them with its user prompt set
	// aside (the capture program's prompt is not probe's).
	body bool
	// envelope: the committed H4 carrier is langchain-mcp-adapters-js's {api, item, output}
	// (examples/capture/js/langchain-mcp-adapters.mjs), api naming the provider API
	// ("chat.completions" or "responses"); probe records the item, compared with the envelope's
	// item once the envelope's other members are checked against it.
	envelope string
}

// compareStage compares a committed carrier with the probe's for one stage and returns the first
// difference, or "". volatile holds the lane's record pointers (examples/capture/<lane>/
// volatile.txt); those under /carrier are compared by presence only.
func compareStage(shape carrierShape, stage string, want, got json.RawMessage, volatile []string) string {
	switch {
	case stage == "H4" && shape.body:
		wp, err := functionResponseParts(want)
		if err != nil {
			return "the committed body: " + err.Error()
		}
		gp, err := functionResponseParts(got)
		if err != nil {
			return "the probe's body: " + err.Error()
		}
		if len(wp) != len(gp) {
			return fmt.Sprintf("%d functionResponse parts committed, %d under probe", len(wp), len(gp))
		}
		for i := range wp {
			if d := sameCarrier(wp[i], gp[i], volatile); d != "" {
				return "functionResponse part: " + d
			}
		}
		if d := sameCarrier(withoutPrompt(want), withoutPrompt(got), volatile); d != "" {
			return "the body beside the functionResponse part: " + d
		}
		return ""
	case stage == "H4" && shape.envelope != "":
		item, err := envelopeItem(want, shape.envelope)
		if err != nil {
			return "the committed envelope: " + err.Error()
		}
		if d := sameCarrier(item, got, volatile); d != "" {
			return "the envelope's item: " + d
		}
		return ""
	}
	return sameCarrier(want, got, volatile)
}

// h4Item returns the provider item of an H4 carrier: the functionResponse part of a body, the
// item of an envelope (committed only: probe records the item itself), else the carrier.
func h4Item(shape carrierShape, carrier json.RawMessage, committed bool) (json.RawMessage, error) {
	switch {
	case shape.body:
		parts, err := functionResponseParts(carrier)
		if err != nil {
			return nil, err
		}
		if len(parts) != 1 {
			return nil, fmt.Errorf("%d functionResponse parts in the body, want 1", len(parts))
		}
		return parts[0], nil
	case shape.envelope != "" && committed:
		return envelopeItem(carrier, shape.envelope)
	}
	return carrier, nil
}

// itemAPI names the provider API whose request an H4 item (or body) belongs to, by the item's
// own shape, or "" when it is none of them.
func itemAPI(carrier json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(carrier, &m) != nil {
		return ""
	}
	var typ, role string // "" when absent or not a string
	_ = json.Unmarshal(m["type"], &typ)
	_ = json.Unmarshal(m["role"], &role)
	switch {
	case typ == "function_call_output":
		return "openai-responses"
	case role == "tool" && m["tool_call_id"] != nil:
		return "openai-chat"
	case typ == "tool_result":
		return "anthropic"
	case m["functionResponse"] != nil || m["function_response"] != nil || m["contents"] != nil:
		return "gemini"
	}
	return ""
}

// functionResponseParts returns the parts of a Gemini request body that hold a functionResponse.
func functionResponseParts(body json.RawMessage) ([]json.RawMessage, error) {
	var b struct {
		Contents []struct {
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for _, c := range b.Contents {
		for _, p := range c.Parts {
			var m map[string]json.RawMessage
			if json.Unmarshal(p, &m) == nil && (m["functionResponse"] != nil || m["function_response"] != nil) {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no functionResponse part in the body")
	}
	return out, nil
}

// withoutPrompt replaces the text of the body's first user content, the prompt (the capture
// programs' own, probe's CONTRACTCHECK_PROMPT), with a placeholder.
func withoutPrompt(body json.RawMessage) json.RawMessage {
	v, err := decodeCarrier(body)
	b, ok := v.(map[string]any)
	if err != nil || !ok {
		return body
	}
	if contents, _ := b["contents"].([]any); len(contents) > 0 {
		if c, ok := contents[0].(map[string]any); ok && c["role"] == "user" {
			if parts, ok := c["parts"].([]any); ok && len(parts) == 1 {
				if p, ok := parts[0].(map[string]any); ok && p["text"] != nil {
					p["text"] = "<prompt>"
				}
			}
		}
	}
	out, err := json.Marshal(b)
	if err != nil {
		return body
	}
	return out
}

// envelopeItem checks a langchain-mcp-adapters-js H4 envelope {api, item, output}: api the given
// one, output the item's content (Chat Completions) or output (Responses); it returns the item.
func envelopeItem(env json.RawMessage, api string) (json.RawMessage, error) {
	var e map[string]json.RawMessage
	if err := json.Unmarshal(env, &e); err != nil {
		return nil, err
	}
	var gotAPI string
	if err := json.Unmarshal(e["api"], &gotAPI); err != nil || gotAPI != api {
		return nil, fmt.Errorf("api %s, want %q", e["api"], api)
	}
	if len(e) != 3 || e["item"] == nil || e["output"] == nil {
		return nil, fmt.Errorf("members %v, want api, item, output", slices.Sorted(maps.Keys(e)))
	}
	var item map[string]json.RawMessage
	if err := json.Unmarshal(e["item"], &item); err != nil {
		return nil, fmt.Errorf("item: %v", err)
	}
	if d := sameCarrier(item[envelopeOutput(api)], e["output"], nil); d != "" {
		return nil, fmt.Errorf("output is not the item's %s: %s", envelopeOutput(api), d)
	}
	return e["item"], nil
}

// envelopeOutput is the item member a langchain-mcp-adapters-js envelope's output copies.
func envelopeOutput(api string) string {
	if api == "responses" {
		return "output"
	}
	return "content"
}

// sameCarrier compares a committed carrier w with the probe's g as parsed JSON (members in any
// order, numbers by value) and returns the first difference, or "". A probe id stands for the
// capture's in its place (providerIDs). volatile holds record pointers: where the committed
// carrier has a member at one under /carrier, the probe's must have one too, of any value; a
// pointer the committed carrier does not have is compared as any other member (volatile.txt does
// not name the stage: adk-js's are the A2 event's).
func sameCarrier(want, got json.RawMessage, volatile []string) string {
	w, err := decodeCarrier(want)
	if err != nil {
		return "the committed carrier: " + err.Error()
	}
	g, err := decodeCarrier(got)
	if err != nil {
		return "the probe's carrier: " + err.Error()
	}
	for _, rp := range volatile {
		p, ok := strings.CutPrefix(rp, "/carrier")
		if !ok || p == "" {
			continue
		}
		wobj, key, ok := jsonMember(w, p)
		if !ok {
			continue
		}
		gobj, _, ok := jsonMember(g, p)
		if !ok {
			return fmt.Sprintf("%s (volatile): committed %s, absent under probe", p, shortJSON(wobj[key]))
		}
		wobj[key], gobj[key] = "<volatile>", "<volatile>"
	}
	return jsonDiff("", w, g)
}

// decodeCarrier decodes one JSON value, numbers kept as written.
func decodeCarrier(b json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// jsonMember finds the object member a JSON pointer names (array indexes along the way): the
// object holding it and its key.
func jsonMember(v any, pointer string) (map[string]any, string, bool) {
	tokens := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	cur := v
	for i, tok := range tokens {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		last := i == len(tokens)-1
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, "", false
			}
			if last {
				return c, tok, true
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(c) || last {
				return nil, "", false
			}
			cur = c[n]
		default:
			return nil, "", false
		}
	}
	return nil, "", false
}

// jsonDiff returns the first difference between committed w and probe g at path, or "".
func jsonDiff(path string, w, g any) string {
	at := path
	if at == "" {
		at = "the carrier"
	}
	if ws, ok := w.(string); ok {
		if gs, ok := g.(string); ok && slices.Contains(providerIDs[gs], ws) {
			return ""
		}
	}
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: an object committed, %s under probe", at, jsonKind(g))
		}
		for _, k := range slices.Sorted(maps.Keys(wv)) {
			if _, ok := gv[k]; !ok {
				return fmt.Sprintf("%s/%s: committed %s, absent under probe", path, k, shortJSON(wv[k]))
			}
			if d := jsonDiff(path+"/"+k, wv[k], gv[k]); d != "" {
				return d
			}
		}
		for _, k := range slices.Sorted(maps.Keys(gv)) {
			if _, ok := wv[k]; !ok {
				return fmt.Sprintf("%s/%s: absent committed, %s under probe", path, k, shortJSON(gv[k]))
			}
		}
	case []any:
		gv, ok := g.([]any)
		if !ok {
			return fmt.Sprintf("%s: an array committed, %s under probe", at, jsonKind(g))
		}
		if len(wv) != len(gv) {
			return fmt.Sprintf("%s: %d elements committed, %d under probe", at, len(wv), len(gv))
		}
		for i := range wv {
			if d := jsonDiff(path+"/"+strconv.Itoa(i), wv[i], gv[i]); d != "" {
				return d
			}
		}
	case json.Number:
		gv, ok := g.(json.Number)
		a, aok := new(big.Rat).SetString(string(wv))
		b, bok := new(big.Rat).SetString(string(gv))
		if !ok || !aok || !bok || a.Cmp(b) != 0 {
			return fmt.Sprintf("%s: the number %s committed, %s under probe", at, wv, shortJSON(g))
		}
	default:
		if w != g {
			return fmt.Sprintf("%s: %s committed, %s under probe", at, shortJSON(w), shortJSON(g))
		}
	}
	return ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return shortJSON(v)
}

func shortJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:117]) + "..."
	}
	return string(b)
}

// TestProbeCarrierCompare keeps the agreement test's comparison able to fail: what it forgives
// (member order, a number's spelling, volatile values, the fake providers' call and item ids, a
// body's user prompt, the langchain envelope around the item) and what it does not (among them a
// Gemini call id only the probe's carrier has: no fake gives one any more).
func TestProbeCarrierCompare(t *testing.T) {
	t.Parallel()
	item := carrierShape{}
	body := carrierShape{body: true}
	lcChat := carrierShape{envelope: "chat.completions"}
	lcResp := carrierShape{envelope: "responses"}
	adkVolatile := []string{"/carrier/id", "/carrier/invocationId", "/carrier/content/parts/0/functionResponse/id"}
	gemini := func(prompt, part string) string {
		return `{"contents":[{"parts":[{"text":"` + prompt + `"}],"role":"user"},{"parts":[` + part + `],"role":"user"}],"tools":[]}`
	}
	chatItem := `{"role":"tool","content":"x","name":"fixture_tool","tool_call_id":"call_fixture_1"}`
	chatEnvelope := `{"api":"chat.completions","item":` + chatItem + `,"output":"x"}`
	for _, tc := range []struct {
		name, stage, want, got string
		shape                  carrierShape
		volatile               []string
		differs                string // "" when equal, else a fragment of the difference
	}{
		{name: "order and spelling", stage: "H4", want: `{"a":1.0,"b":[1,"x"]}`, got: `{"b":[1,"x"],"a":1}`},
		{name: "number value", stage: "H4", want: `{"n":9007199254740993}`, got: `{"n":9007199254740992}`, differs: "/n: the number"},
		{name: "number type", stage: "H4", want: `{"n":1}`, got: `{"n":"1"}`, differs: "/n: the number"},
		{name: "string", stage: "H4", want: `{"s":"a"}`, got: `{"s":"b"}`, differs: "/s:"},
		{name: "extra member", stage: "H4", want: `{}`, got: `{"x":null}`, differs: "/x: absent committed"},
		{name: "missing member", stage: "H4", want: `{"x":null}`, got: `{}`, differs: "/x: committed null"},
		{name: "array length", stage: "H4", want: `[1,2]`, got: `[1]`, differs: "2 elements committed, 1"},
		{name: "type", stage: "H4", want: `{"o":{}}`, got: `{"o":[]}`, differs: "an object committed, an array"},
		{name: "trailing value", stage: "H4", want: `{}`, got: `{} {}`, differs: "more than one JSON value"},

		{name: "call ids", stage: "H4", want: `{"call_id":"call_fixture_tool_1"}`, got: `{"call_id":"call_fixture_1"}`},
		{name: "same call id", stage: "H4", want: `{"call_id":"call_fixture_1"}`, got: `{"call_id":"call_fixture_1"}`},
		{name: "item ids", stage: "A2", want: `{"fc_id":"fc_fixture_tool_1"}`, got: `{"fc_id":"fc_probe_1"}`},
		{name: "crossed ids", stage: "A2", want: `{"fc_id":"fc_fixture_tool_1"}`, got: `{"fc_id":"call_fixture_1"}`, differs: "/fc_id"},
		{name: "other call id", stage: "H4", want: `{"call_id":"call_fixture_tool_1"}`, got: `{"call_id":"call_x"}`, differs: "/call_id"},
		{name: "capture id under probe", stage: "H4", want: `{"call_id":"call_fixture_1"}`, got: `{"call_id":"call_fixture_tool_1"}`, differs: "/call_id"},
		{name: "probe-only call id", stage: "M3", want: `{"name":"t"}`, got: `{"id":"call_fixture_1","name":"t"}`, differs: "/id: absent committed"},
		{name: "probe-only gemini call id", stage: "H4", want: `{"functionResponse":{"name":"t"}}`, got: `{"functionResponse":{"id":"call_fixture_1","name":"t"}}`, differs: "/functionResponse/id: absent committed"},
		{name: "committed-only call id", stage: "H4", want: `{"functionResponse":{"id":"call_fixture_1","name":"t"}}`, got: `{"functionResponse":{"name":"t"}}`, differs: "/functionResponse/id: committed"},

		{name: "volatile values", stage: "A2", volatile: adkVolatile,
			want: `{"id":"a","content":{"parts":[{"functionResponse":{"id":"adk-1","v":1}}]}}`,
			got:  `{"id":"b","content":{"parts":[{"functionResponse":{"id":"adk-2","v":1}}]}}`},
		{name: "volatile in an array", stage: "M3", volatile: []string{"/carrier/content/0/ref"}, want: `{"content":[{"ref":"a","v":1}]}`, got: `{"content":[{"ref":"b","v":1}]}`},
		{name: "volatile presence", stage: "A2", volatile: adkVolatile, want: `{"id":"a"}`, got: `{}`, differs: "/id (volatile): committed \"a\", absent"},
		{name: "volatile pointer only under probe", stage: "A2", volatile: adkVolatile, want: `{}`, got: `{"id":"a"}`, differs: "/id: absent committed"},
		{name: "volatile elsewhere", stage: "M3", volatile: []string{"/carrier/content/0/ref"}, want: `{"content":[{"ref":"a","v":1}]}`, got: `{"content":[{"ref":"b","v":2}]}`, differs: "/content/0/v"},
		{name: "not a record pointer", stage: "A2", volatile: []string{"/fixture", "/carrier"}, want: `{"id":"a"}`, got: `{"id":"b"}`, differs: "/id:"},

		{name: "body prompt", stage: "H4", shape: body,
			want: gemini("Call it.", `{"functionResponse":{"name":"t","response":{"output":"x"}}}`),
			got:  gemini("Call it, then answer.", `{"functionResponse":{"name":"t","response":{"output":"x"}}}`)},
		{name: "body part", stage: "H4", shape: body,
			want: gemini("p", `{"functionResponse":{"name":"t","response":{"output":"x"}}}`),
			got:  gemini("p", `{"functionResponse":{"name":"t","response":{"output":"y"}}}`), differs: "functionResponse part: /functionResponse/response/output"},
		{name: "body part gemini call id", stage: "H4", shape: body,
			want: gemini("p", `{"functionResponse":{"name":"t","response":{}}}`),
			got:  gemini("p", `{"functionResponse":{"id":"call_fixture_1","name":"t","response":{}}}`), differs: "functionResponse part: /functionResponse/id: absent committed"},
		{name: "body beside the part", stage: "H4", shape: body,
			want: gemini("p", `{"functionResponse":{"name":"t","response":{}}}`),
			got:  strings.Replace(gemini("p", `{"functionResponse":{"name":"t","response":{}}}`), `"tools":[]`, `"tools":[1]`, 1), differs: "the body beside"},
		{name: "body parts count", stage: "H4", shape: body,
			want: gemini("p", `{"functionResponse":{"name":"t"}}`),
			got:  gemini("p", `{"functionResponse":{"name":"t"}},{"functionResponse":{"name":"t"}}`), differs: "1 functionResponse parts committed, 2"},
		{name: "body A2 is no body", stage: "A2", shape: body, want: `{"result":{}}`, got: `{"result":{}}`},

		{name: "envelope", stage: "H4", shape: lcChat, want: chatEnvelope, got: chatItem},
		{name: "envelope item", stage: "H4", shape: lcChat, want: chatEnvelope, got: strings.Replace(chatItem, `"x"`, `"y"`, 1), differs: "the envelope's item: /content"},
		{name: "envelope api", stage: "H4", shape: lcResp, want: chatEnvelope, got: chatItem, differs: "the committed envelope: api"},
		{name: "envelope output", stage: "H4", shape: lcChat, want: strings.Replace(chatEnvelope, `"output":"x"`, `"output":"y"`, 1), got: chatItem, differs: "output is not the item's content"},
		{name: "envelope members", stage: "H4", shape: lcChat, want: strings.Replace(chatEnvelope, `{"api"`, `{"x":1,"api"`, 1), got: chatItem, differs: "want api, item, output"},
		{name: "envelope A2 is no envelope", stage: "A2", shape: lcChat, want: `{"type":"tool"}`, got: `{"type":"tool"}`},
		{name: "no envelope expected", stage: "H4", shape: item, want: chatEnvelope, got: chatItem, differs: "/api: committed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := compareStage(tc.shape, tc.stage, json.RawMessage(tc.want), json.RawMessage(tc.got), tc.volatile)
			if tc.differs == "" && d != "" || tc.differs != "" && !strings.Contains(d, tc.differs) {
				t.Fatalf("difference %q, want %q", d, tc.differs)
			}
		})
	}

	for _, tc := range []struct{ item, api string }{
		{`{"type":"function_call_output","call_id":"c","output":"x"}`, "openai-responses"},
		{`{"role":"tool","tool_call_id":"c","content":"x"}`, "openai-chat"},
		{`{"type":"tool_result","tool_use_id":"c","content":"x"}`, "anthropic"},
		{`{"functionResponse":{"name":"t","response":{}}}`, "gemini"},
		{gemini("p", `{"functionResponse":{"name":"t"}}`), "gemini"},
		{`{"role":"tool"}`, ""},
		{`[]`, ""},
	} {
		if got := itemAPI(json.RawMessage(tc.item)); got != tc.api {
			t.Errorf("itemAPI(%s) = %q, want %q", tc.item, got, tc.api)
		}
	}
}
