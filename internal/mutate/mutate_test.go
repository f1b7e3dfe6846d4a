package mutate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// builtinInstrument is the built-in instrument, loaded once.
var builtinInstrument = testkit.Once(func() (*instrument.Instrument, error) {
	return instrument.Load(context.Background(), inputs.Options{})
})

func env(t *testing.T, fixture string) *Env {
	in := builtinInstrument(t)
	f := in.Model.Fixtures[fixture]
	return &Env{Model: in.Model, Lane: "direct", Stage: "A2", Fixture: f, Tasks: in.Model.ProfileTasks(in.Profile, f)}
}

func record(t *testing.T, carrier string) *Node {
	t.Helper()
	n, err := Parse("test", []byte(`{"fixture":"X","carrier":`+carrier+`}`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func carrierOf(t *testing.T, rec []byte) string {
	t.Helper()
	n, err := Parse("result", rec)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := n.Get("carrier")
	return string(c.Bytes(Style{}))
}

func byName(t *testing.T, name string) *Operator {
	t.Helper()
	ops, err := Lookup([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	return ops[0]
}

func TestCatalogue(t *testing.T) {
	faults, controls := 0, 0
	for _, o := range Operators() {
		if o.Kind == Fault {
			faults++
			if len(o.Tasks) == 0 || len(o.Atoms) == 0 {
				t.Errorf("%s: a fault names its tasks and atoms", o.Name)
			}
		} else {
			controls++
		}
	}
	if faults < 14 || controls < 8 {
		t.Errorf("%d fault and %d control operators; the issue asks for at least 14 and 8", faults, controls)
	}
	if _, err := Lookup([]string{"no-such-op"}); err == nil {
		t.Error("an unknown operator is an error")
	}
}

func resource(name, text string) string {
	return `{"type":"resource","resource":{"uri":"https://a.example/` + name + `","mimeType":"text/plain","text":"` + text + `"}}`
}

// Each fault does what its name says, on a carrier where its choice is forced.
func TestFaults(t *testing.T) {
	img := `{"type":"image","data":"AAEC","mimeType":"image/png","annotations":{"priority":0.5},"_meta":{"k":1}}`
	cases := []struct {
		op, fixture, carrier, want, task string
	}{
		{"swap-resource-text", "C10", `{"content":[` + resource("a", "one") + `,` + resource("b", "two") + `]}`,
			`{"content":[` + resource("a", "two") + `,` + resource("b", "one") + `]}`, "T4"},
		{"rotate-resource-text", "C10", `{"content":[` + resource("a", "one") + `,` + resource("b", "two") + `,` + resource("c", "three") + `]}`,
			`{"content":[` + resource("a", "three") + `,` + resource("b", "one") + `,` + resource("c", "two") + `]}`, "T4"},
		{"drop-uri", "C10", `{"content":[` + resource("a", "one") + `]}`,
			`{"content":[{"type":"resource","resource":{"mimeType":"text/plain","text":"one"}}]}`, "T4"},
		{"alter-mime", "C11", `{"content":[{"type":"image","data":"AAEC","mimeType":"image/png"}]}`,
			`{"content":[{"type":"image","data":"AAEC","mimeType":"image/jpeg"}]}`, "T4"},
		{"drop-block", "C09", `{"content":[{"type":"text","text":"a"}]}`, `{"content":[]}`, "T4"},
		{"add-block", "C09", `{"content":[{"type":"text","text":"a"}]}`, `{"content":[{"type":"text","text":"a"},{"type":"text","text":"a"}]}`, "T4"},
		{"reorder-blocks", "C09", `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
			`{"content":[{"type":"text","text":"b"},{"type":"text","text":"a"}]}`, "T4"},
		{"alter-text", "C09", `{"content":[{"type":"text","text":"x"}]}`, `{"content":[{"type":"text","text":"y"}]}`, "T4"},
		{"drop-annotations", "C13", `{"content":[` + img + `]}`, `{"content":[{"type":"image","data":"AAEC","mimeType":"image/png","_meta":{"k":1}}]}`, "T4"},
		{"drop-block-meta", "C13", `{"content":[` + img + `]}`, `{"content":[{"type":"image","data":"AAEC","mimeType":"image/png","annotations":{"priority":0.5}}]}`, "T4"},
		{"drop-resource-meta", "C15", `{"content":[{"type":"resource","resource":{"uri":"u:x","blob":"AA==","_meta":{"a":1}}}]}`,
			`{"content":[{"type":"resource","resource":{"uri":"u:x","blob":"AA=="}}]}`, "T4"},
		{"alter-descriptor", "C12", `{"content":[{"type":"resource_link","uri":"u:x","name":"n"}]}`,
			`{"content":[{"type":"resource_link","uri":"u:x","name":"n (rev. 2)"}]}`, "T4"},
		{"absent-to-null", "C01", `{"content":[]}`, `{"content":[],"structuredContent":null}`, "T2"},
		{"null-to-absent", "C06", `{"content":[],"structuredContent":{"a":null,"b":1}}`, `{"content":[],"structuredContent":{"b":1}}`, "T2"},
		{"null-to-absent", "X02", `{"content":[],"structuredContent":null}`, `{"content":[]}`, "T2"},
		{"alter-number", "C06", `{"content":[],"structuredContent":{"n":9007199254740999}}`, `{"content":[],"structuredContent":{"n":9007199254741000}}`, "T2"},
		{"string-to-number", "C06", `{"content":[],"structuredContent":{"s":"abc"}}`, `{"content":[],"structuredContent":{"s":3}}`, "T2"},
		{"stringify-structured", "C06", `{"content":[],"structuredContent":{"b":1,"a":2}}`,
			`{"content":[{"type":"text","text":"{\"b\":1,\"a\":2}"}]}`, "T2"},
		{"flip-is-error", "C07", `{"content":[],"isError":true}`, `{"content":[],"isError":false}`, "T3"},
		{"drop-is-error", "C07", `{"content":[],"isError":true}`, `{"content":[]}`, "T3"},
		{"drop-result-meta", "C17", `{"content":[],"_meta":{"a":1}}`, `{"content":[]}`, "T5"},
	}
	for _, c := range cases {
		t.Run(c.op+"/"+c.fixture, func(t *testing.T) {
			r, err := Apply(byName(t, c.op), env(t, c.fixture), record(t, c.carrier), 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := carrierOf(t, r.Record); got != c.want {
				t.Errorf("carrier\n got %s\nwant %s", got, c.want)
			}
			if r.Task != c.task {
				t.Errorf("task %s, want %s", r.Task, c.task)
			}
		})
	}
}

// The payload fault flips exactly one bit of the decoded bytes, and keeps the spelling (padding).
func TestAlterPayloadByte(t *testing.T) {
	r, err := Apply(byName(t, "alter-payload-byte"), env(t, "C11"), record(t, `{"content":[{"type":"image","data":"AAECAw==","mimeType":"image/png"}]}`), 3)
	if err != nil {
		t.Fatal(err)
	}
	got := carrierOf(t, r.Record)
	if !strings.Contains(got, `==","mimeType"`) || strings.Contains(got, "AAECAw==") {
		t.Fatalf("payload not altered in the same spelling: %s", got)
	}
	off := r.Params["offset"].(int)
	if off < 0 || off > 3 {
		t.Errorf("offset %d outside the 4 decoded bytes", off)
	}
}

func TestNotApplicable(t *testing.T) {
	for _, c := range []struct{ op, fixture, carrier string }{
		{"swap-resource-text", "C10", `{"content":[` + resource("a", "one") + `]}`},
		{"flip-is-error", "C09", `{"content":[],"isError":true}`}, // C09 is not evaluated on T3
		{"flip-is-error", "C07", `{"content":[]}`},
		{"escape-solidus", "C09", `{"content":[{"type":"text","text":"no slash"}]}`},
		{"number-exponent", "C09", `{"content":[{"type":"text","text":"no number"}]}`},
		{"base64-unpadded", "C11", `{"content":[{"type":"image","data":"AAEC","mimeType":"image/png"}]}`},
		// The structured slot absent: what changes its value has nothing to change.
		{"null-to-absent", "C06", `{"content":[]}`},
		{"alter-number", "C06", `{"content":[]}`},
		{"string-to-number", "C06", `{"content":[]}`},
		{"stringify-structured", "C06", `{"content":[]}`},
	} {
		_, err := Apply(byName(t, c.op), env(t, c.fixture), record(t, c.carrier), 1)
		var nap *NotApplicable
		if !errors.As(err, &nap) {
			t.Errorf("%s on %s: got %v, want not applicable", c.op, c.carrier, err)
		}
	}
}

// Every control changes the record's bytes and keeps every compartment's canonical view equal.
func TestControlsKeepView(t *testing.T) {
	in := builtinInstrument(t)
	carrier := `{"content":[{"type":"text","text":"Café ☕ 🚚 a/b","annotations":{"priority":0.25,"audience":["user"]}},` +
		`{"type":"image","data":"AAECAwQ=","mimeType":"image/png"}],"structuredContent":{"n":100,"x":2.35,"big":12345678901234567891},"isError":false}`
	for _, o := range Operators() {
		if o.Kind != Control || o.Name == "dataurl-vs-base64" {
			continue
		}
		t.Run(o.Name, func(t *testing.T) {
			base := record(t, carrier)
			r, err := Apply(o, env(t, "C13"), base, 5)
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Record) == string(base.Bytes(Style{})) {
				t.Fatal("the control left the bytes unchanged")
			}
			doc, err := strictjson.Decode("mutated", r.Record, strictjson.DefaultLimits)
			if err != nil {
				t.Fatalf("the control wrote invalid JSON: %v\n%s", err, r.Record)
			}
			after := doc.(map[string]any)["carrier"]
			before := base.Tree().(map[string]any)["carrier"]
			for _, comp := range []string{"content", "structured", "error", "meta"} {
				if !strictjson.Equal(in.View("direct", "A2", comp, before), in.View("direct", "A2", comp, after)) {
					t.Errorf("compartment %s: view changed\n%s", comp, r.Record)
				}
			}
		})
	}
}

// The data URL control keeps the agent-framework view of a data item.
func TestDataURLControl(t *testing.T) {
	in := builtinInstrument(t)
	f := in.Model.Fixtures["C11"]
	e := &Env{Model: in.Model, Lane: "agent-framework", Stage: "A2", Fixture: f, Tasks: f.Tasks}
	base := record(t, `{"type":"function_result","call_id":"c","items":[{"type":"data","uri":"data:image/png;base64,AAECAwQ=","media_type":"image/png"}]}`)
	r, err := Apply(byName(t, "dataurl-vs-base64"), e, base, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Record), `base64,AAECAwQ"`) {
		t.Fatalf("padding not removed: %s", r.Record)
	}
	doc, _ := strictjson.Decode("", r.Record, strictjson.DefaultLimits)
	after := doc.(map[string]any)["carrier"]
	before := base.Tree().(map[string]any)["carrier"]
	if !strictjson.Equal(in.View("agent-framework", "A2", "content", before), in.View("agent-framework", "A2", "content", after)) {
		t.Error("the content view changed")
	}
}

func TestNumbers(t *testing.T) {
	for in, want := range map[string]string{"9": "10", "2.5E-7": "2.6E-7", "-0.19": "-0.20", "0.8": "0.9", "-9223372036854775809": "-9223372036854775810"} {
		if got := incNumber(in); got != want {
			t.Errorf("incNumber(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"100": "1e2", "2.35": "235e-2", "16": "16e0", "2.5E-7": "25e-8", "1e2": "10e1", "0": "0e0", "-0.50": "-5e-1"} {
		if got := exponentForm(in); got != want {
			t.Errorf("exponentForm(%s) = %s, want %s", in, got, want)
		}
		if !strictjson.Equal(jsonNumber(in), jsonNumber(exponentForm(in))) {
			t.Errorf("exponentForm(%s) changed the value", in)
		}
	}
}

func jsonNumber(s string) any {
	v, _ := strictjson.Decode("", []byte(s), strictjson.DefaultLimits)
	return v
}

// A case encodes with its record verbatim and round-trips through the strict reader.
func TestCaseEncode(t *testing.T) {
	c := &Case{ID: "x", Operator: "key-order", Kind: Control, Task: AllTasks, Compartment: AllTasks,
		Description: "d", Expected: Expected{Outcome: "pass", Tasks: []string{"T1"}}, Fixture: "C09",
		SourceFile: "sources/C09.json", Record: []byte(`{"b":1e2,  "a":"\u0041"}`), Params: map[string]any{"blocks": []int{1}}}
	out := c.Encode()
	if !strings.Contains(string(out), `"record": {"b":1e2,  "a":"\u0041"}`) {
		t.Errorf("record not verbatim:\n%s", out)
	}
	if _, err := strictjson.Decode("case", out, strictjson.DefaultLimits); err != nil {
		t.Error(err)
	}
}

// TestWriteStringEscapes pins how a string is written in each style: the short escapes, a
// control character and, with EscapeLetters, every letter as \uXXXX in lower-case hex, a UTF-16
// surrogate pair beyond the basic plane; what is written reads back (encoding/json) as the string.
func TestWriteStringEscapes(t *testing.T) {
	tests := []struct {
		name, text, want string
		style            Style
	}{
		{name: "short escapes, quote and backslash", text: "a\n\r\t\"\\", want: `"a\n\r\t\"\\"`},
		{name: "control characters", text: "\x00\x01\x1f", want: `"\u0000\u0001\u001f"`},
		{name: "beyond the basic plane as it is", text: "😀", want: `"😀"`},
		{name: "solidus", text: "a/b", style: Style{EscapeSolidus: true}, want: `"a\/b"`},
		{name: "letters escaped", text: "aZ é-1", style: Style{EscapeLetters: true}, want: `"\u0061\u005a \u00e9-1"`},
		{name: "letters escaped beyond the basic plane", text: "😀\U000e0001", style: Style{EscapeLetters: true}, want: `"\ud83d\ude00\udb40\udc01"`},
		{name: "control character with letters escaped", text: "\x01\u2028", style: Style{EscapeLetters: true}, want: `"\u0001\u2028"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string((&Node{Kind: String, Text: tc.text}).Bytes(tc.style))
			if got != tc.want {
				t.Errorf("%q written\n got %s\nwant %s", tc.text, got, tc.want)
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil || back != tc.text {
				t.Errorf("%s reads back as %q (%v), want %q", got, back, err, tc.text)
			}
		})
	}
}
