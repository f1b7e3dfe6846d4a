package bundle

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	opabundle "github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/policy"
	"github.com/contractcheck/contractcheck/internal/strictjson"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// builtin is the built-in contract set's bundle under the strict profile, built once.
var builtin = testkit.Once(func() (*Bundle, error) { return Build(context.Background(), inputs.Options{}) })

func (b *Bundle) file(t *testing.T, p string) []byte {
	t.Helper()
	for _, f := range b.Files {
		if f.Path == p {
			return f.Data
		}
	}
	t.Fatalf("the bundle has no %s", p)
	return nil
}

// modules parses the bundle's Rego files.
func (b *Bundle) modules(t *testing.T) map[string]*ast.Module {
	t.Helper()
	out := map[string]*ast.Module{}
	for _, f := range b.Files {
		if !strings.HasSuffix(f.Path, ".rego") {
			continue
		}
		m, err := ast.ParseModuleWithOpts(f.Path, string(f.Data), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatal(err)
		}
		out[f.Path] = m
	}
	return out
}

// TestRego runs the _test.rego files beside the bundle's Rego with OPA's test runner, against
// the built-in bundle's policies and data, with stock OPA's capabilities (no custom builtin) and
// the compiler in strict mode, as opa check --strict compiles them in CI (.ci/run).
func TestRego(t *testing.T) {
	b := builtin(t)
	modules := b.modules(t)
	tests, err := fs.Glob(Rego, "rego/*_test.rego")
	if err != nil || len(tests) == 0 {
		t.Fatalf("no Rego tests: %v", err)
	}
	parseRego(t, modules, tests...)
	data, err := strictjson.Decode("data.json", b.file(t, DataPath+"/data.json"), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	store := inmem.NewFromObject(map[string]any{"contractcheck": map[string]any{"contracts": data}})
	runner := tester.NewRunner().SetStore(store).SetDefaultRegoVersion(ast.RegoV1).RaiseBuiltinErrors(true).
		SetCompiler(ast.NewCompiler().WithCapabilities(ast.CapabilitiesForThisVersion()).WithDefaultRegoVersion(ast.RegoV1).WithStrict(true))
	ch, err := runner.SetModules(modules).RunTests(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r := range ch {
		n++
		if !r.Pass() {
			msg := "failed"
			if r.Error != nil {
				msg = r.Error.Error()
			} else if r.FailedAt != nil {
				msg = "failed at " + r.FailedAt.Location.String() + ": " + r.FailedAt.String()
			}
			t.Errorf("%s.%s: %s", r.Package, r.Name, msg)
		}
	}
	if n < 30 {
		t.Errorf("%d Rego tests ran, want the bundle's whole suite", n)
	}
}

// TestRegoFormatted keeps the bundle's Rego, its tests and the generated dispatch as opa fmt
// writes them, and compiles the bundle's own Rego inside the policies' sandbox (no network,
// clock, randomness or environment).
func TestRegoFormatted(t *testing.T) {
	files, err := fs.Glob(Rego, "rego/*.rego")
	if err != nil {
		t.Fatal(err)
	}
	b := builtin(t)
	sources := map[string][]byte{"contractcheck/bundle/tasks.rego": b.file(t, "contractcheck/bundle/tasks.rego")}
	for _, name := range files {
		if sources[name], err = Rego.ReadFile(name); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range sources {
		got, err := format.SourceWithOpts(name, src, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, src) {
			t.Errorf("%s is not formatted as opa fmt writes it", name)
		}
	}
	modules := b.modules(t)
	c := ast.NewCompiler().WithCapabilities(bundleCapabilities()).WithDefaultRegoVersion(ast.RegoV1)
	c.Compile(modules)
	if c.Failed() {
		t.Errorf("the bundle does not compile in the policies' sandbox with json.match_schema: %v", c.Errors)
	}
}

// bundleCapabilities are the policies' sandbox and json.match_schema, the one stock builtin the
// bundle adds (rego/accept.rego): it validates against the schemas in the bundle's data, whose
// references are local (internal/bundle: checkProviderSchema), so it reaches nothing outside.
func bundleCapabilities() *ast.Capabilities {
	caps := policy.Capabilities()
	out := *caps
	out.Builtins = append([]*ast.Builtin{ast.JSONMatchSchema}, caps.Builtins...)
	return &out
}

// TestBundleLoads reads the tarball with OPA's own bundle reader: the manifest's revision and
// roots, the data and the modules are where OPA looks for them; the same inputs give the same
// bytes.
func TestBundleLoads(t *testing.T) {
	b := builtin(t)
	var one, two bytes.Buffer
	if err := b.WriteTarGz(&one); err != nil {
		t.Fatal(err)
	}
	again, err := Build(context.Background(), inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.WriteTarGz(&two); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one.Bytes(), two.Bytes()) {
		t.Error("two builds of the same contract set differ")
	}
	ob, err := opabundle.NewReader(bytes.NewReader(one.Bytes())).WithRegoVersion(ast.RegoV1).Read()
	if err != nil {
		t.Fatalf("OPA cannot read the bundle: %v", err)
	}
	contracts, _ := ob.Data["contractcheck"].(map[string]any)["contracts"].(map[string]any)
	sources, _ := contracts["sources"].(map[string]any)
	model, _ := contracts["model"].(map[string]any)
	fixtures, _ := model["fixtures"].(map[string]any)
	checks := []struct {
		name string
		ok   bool
	}{
		{"revision", ob.Manifest.Revision == b.Revision && len(b.Revision) == 32},
		{"roots", ob.Manifest.Roots != nil && reflect.DeepEqual(*ob.Manifest.Roots, []string{"contractcheck"})},
		{"profile in the data", contracts["profile"] == "strict"},
		{"every catalogued source's view", len(sources) == len(fixtures) && len(sources) >= 40 && sources["C02"] != nil && sources["R06"] != nil},
		{"the provider schemas the model names", hasProviders(contracts)},
		{"the task policies, rewritten", hasModule(ob, "/policies/0/tasks/t2.rego", "data.contractcheck.bundle.json.text(t)")},
		{"the generated dispatch", hasModule(ob, "/contractcheck/bundle/tasks.rego", `verdict("T5", x)`)},
		{"no Rego test in the bundle", !hasModule(ob, "/contractcheck/bundle/diff_test.rego", "")},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Error("does not hold")
			}
		})
	}
}

