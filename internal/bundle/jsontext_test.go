package bundle

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// jsonTextPair evaluates both readers of a JSON text: check's builtin contractcheck.json_text
// (internal/policy: strictjson.Decode with strictjson.DefaultLimits, numbers respelled by
// numbers.go), and the bundle's pure-Rego text (rego/json.rego).
type jsonTextPair struct{ agreePair }

func newJSONTextPair(t *testing.T) *jsonTextPair {
	t.Helper()
	return &jsonTextPair{newAgreePair(t, "package agree\n\nreadout := {\"v\": v} if {\n\tv := contractcheck.json_text(input.s)\n} else := {}\n",
		"v := data.contractcheck.bundle.json.text(input.s)", "rego/json.rego")}
}

// judge reads s both ways: each side's value as strictjson writes it (numbers verbatim, so a
// respelling that differs is a difference), or "undefined".
func (p *jsonTextPair) judge(s string) (bundle, check string, err error) {
	ctx := context.Background()
	input, err := policy.Input(map[string]any{"s": s})
	if err != nil {
		return "", "", err
	}
	r, err := p.check.Eval(ctx, input)
	if err != nil {
		return "", "", fmt.Errorf("check: %w", err)
	}
	check = "undefined"
	if v, ok := r["v"]; ok {
		out, err := strictjson.Marshal(v)
		if err != nil {
			return "", "", fmt.Errorf("check: %w", err)
		}
		check = string(out)
	}
	rs, err := p.bundle.Eval(ctx, rego.EvalParsedInput(ast.NewObject(ast.Item(ast.StringTerm("s"), ast.StringTerm(s)))))
	if err != nil {
		return "", "", fmt.Errorf("bundle: %w", err)
	}
	bundle = "undefined"
	if len(rs) == 1 {
		out, err := strictjson.Marshal(normalize(rs[0].Bindings["v"]))
		if err != nil {
			return "", "", fmt.Errorf("bundle: %w", err)
		}
		bundle = string(out)
	}
	return bundle, check, nil
}

// jsonTextEdges are texts at and past each rule of the strict reader, its limits taken from
// strictjson.DefaultLimits (json.rego writes them as literals: a change on either side shows
// here), and numbers each way of the respelling.
func jsonTextEdges() []string {
	lim := strictjson.DefaultLimits
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	digits := func(n int) string { return "1" + strings.Repeat("0", n-1) }
	return []string{
		"", " ", "1", " 1\n", "\t[]\r\n", "1 2", "1 x", "{} {}", "[1,]", "{\"a\":1,}", "01", "-", "1.", ".5", "+1",
		"NaN", "Infinity", "nul", "null", "true", "\"x\"", "'x'", "\ufeff1", "\"\u2028\"", "\"\x01\"",
		// not UTF-8 (a string base64.decode made can be anything), and U+FFFD itself
		"\"\xff\"", "[\"a\"]\xff", "\xff1", "\"\xed\xa0\x80\"", "\"\xef\xbf\xbd\"",
		`{"a":1,"a":2}`, `{"a":1,"b":{"a":2}}`, `{"a:b":1,"c":"d:e"}`, `{"a\u003ab":1,"a:b":2}`, `{"a\u003Ab":1}`,
		`{"a":"\u003a","b":":"}`, `{"\\u003a":1,"\\u003a":2}`, `{"x":"\\","y":"\\u003a"}`, `{"a":{},"a":[]}`,
		`"\ud800"`, `"\udc00"`, `"\ud83d\ude00"`, `"\ud83d\u0041"`, `"\\ud800"`, `"\\\ud800"`, `"\ud800\ud800\udc00"`,
		`"\uD83D\uDE00"`, `"\u0000"`, `"\/"`, `"\x"`,
		nest(lim.MaxDepth), nest(lim.MaxDepth + 1), `{"a":` + nest(lim.MaxDepth-1) + `}`, `{"a":` + nest(lim.MaxDepth) + `}`,
		digits(lim.MaxDigits), digits(lim.MaxDigits + 1), "-" + digits(lim.MaxDigits), "0." + digits(lim.MaxDigits-1),
		"0." + digits(lim.MaxDigits), fmt.Sprintf("1e%d", lim.MaxExponent), fmt.Sprintf("1e%d", lim.MaxExponent+1),
		fmt.Sprintf("1E-%d", lim.MaxExponent), fmt.Sprintf("1e-%d", lim.MaxExponent+1), fmt.Sprintf("1e+0%d", lim.MaxExponent),
		fmt.Sprintf("1e00000%d", lim.MaxExponent+1), "1e0", "1e-0", "0e99999",
		"1.50", "0.10000000000000000000010", "1.10000000000000000000e10", "0.00000000000000000000e10",
		"-1000000000000000000000.10", "1.5e3", "100", "12345678901234567891", "9007199254740993", "-0", "-0.0", "0.0e5",
		`[0.10000000000000000000010, 1.0, {"n": 2.500, "m": [1e2, 1E+02, 0.1000000000000000000001]}]`,
		`{"text": "{\"inner\": 1.10}"}`,
	}
}

// catalogueStrings are the distinct strings of every catalogued source and every captured
// built-in carrier, at any depth: the texts check and the bundle read as JSON are among them.
func catalogueStrings(t *testing.T) []string {
	in, err := instrument.Load(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, id := range contract.SortedKeys(in.Sources) {
		collectStrings(in.Sources[id].Doc, seen)
	}
	for _, r := range captured(t, in) {
		collectStrings(r.Carrier, seen)
	}
	return contract.SortedKeys(seen)
}

// TestJSONTextAgrees holds the bundle's strict JSON reader (rego/json.rego: text, and number,
// its respelling) to check's (contractcheck.json_text: internal/strictjson and
// internal/policy/numbers.go). Both exist because check reads JSON text in Go, in process, where
// the policies call a custom builtin, while a stock OPA has no custom builtin: the bundle
// rewrites the call to json.rego (RewriteBuiltins). Nothing else keeps them equal, so this test
// reads every string of the catalogue (every source, every captured carrier) and texts at and
// past each rule and limit both ways: the same texts are JSON, with the same values, numbers
// spelled alike.
func TestJSONTextAgrees(t *testing.T) {
	p := newJSONTextPair(t)
	catalogue := catalogueStrings(t)
	texts := append(jsonTextEdges(), catalogue...)
	var (
		bad        []string
		json, none int
	)
	for i, r := range judgeAll(texts, p.judge) {
		switch s := texts[i]; {
		case r.err != nil:
			bad = append(bad, fmt.Sprintf("%.80q: %v", s, r.err))
		case r.bundle != r.check:
			bad = append(bad, fmt.Sprintf("%.80q:\n\tbundle %.200s\n\tcheck  %.200s", s, r.bundle, r.check))
		case r.check == "undefined":
			none++
		default:
			json++
		}
	}
	t.Logf("%d texts (%d of the catalogue): %d JSON to both, %d to neither", len(texts), len(catalogue), json, none)
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Fatalf("%d of %d texts read differently:\n%s", len(bad), len(texts), strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
	if json < 100 {
		t.Errorf("only %d texts are JSON: the comparison does not exercise the reader", json)
	}
}
