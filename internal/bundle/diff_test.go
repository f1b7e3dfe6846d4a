package bundle

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// diffPair evaluates both implementations of the minimal differences on one input {a, b, base}:
// check's builtin contractcheck.diff (internal/policy/diff.go), and the bundle's pure-Rego
// diff.between (rego/diff.rego).
type diffPair struct{ agreePair }

func newDiffPair(t *testing.T) *diffPair {
	t.Helper()
	return &diffPair{newAgreePair(t, "package agree\n\nreadout := {\"v\": contractcheck.diff(input.a, input.b, input.base)}\n",
		"v := data.contractcheck.bundle.diff.between(input.a, input.b, input.base)", "rego/diff.rego", "rego/pointer.rego")}
}

// judge gives each side's set of differences as strictjson writes it (in OPA's set order, each
// value in its own side's spelling). The input's numbers are respelled as check's policy inputs
// are (policy.Input), and both sides read the same input value.
func (p *diffPair) judge(a, b any, base string) (bundle, check string, err error) {
	ctx := context.Background()
	input, err := policy.Input(map[string]any{"a": a, "b": b, "base": base})
	if err != nil {
		return "", "", err
	}
	r, err := p.check.Eval(ctx, input)
	if err != nil {
		return "", "", fmt.Errorf("check: %w", err)
	}
	out, err := strictjson.Marshal(normalize(r["v"]))
	if err != nil {
		return "", "", fmt.Errorf("check: %w", err)
	}
	check = string(out)
	rs, err := p.bundle.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil {
		return "", "", fmt.Errorf("bundle: %w", err)
	}
	if len(rs) != 1 {
		return "undefined", check, nil
	}
	if out, err = strictjson.Marshal(normalize(rs[0].Bindings["v"])); err != nil {
		return "", "", fmt.Errorf("bundle: %w", err)
	}
	return string(out), check, nil
}

// diffEdges are pairs at each rule of the differences: equal numbers spelled apart, numbers that
// differ past float64, keys that need escaping, null against absent, containers of the other kind,
// arrays of different lengths, a base to write the paths under.
func diffEdges(t *testing.T) [][3]any {
	t.Helper()
	doc := func(s string) any {
		v, err := strictjson.Decode("edge", []byte(s), strictjson.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	pairs := [][3]string{
		{`1e2`, `100`, ""}, {`1.0`, `1`, "/x"}, {`-0`, `0`, ""}, {`12345678901234567891`, `12345678901234567000`, ""},
		{`[0.10000000000000000000010]`, `[0.1000000000000000000001]`, ""}, {`[1.50]`, `[2.0]`, ""},
		{`{"a/b":{"c~d":1}}`, `{"a/b":{"c~d":2}}`, ""}, {`{"~":1,"/":2,"~1":3}`, `{}`, "/base~0/x~1"},
		{`{"a":null}`, `{}`, ""}, {`{}`, `{"a":null}`, ""}, {`{"a":false}`, `{"a":null}`, ""},
		{`null`, `{}`, ""}, {`{}`, `[]`, ""}, {`[]`, `{}`, "/p"}, {`"1"`, `1`, ""}, {`true`, `1`, ""},
		{`[1,2,3]`, `[1]`, ""}, {`[1]`, `[1,{"a/b":2}]`, ""}, {`[[1,[2]],{"x":[3]}]`, `[[1,[4]],{"x":{"3":3}}]`, ""},
		{`{"a":[1,{"b":null}]}`, `{"a":[1.0,{"b":null}]}`, ""}, {`{"a":{"b":{"c":1}}}`, `{"a":{"b":"c"}}`, ""},
		{`{"":1}`, `{"":2}`, ""}, {`{"é":1,"日本":[1]}`, `{"é":2,"日本":[]}`, ""}, {`"a"`, `"b"`, "/0/uri"},
	}
	var out [][3]any
	for _, p := range pairs {
		out = append(out, [3]any{doc(p[0]), doc(p[1]), p[2]})
	}
	return out
}

// TestDiffAgrees holds the bundle's minimal differences (rego/diff.rego, diff.between) to check's
// (contractcheck.diff, internal/policy/diff.go). Both exist because the task policies call
// contractcheck.diff, a custom builtin check implements in Go for speed, and a stock OPA has no
// custom builtin: the bundle rewrites each call to diff.between (RewriteBuiltins). The policies
// diff a fixture's source view against what a carrier kept of it, so this test diffs, both ways,
// every catalogued source's view against every view check projects of its captured carriers
// (every distinct carrier, every compartment its lane stage binds), in both directions, and the
// pairs at each rule above: the same differences, each value in its own side's spelling.
// TestStockOPAAgreesWithCheck compares them again inside whole decisions, with a stock OPA.
func TestDiffAgrees(t *testing.T) {
	p := newDiffPair(t)
	in, err := instrument.Load(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		what string
		a, b any
		base string
	}
	var jobs []job
	for i, e := range diffEdges(t) {
		jobs = append(jobs, job{what: fmt.Sprintf("edge %d", i), a: e[0], b: e[1], base: e[2].(string)})
	}
	edges := len(jobs)
	canon := func(v any) string {
		out, _ := strictjson.Marshal(v)
		return string(out)
	}
	seen := map[string]bool{}
	for _, r := range captured(t, in) {
		for _, comp := range contract.SortedKeys(in.Model.Lanes[r.Lane].Stages[r.Stage].Compartments) {
			observed := in.View(r.Lane, r.Stage, comp, r.Carrier)
			key := r.Fixture + " " + canon(observed)
			if seen[key] {
				continue
			}
			seen[key] = true
			source := in.SourceView(r.Fixture)
			what := fmt.Sprintf("%s:%d %s", r.File, r.Line, comp)
			jobs = append(jobs, job{what: what, a: source, b: observed}, job{what: what + " (reversed)", a: observed, b: source})
		}
	}
	var (
		bad        []string
		same, diff int
	)
	for i, r := range judgeAll(jobs, func(j job) (string, string, error) { return p.judge(j.a, j.b, j.base) }) {
		switch j := jobs[i]; {
		case r.err != nil:
			bad = append(bad, fmt.Sprintf("%s: %v", j.what, r.err))
		case r.bundle != r.check:
			bad = append(bad, fmt.Sprintf("%s:\n\tbundle %.300s\n\tcheck  %.300s", j.what, r.bundle, r.check))
		case r.check == "[]":
			same++
		default:
			diff++
		}
	}
	t.Logf("%d pairs (%d of the catalogue): %d alike, %d with the same differences", len(jobs), len(jobs)-edges, same, diff)
	if len(bad) > 0 {
		sort.Strings(bad)
		t.Fatalf("%d of %d pairs differ:\n%s", len(bad), len(jobs), strings.Join(bad[:min(len(bad), 10)], "\n"))
	}
	if diff < 100 || same < 10 {
		t.Errorf("%d pairs with differences, %d alike: the comparison does not exercise diff", diff, same)
	}
}