// hasProviders holds when the bundle's data holds the pinned provider request schemas, as pinned.
func hasProviders(contracts map[string]any) bool {
	providers, _ := contracts["providers"].(map[string]any)
	if len(providers) == 0 {
		return false
	}
	for name, doc := range providers {
		raw, err := contractcheck.Builtin.ReadFile("schemas/" + name)
		if err != nil {
			return false
		}
		pinned, err := strictjson.Decode(name, raw, strictjson.DefaultLimits)
		if err != nil || canonical(pinned, false) != canonical(normalize(doc), false) {
			return false
		}
	}
	return providers["providers/openai-responses-input-image.schema.json"] != nil
}

func hasModule(b opabundle.Bundle, path, text string) bool {
	for _, m := range b.Modules {
		if m.Path == path && strings.Contains(string(m.Raw), text) {
			return true
		}
	}
	return false
}

// TestRewriteBuiltins rewrites every call of the checker's custom builtins, wherever it is.
func TestRewriteBuiltins(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"function head", "package p\n\nf(a, b) := contractcheck.diff(a, b, \"\")\n", `data.contractcheck.bundle.diff.between(a, b, "")`},
		{"assignment", "package p\n\nx if {\n\ty := contractcheck.json_text(input.s)\n\ty == 1\n}\n", "y := data.contractcheck.bundle.json.text(input.s)"},
		{"comprehension", "package p\n\nxs := [x | some t in input.ts; x := contractcheck.json_text(t)]\n", "x := data.contractcheck.bundle.json.text(t)"},
		{"bare call", "package p\n\nok if {\n\tcontractcheck.json_text(input.s)\n}\n", "data.contractcheck.bundle.json.text(input.s)"},
		{"other calls kept", "package p\n\nn := count(input.a)\n", "n := count(input.a)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ast.ParseModuleWithOpts("p.rego", tc.src, ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				t.Fatal(err)
			}
			RewriteBuiltins(m)
			out, err := format.AstWithOpts(m, format.Opts{RegoVersion: ast.RegoV1})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "contractcheck.json_text") || strings.Contains(string(out), "contractcheck.diff(") {
				t.Errorf("rewritten:\n%s\nwant %q", out, tc.want)
			}
		})
	}
}

// TestBuildRefuses checks what the bundle cannot carry: a policy layer declaring a package of the
// bundle's own, and a binding whose pointer is deeper than the Rego projector reads.
func TestBuildRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) string {
		full := filepath.Join(dir, p)
		testkit.WriteFile(t, full, s)
		return filepath.Dir(full)
	}
	reservedLayer := write("reserved/x.rego", "package contractcheck.bundle.mine\n\nx := 1\n")
	_, err := Build(context.Background(), inputs.Options{Policies: []string{reservedLayer}})
	if err == nil || !strings.Contains(err.Error(), "reserved") || !strings.Contains(err.Error(), "x.rego") {
		t.Errorf("a reserved package: %v", err)
	}
	m := &contract.Model{Lanes: map[string]contract.Lane{"deep": {Stages: map[string]contract.StageDef{"D1": {
		Compartments: map[string]contract.Compartment{"structured": {Structured: &contract.Field{Path: strings.Repeat("/a", 17)}}}}}}}}
	if err := checkPointers(m); err == nil || !strings.Contains(err.Error(), "lanes.deep.stages.D1.compartments.structured.structured.path") {
		t.Errorf("a deep pointer: %v", err)
	}
	m.Lanes["deep"].Stages["D1"].Compartments["structured"].Structured.Path = strings.Repeat("/a", 16)
	if err := checkPointers(m); err != nil {
		t.Errorf("16 tokens: %v", err)
	}
	inner := strings.Repeat("/b", 17)
	m.Lanes["deep"].Stages["D1"].Compartments["structured"].Structured.Inner = &inner
	if err := checkPointers(m); err == nil || !strings.Contains(err.Error(), "compartments.structured.structured.inner") {
		t.Errorf("a deep inner pointer: %v", err)
	}
}

