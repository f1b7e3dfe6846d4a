package compare

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/testkit/reportkit"
)

// builtinWorkers is how many workers the shared built-in compare runs with: many, so that
// TestDeterministicAndValid compares it with a run on one worker.
const builtinWorkers = 8

// builtin runs the built-in compare once for the tests that read it.
// A run evaluates every built-in record under two profiles and every decoder: about 1.5 CPU-s.
var builtin = testkit.Once(func() (*Report, error) {
	o := Options{}
	o.Workers = builtinWorkers
	return Run(context.Background(), o)
})

// newEvaluator builds an evaluator over the built-in instrument with the built-in decoders.
func newEvaluator(t *testing.T) *evaluator {
	t.Helper()
	ctx := context.Background()
	in, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	decs, err := loadDecoders(ctx, in.Engine(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev := &evaluator{base: in, decoders: decs, sources: map[string]*ast.Term{}}
	for _, id := range []string{"C01", "C04", "C06"} {
		v, err := policy.Input(in.SourceView(id))
		if err != nil {
			t.Fatal(err)
		}
		ev.sources[id] = ast.NewTerm(v)
	}
	return ev
}

// readouts reads target in a hand-made carrier, observed at the control lane's D1 (the whole
// CallToolResult), with every built-in decoder.
func (ev *evaluator) readouts(t *testing.T, fixture, target, carrier string) map[string]map[string]any {
	t.Helper()
	doc, err := strictjson.Decode("carrier", []byte(carrier), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := instrument.NewObserved(ev.base.View("direct", "D1", Compartment, doc))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, d := range ev.decoders {
		ro, err := ev.readout(context.Background(), d, fixture, "structured-stress", target, obs)
		if err != nil {
			t.Fatal(err)
		}
		out[d.Name] = ro
	}
	return out
}

func enc(t *testing.T, v any) string {
	t.Helper()
	if m, ok := v.(map[string]map[string]any); ok {
		v = readoutsValue(m)
	}
	b, err := strictjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadoutKinds produces every readout kind from a hand-made carrier of C04 (structured
// decision "deny"), C06 (an explicit null field) or C01 (text only, no structured value), with
// each built-in decoder.
func TestReadoutKinds(t *testing.T) {
	ev := newEvaluator(t)
	text := func(ts ...string) string {
		var items []string
		for _, s := range ts {
			items = append(items, `{"type":"text","text":`+enc(t, s)+`}`)
		}
		return `{"content":[` + strings.Join(items, ",") + `]}`
	}
	tests := []struct {
		name, fixture, target, carrier string
		native, text                   string // expected readouts, canonical JSON
	}{
		{"match in the slot", "C04", "/decision", `{"content":[],"structuredContent":{"decision":"deny"}}`,
			`{"kind":"match","observed":"deny"}`, `{"kind":"match","observed":"deny"}`},
		{"match of an explicit null", "C06", "/reorderPoint", `{"content":[],"structuredContent":{"reorderPoint":null}}`,
			`{"kind":"match","observed":null}`, `{"kind":"match","observed":null}`},
		{"correct absence is a match", "C04", "/notInSource", `{"content":[],"structuredContent":{"decision":"deny"}}`,
			`{"kind":"match"}`, `{"kind":"match"}`},
		{"missing: no slot, no text", "C04", "/decision", `{"content":[]}`,
			`{"kind":"missing"}`, `{"kind":"missing"}`},
		{"missing: the null slot is preferred over the text", "C04", "/decision", `{"content":[{"type":"text","text":"{\"decision\":\"deny\"}"}],"structuredContent":null}`,
			`{"kind":"missing"}`, `{"kind":"missing"}`},
		{"missing: an explicit null dropped", "C06", "/reorderPoint", `{"content":[],"structuredContent":{"onHand":1}}`,
			`{"kind":"missing"}`, `{"kind":"missing"}`},
		{"wrong in the slot", "C04", "/exposureEur", `{"content":[],"structuredContent":{"exposureEur":"18250.5"}}`,
			`{"kind":"wrong","observed":"18250.5"}`, `{"kind":"wrong","observed":"18250.5"}`},
		{"text only: native missing, text match", "C04", "/decision", text(`{"decision": "deny"}`),
			`{"kind":"missing"}`, `{"kind":"match","observed":"deny"}`},
		{"ambiguous: unequal typed candidates", "C04", "/exposureEur", text(`{"exposureEur":18250.5}`, `{"exposureEur":"18250.5"}`),
			`{"kind":"missing"}`, `{"candidates":[18250.5,"18250.5"],"kind":"ambiguous"}`},
		{"unparseable: prose-wrapped", "C04", "/decision", text(`Result: {"decision":"deny"}`),
			`{"kind":"missing"}`, `{"kind":"unparseable"}`},
		{"unparseable: concatenated", "C04", "/decision", text(`{"decision":"deny"}{"decision":"deny"}`),
			`{"kind":"missing"}`, `{"kind":"unparseable"}`},
		{"unparseable: duplicate key", "C04", "/decision", text(`{"decision":"deny","decision":"deny"}`),
			`{"kind":"missing"}`, `{"kind":"unparseable"}`},
		{"unparseable: every text item must parse", "C04", "/decision", text(`{"decision":"deny"}`, `done.`),
			`{"kind":"missing"}`, `{"kind":"unparseable"}`},
		{"introduced: a value where the source has none", "C04", "/notInSource", `{"content":[],"structuredContent":{"notInSource":false}}`,
			`{"kind":"introduced","observed":false}`, `{"kind":"introduced","observed":false}`},
		{"introduced through text", "C04", "/notInSource", text(`{"notInSource":1}`),
			`{"kind":"match"}`, `{"kind":"introduced","observed":1}`},
		{"prose where the source has no value: unparseable, or the study's correct absence", "C04", "/notInSource", text(`Result: deny`),
			`{"kind":"match"}`, `{"kind":"unparseable"}`},
		{"C01's prose at the whole value", "C01", "", text(`Shipment NWF-4471-KX left the Rotterdam hub.`),
			`{"kind":"match"}`, `{"kind":"unparseable"}`},
		{"C01: JSON text where the source has no value is introduced", "C01", "", text(`{"eta":"14 November"}`),
			`{"kind":"match"}`, `{"kind":"introduced","observed":{"eta":"14 November"}}`},
	}
	// The study's fallback, slot-then-json-text, reads as slot-or-json-text but where the source
	// has no value and the text is not JSON: the correct absence, not unparseable.
	study := map[string]string{
		"prose where the source has no value: unparseable, or the study's correct absence": `{"kind":"match"}`,
		"C01's prose at the whole value": `{"kind":"match"}`,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ev.readouts(t, tc.fixture, tc.target, tc.carrier)
			if g := enc(t, got["native-slot"]); g != tc.native {
				t.Errorf("native-slot: %s, want %s", g, tc.native)
			}
			if g := enc(t, got["slot-or-json-text"]); g != tc.text {
				t.Errorf("slot-or-json-text: %s, want %s", g, tc.text)
			}
			want, ok := study[tc.name]
			if !ok {
				want = tc.text
			}
			if g := enc(t, got["slot-then-json-text"]); g != want {
				t.Errorf("slot-then-json-text: %s, want %s", g, want)
			}
		})
	}
}

// TestConflictFixture reads C04 (structured "deny", text JSON "allow") with both decoder policies:
// by hand, and in the built-in records.
func TestConflictFixture(t *testing.T) {
	ev := newEvaluator(t)
	src, err := fs.ReadFile(contractcheck.Builtin, "fixtures/sources/paper/C04.json")
	if err != nil {
		t.Fatal(err)
	}
	both := ev.readouts(t, "C04", "/decision", string(src))
	if g := enc(t, both); g != `{"native-slot":{"kind":"match","observed":"deny"},"slot-or-json-text":{"kind":"match","observed":"deny"},"slot-then-json-text":{"kind":"match","observed":"deny"}}` {
		t.Errorf("the whole source: %s (the slot must win over the text)", g)
	}
	textOnly := ev.readouts(t, "C04", "/decision", `{"content":[{"type":"text","text":"{\"decision\":\"allow\",\"orderId\":\"SO-20931\"}"}]}`)
	if g := enc(t, textOnly); g != `{"native-slot":{"kind":"missing"},"slot-or-json-text":{"kind":"wrong","observed":"allow"},"slot-then-json-text":{"kind":"wrong","observed":"allow"}}` {
		t.Errorf("the text alone: %s", g)
	}

	r := builtin(t)
	want := map[string]string{
		"direct default D1":                       `{"native-slot":{"kind":"match","observed":"deny"},"slot-or-json-text":{"kind":"match","observed":"deny"},"slot-then-json-text":{"kind":"match","observed":"deny"}}`,
		"openai-agents default A2":                `{"native-slot":{"kind":"missing"},"slot-or-json-text":{"kind":"wrong","observed":"allow"},"slot-then-json-text":{"kind":"wrong","observed":"allow"}}`,
		"openai-agents use-structured-content A2": `{"native-slot":{"kind":"missing"},"slot-or-json-text":{"kind":"match","observed":"deny"},"slot-then-json-text":{"kind":"match","observed":"deny"}}`,
	}
	for _, rd := range r.Readouts {
		k := rd.Lane + " " + rd.Configuration + " " + rd.Stage
		if w, ok := want[k]; ok && rd.Fixture == "C04" && rd.Target == "/decision" {
			if g := enc(t, rd.Readouts); g != w {
				t.Errorf("C04 /decision at %s: %s, want %s", k, g, w)
			}
			delete(want, k)
		}
	}
	if len(want) > 0 {
		t.Errorf("no C04 reading at %v", want)
	}
}

// TestBuiltinControlAndTotals: the control lane matches every target under native-slot and the
// study's fallback (slot-then-json-text), and under slot-or-json-text but for C01's prose; the
// totals add up.
func TestBuiltinControlAndTotals(t *testing.T) {
	r := builtin(t)
	if got := decoderNames(r); !reflect.DeepEqual(got, []string{"native-slot", "slot-or-json-text", "slot-then-json-text"}) {
		t.Fatalf("decoders %v", got)
	}
	n := 0
	for _, rd := range r.Readouts {
		if rd.Lane != "direct" {
			continue
		}
		n++
		want := Match
		if rd.Fixture == "C01" && rd.Target == WholeTarget {
			// C01 has no structured value: slot-or-json-text, finding no slot, parses the prose
			// text, which is no JSON (the lib's readout puts unparseable first).
			want = Unparseable
		}
		if rd.State != "captured" || rd.Repetitions != 3 || rd.Kind("native-slot") != Match || rd.Kind("slot-or-json-text") != want || rd.Kind("slot-then-json-text") != Match {
			t.Errorf("direct %s %s %s: %s in %d repetitions %v", rd.Fixture, rd.Stage, rd.Target, rd.State, rd.Repetitions, rd.Readouts)
		}
	}
	if n == 0 {
		t.Fatal("no control readings")
	}
	for _, tot := range r.Totals {
		sum := 0
		for _, k := range Kinds {
			sum += tot.Kinds[k]
		}
		if sum != tot.Total || tot.Total == 0 {
			t.Errorf("%s: kinds sum to %d, total %d", tot.Decoder, sum, tot.Total)
		}
	}
	if r.ExitCode() != 0 {
		t.Errorf("exit %d", r.ExitCode())
	}
	if len(r.NullPolicies.Changes) == 0 || r.NullPolicies.Base.NullPolicy != "strict" || r.NullPolicies.Other.NullPolicy != "optional-null" {
		t.Errorf("null policies: %+v", r.NullPolicies.Base)
	}
	for _, c := range r.NullPolicies.Changes {
		if len(c.Atoms) == 0 {
			t.Errorf("%+v names no atom", c)
		}
	}
}

// TestDeterministicAndValid runs the built-in compare with one worker and with many (the shared
// run): every format gives the same bytes, and the JSON validates against the compare report
// schema.
func TestDeterministicAndValid(t *testing.T) {
	o := Options{}
	o.Workers = 1
	one, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string][][]byte{}
	for _, r := range []*Report{one, builtin(t)} {
		for _, f := range outputters.Names() {
			outputs[f] = append(outputs[f], render(t, f, r))
		}
	}
	for f, outs := range outputs {
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s output differs between 1 and %d workers", f, builtinWorkers)
		}
	}
	doc, v := reportkit.JSONDoc(t, "compare.json", outputs["json"][0]), reportkit.Schemas(t)
	if err := v.ValidateCompareReport(doc); err != nil {
		t.Fatalf("the compare report does not validate: %v", err)
	}
	if _, ok := doc.(map[string]any)["visibility"]; !ok {
		t.Error("the built-in compare report has no visibility")
	}
	doc.(map[string]any)["compareVersion"] = Version + 1
	if err := v.ValidateCompareReport(doc); err == nil || !strings.Contains(err.Error(), "/compareVersion") {
		t.Errorf("compareVersion %d validates: %v", Version+1, err)
	}
}

// policiesWith makes a policy layer of files from testdata, to load beside the built-in one.
func policiesWith(t *testing.T, files ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "policies")
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "decoders"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "decoders", f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCustomDecoder runs a decoder policy written in testdata beside a built-in one, named on
// --decoder both by its name and by its package path (one run; each name is its own column), and
// selects it with the built-in ones when no --decoder is given.
func TestCustomDecoder(t *testing.T) {
	dir := policiesWith(t, "first_text_item.rego")
	names := []string{"native-slot", "first-text-item", "contractcheck.decoders.first_text_item"}
	o := Options{Decoders: names}
	o.Policies = []string{dir}
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := decoderNames(r); !reflect.DeepEqual(got, names) {
		t.Fatalf("decoders %v, want %v", got, names)
	}
	for _, custom := range names[1:] {
		if d := r.Decoders[slices.Index(names, custom)]; d.Package != "contractcheck.decoders.first_text_item" {
			t.Fatalf("decoder %s: %+v", custom, d)
		}
		found := 0
		for _, rd := range r.Readouts {
			if rd.Fixture != "C04" || rd.Target != "/decision" || rd.State != "captured" {
				continue
			}
			switch rd.Lane + " " + rd.Configuration + " " + rd.Stage {
			case "direct default D1", "openai-agents default A2":
				found++
				// The first text item is the conflicting JSON text: "allow".
				if g := enc(t, rd.Readouts[custom]); g != `{"kind":"wrong","observed":"allow"}` {
					t.Errorf("%s at %s %s: %s", custom, rd.Lane, rd.Stage, g)
				}
			}
		}
		if found != 2 {
			t.Errorf("%s: found %d C04 readings", custom, found)
		}
	}
	// With no --decoder, every contractcheck.decoders package is compared: the selection Run
	// makes (loadDecoders), on the same layers, without evaluating the records again.
	in, err := instrument.Load(context.Background(), o.Options)
	if err != nil {
		t.Fatal(err)
	}
	decs, err := loadDecoders(context.Background(), in.Engine(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range decs {
		got = append(got, d.Name)
	}
	if !reflect.DeepEqual(got, []string{"first-text-item", "native-slot", "slot-or-json-text", "slot-then-json-text"}) {
		t.Errorf("default decoders %v", got)
	}
}

func TestDecoderErrors(t *testing.T) {
	tests := []struct {
		name     string
		decoders []string
		want     string
	}{
		{"unknown name", []string{"nope"}, `unknown decoder policy "nope"`},
		{"package without readout", []string{"contractcheck.lib.views"}, "defines no readout rule"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), Options{Decoders: tc.decoders})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want an input error naming %q", err, tc.want)
			}
		})
	}
}

// TestDecoderBreaksInterface: a decoder that fails or answers outside the interface is the
// instrument failing (exit 3, as a task policy is in check), not bad input.
func TestDecoderBreaksInterface(t *testing.T) {
	tests := []struct {
		name, file, decoder, want string
	}{
		{name: "a readout kind outside the interface", file: "bad_kind.rego", decoder: "bad-kind", want: `readout kind maybe is not one of`},
		{name: "an evaluation that fails", file: "halts.rego", decoder: "halts", want: "to_number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Decoders: []string{tc.decoder}}
			o.Policies = []string{policiesWith(t, tc.file)}
			_, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
			if code := result.ExitCode(err); code != result.ExitInstrument {
				t.Errorf("exit %d for %v, want %d", code, err, result.ExitInstrument)
			}
		})
	}
}

// render is r in format, as the registry's formatter for it writes it; t fails at once when there is no
// such format or the output fails.
func render(t testing.TB, format string, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := outputters.Write(&buf, format, report.Options{}, r); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return buf.Bytes()
}

// BenchmarkCompareBuiltin is `contractcheck compare` on the built-in data, its two profiles and
// every built-in decoder, instrument load included (the built-in one is loaded once a process).
func BenchmarkCompareBuiltin(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(ctx, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
