package project

import (
	"errors"
	"reflect"
	"testing"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

func ptr(s string) *string { return &s }

// TestProjectInnerPointer reads a slot carried inside a JSON text, both ways: found when the text
// is strict JSON holding it, absent otherwise.
func TestProjectInnerPointer(t *testing.T) {
	b := contract.Compartment{
		Content:    &contract.ContentBinding{Path: "/content", Decode: "text"},
		Structured: &contract.Field{Path: "/content", Decode: "json", Inner: ptr("/structuredContent")},
		Meta:       &contract.Field{Path: "/content", Decode: "json", Inner: ptr("/meta")},
	}
	p, err := Compile("inner", b)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		carrier string
		want    string
	}{
		{
			name:    "a JSON text holding the slots: both read, numbers exact",
			carrier: `{"content": "{\"type\":\"text\",\"text\":\"x\",\"structuredContent\":{\"id\":9007199254740993},\"meta\":{\"k\":null}}"}`,
			want:    `{"content": [{"kind": "text", "text": "{\"type\":\"text\",\"text\":\"x\",\"structuredContent\":{\"id\":9007199254740993},\"meta\":{\"k\":null}}"}], "delivery": ["text"], "structured": {"id": 9007199254740993}, "meta": {"k": null}}`,
		},
		{
			name:    "a null slot inside the text stays null",
			carrier: `{"content": "{\"structuredContent\":null}"}`,
			want:    `{"content": [{"kind": "text", "text": "{\"structuredContent\":null}"}], "delivery": ["text"], "structured": null}`,
		},
		{
			name:    "prose holds no slot: absent, not the prose",
			carrier: `{"content": "Pickup cancelled."}`,
			want:    `{"content": [{"kind": "text", "text": "Pickup cancelled."}], "delivery": ["text"]}`,
		},
		{
			name:    "JSON without the slot: absent",
			carrier: `{"content": "{\"type\":\"text\",\"text\":\"x\"}"}`,
			want:    `{"content": [{"kind": "text", "text": "{\"type\":\"text\",\"text\":\"x\"}"}], "delivery": ["text"]}`,
		},
		{
			name:    "a list, not a JSON text: absent",
			carrier: `{"content": []}`,
			want:    `{"content": []}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Project(decode(t, tt.carrier))
			if !strictjson.Equal(got, decode(t, tt.want)) {
				t.Errorf("got %v, want %s", got, tt.want)
			}
		})
	}
}

func TestCompileInnerNeedsJSON(t *testing.T) {
	_, err := Compile("bad", contract.Compartment{Structured: &contract.Field{Path: "/x", Decode: "base64", Inner: ptr("/y")}})
	if err == nil {
		t.Fatal("inner with decode base64 compiled")
	}
}

// TestProjectDelivery reads the delivery list and the provider's rejections beside the content.
func TestProjectDelivery(t *testing.T) {
	accepts := func(schema string) (func(any) error, error) {
		return func(item any) error {
			if u, _ := item.(map[string]any)["image_url"].(string); len(u) < 5 || u[:5] != "data:" {
				return errors.New("/image_url: not a URI")
			}
			return nil
		}, nil
	}
	b := contract.Compartment{Content: &contract.ContentBinding{Path: "/output", Decode: "text", Discriminator: "/type", Kinds: map[string]contract.BlockMapping{
		"input_text":  {Kind: "text", Delivery: "text", Fields: map[string]contract.Field{"text": {Path: "/text"}}},
		"input_image": {Kind: "image", Delivery: "data-url", Accepts: "providers/x.schema.json", Fields: map[string]contract.Field{"payload": {Path: "/image_url", Decode: "dataurl-payload"}}},
		"other":       {Kind: "text", Fields: map[string]contract.Field{"text": {Path: "/text"}}},
	}}}
	if _, err := Compile("no-schemas", b); err == nil {
		t.Fatal("a binding naming a provider schema compiled without schemas")
	}
	p, err := CompileWith("delivery", b, Options{Accepts: accepts})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Project(decode(t, `{"output": [{"type": "input_text", "text": "a"}, {"type": "input_image", "image_url": "iVBORw0KGgo="}, {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}, {"type": "other", "text": "b"}]}`))
	if want := []any{"text", "data-url", "data-url", nil}; !reflect.DeepEqual(got["delivery"], want) {
		t.Errorf("delivery %v, want %v", got["delivery"], want)
	}
	rejected, _ := got["rejected"].([]any)
	if len(rejected) != 1 || rejected[0].(map[string]any)["error"] != "/image_url: not a URI" {
		t.Errorf("rejected %v, want block 1 only", got["rejected"])
	}
	flat := p.Project(decode(t, `{"output": "one string"}`))
	if want := []any{"text"}; !reflect.DeepEqual(flat["delivery"], want) {
		t.Errorf("a content flattened into one string: delivery %v, want %v", flat["delivery"], want)
	}
}
