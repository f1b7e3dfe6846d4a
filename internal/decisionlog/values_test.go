package decisionlog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestDescribe: a value is described by its JSON type, its length (characters, items, members)
// and the digest of its JSON text as OPA's json.marshal writes it (HTML characters escaped).
func TestDescribe(t *testing.T) {
	sum := func(text string) string { s := sha256.Sum256([]byte(text)); return hex.EncodeToString(s[:]) }
	for _, tc := range []struct {
		name string
		v    any
		want map[string]any
	}{
		{name: "a string of characters, not bytes", v: "héllo", want: map[string]any{"type": "string", "length": json.Number("5"), "sha256": sum(`"héllo"`)}},
		{name: "HTML escaped as json.marshal escapes it", v: "<a&b>", want: map[string]any{"type": "string", "length": json.Number("5"), "sha256": sum(`"\u003ca\u0026b\u003e"`)}},
		{name: "a number past float64, as spelt", v: json.Number("9007199254740993"), want: map[string]any{"type": "number", "sha256": sum("9007199254740993")}},
		{name: "a negative 65-bit integer", v: json.Number("-9223372036854775809"), want: map[string]any{"type": "number", "sha256": sum("-9223372036854775809")}},
		{name: "a boolean", v: false, want: map[string]any{"type": "boolean", "sha256": sum("false")}},
		{name: "null", v: nil, want: map[string]any{"type": "null", "sha256": sum("null")}},
		{name: "an array", v: []any{json.Number("1"), "x"}, want: map[string]any{"type": "array", "length": json.Number("2"), "sha256": sum(`[1,"x"]`)}},
		{name: "an object, keys sorted", v: map[string]any{"b": true, "a": nil}, want: map[string]any{"type": "object", "length": json.Number("2"), "sha256": sum(`{"a":null,"b":true}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Describe(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("Describe(%v) = %s, want %s", tc.v, g, w)
			}
			back, err := readValue(asDecoded(t, got))
			if err != nil {
				t.Fatalf("the description does not read back: %v", err)
			}
			if b, _ := json.Marshal(back); string(b) != string(w) {
				t.Errorf("read back as %s", b)
			}
		})
	}
}

// asDecoded is v as the reader decodes it from a log (numbers json.Number).
func asDecoded(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := strictjson.Decode("", data, strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestLoggedValuesSurviveFloat64: a decision as a bundle logs it, decoded and encoded again as
// OPA's upload re-encodes a chunk over its size limit (encoding/json into interface{}: numbers
// through float64), reads back exact: the quoted values are the values check gave, digit for
// digit, and the descriptions unchanged. The same verdict logged with its values as they are (an
// older bundle) loses digits through the same route, which is what the logged values are for.
func TestLoggedValuesSurviveFloat64(t *testing.T) {
	values := []any{
		json.Number("9007199254740993"), json.Number("-9223372036854775809"), json.Number("1e400"),
		json.Number("0.30000000000000004441"), json.Number("123456789012345678901234567890"),
		map[string]any{"n": json.Number("18446744073709551616"), "s": "x"},
	}
	for _, h := range hostile.Strings() {
		if strings.ToValidUTF8(h, "") == h {
			values = append(values, h)
		}
	}
	var diags []result.Diagnostic
	for i, v := range values {
		diags = append(diags, result.Diagnostic{"atom": "structured.value", "kind": "altered", "path": "/" + string(rune('a'+i%26)),
			"expected": v, "observed": json.Number("2")})
	}
	readout := map[string]any{"count": json.Number("9007199254740993")}
	for _, quote := range []bool{true, false} {
		name := map[bool]string{true: "quoted", false: "described"}[quote]
		t.Run(name, func(t *testing.T) {
			tr, err := EncodeTaskResult("T2", result.Unmet, diags, readout, quote)
			if err != nil {
				t.Fatal(err)
			}
			event := map[string]any{"decision_id": "d1", "path": Path, "result": map[string]any{
				"profile": "strict", "fixture": "C02", "lane": "go-sdk", "laneVersion": "v1.8.0", "configuration": "default",
				"stage": "D1", "repetition": json.Number("1"), "results": []any{tr}}}
			got := readUploaded(t, event)
			if len(got.Results) != 1 {
				t.Fatalf("results %+v", got.Results)
			}
			for i, d := range got.Results[0].Diagnostics {
				want := diags[i]
				if !quote {
					e, _ := Describe(want["expected"])
					o, _ := Describe(want["observed"])
					want = result.Diagnostic{"atom": want["atom"], "kind": want["kind"], "path": want["path"], "expected": e, "observed": o}
				}
				if g, w := testkit.JSON(t, d), testkit.JSON(t, want); g != w {
					t.Errorf("diagnostic %d read back as\n%s\nwant\n%s", i, g, w)
				}
			}
			if g, w := testkit.JSON(t, got.Results[0].Readout), testkit.JSON(t, readout); g != w {
				t.Errorf("readout %s, want %s", g, w)
			}
		})
	}
	t.Run("values as they are lose digits", func(t *testing.T) {
		raw, _ := json.Marshal(map[string]any{"expected": json.Number("9007199254740993")})
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(doc)
		if bytes.Equal(raw, again) {
			t.Fatalf("%s survived float64: the test above would prove nothing", raw)
		}
	})
}

// readUploaded writes event as OPA's upload re-encodes it (decoded into interface{}, encoded
// again), as a batch, and reads the one decision back.
func readUploaded(t *testing.T, event map[string]any) *Decision {
	t.Helper()
	data, err := json.Marshal([]any{event})
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "batch.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var got []*Decision
	if _, err := Read(context.Background(), []string{p}, nil, func(d *Decision) error { got = append(got, d); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d decisions", len(got))
	}
	return got[0]
}