// TestProjectorAgrees holds the Rego projector (rego/project.rego) to the Go one
// (internal/project). Both exist because check projects every binding of a run in process, in Go,
// while a stock OPA judging one carrier where results flow can run only Rego. Neither holds a
// binding of its own: the compartment bindings are compiled from the lanes' CUE into the contract
// model, which check reads and the bundle carries as data (data.contractcheck.contracts). The
// engines that execute them are kept equal by this test: every catalogued source through the
// canonical binding, and every captured built-in record through every compartment its lane stage
// binds, give the same canonical view, its delivery and rejected lists included (so provider
// acceptance, rego/accept.rego, is compared on every carried item whose mapping names a schema).
func TestProjectorAgrees(t *testing.T) {
	b := builtin(t)
	ctx := context.Background()
	in, err := instrument.Load(ctx, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	modules := b.modules(t)
	compiler := ast.NewCompiler().WithCapabilities(ast.CapabilitiesForThisVersion()).WithDefaultRegoVersion(ast.RegoV1)
	if compiler.Compile(modules); compiler.Failed() {
		t.Fatal(compiler.Errors)
	}
	data, err := strictjson.Decode("data.json", b.file(t, DataPath+"/data.json"), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	store := inmem.NewFromObject(map[string]any{"contractcheck": map[string]any{"contracts": data}})
	pq, err := rego.New(rego.Compiler(compiler), rego.Store(store), rego.Query("v := data.contractcheck.bundle.project.view(input.binding, input.carrier)")).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Each binding is passed as the bundle carries it (keyed): without doc and basis, plain fields
	// keyed; project_test.rego covers bindings without keys.
	view := func(binding contract.Compartment, carrier any) (string, error) {
		c, err := keyed(binding)
		if err != nil {
			return "", err
		}
		input, err := ast.InterfaceToValue(map[string]any{"binding": c, "carrier": carrier})
		if err != nil {
			return "", err
		}
		rs, err := pq.Eval(ctx, rego.EvalParsedInput(input))
		if err != nil || len(rs) != 1 {
			return "", err
		}
		out, err := strictjson.Marshal(normalize(rs[0].Bindings["v"]))
		return string(out), err
	}
	canon := func(v any) string {
		out, _ := strictjson.Marshal(v)
		return string(out)
	}
	type job struct {
		what, lane, stage, comp string
		carrier                 any
		binding                 contract.Compartment
	}
	var jobs []job
	for _, id := range contract.SortedKeys(in.Sources) {
		jobs = append(jobs, job{what: "source " + id, carrier: in.Sources[id].Doc, binding: in.Model.Revisions[in.Model.Fixtures[id].Revision].Source})
	}
	seen := map[string]bool{} // repetitions mostly repeat a carrier: each is projected once
	for _, r := range captured(t, in) {
		key := r.Lane + " " + r.Stage + " " + canon(r.Carrier)
		if seen[key] {
			continue
		}
		seen[key] = true
		for _, comp := range contract.SortedKeys(in.Model.Lanes[r.Lane].Stages[r.Stage].Compartments) {
			jobs = append(jobs, job{what: r.File + ":" + strconv.Itoa(r.Line), lane: r.Lane, stage: r.Stage, comp: comp, carrier: r.Carrier,
				binding: in.Model.Lanes[r.Lane].Stages[r.Stage].Compartments[comp]})
		}
	}
	var bad []string
	for i, r := range judgeAll(jobs, func(j job) (string, string, error) {
		var want string
		if j.lane == "" {
			want = canon(in.SourceView(strings.TrimPrefix(j.what, "source ")))
		} else {
			want = canon(in.View(j.lane, j.stage, j.comp, j.carrier))
		}
		got, err := view(j.binding, j.carrier)
		return got, want, err
	}) {
		if r.err != nil || r.bundle != r.check {
			bad = append(bad, jobs[i].what+" "+jobs[i].comp+": Rego "+r.bundle+"\n\tGo   "+r.check)
		}
	}
	t.Logf("%d views compared", len(jobs))
	if len(bad) > 0 {
		t.Fatalf("%d of %d views differ:\n%s", len(bad), len(jobs), strings.Join(bad[:min(10, len(bad))], "\n"))
	}
}
