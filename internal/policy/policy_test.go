package policy

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractcheck/contractcheck/internal/layer"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
	"golang.org/x/sync/errgroup"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// moduleFS is the module root, so that the real policies/ directory is used.
var moduleFS = os.DirFS("../..")

func loadReal(t testing.TB) *Engine {
	t.Helper()
	e, err := Load([]layer.Dir{layer.FS(moduleFS, "policies", "policies")}, LoadOptions{Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// policyLayer is files (a path below the layer → Rego source) as the policy layer name: its
// messages name a file name/path.
func policyLayer(name string, files map[string]string) []layer.Dir {
	fsys := fstest.MapFS{}
	for path, src := range files {
		fsys["p/"+path] = &fstest.MapFile{Data: []byte(src)}
	}
	return []layer.Dir{layer.FS(fsys, "p", name)}
}

// loadMine loads files as the policy layer "mine" (policyLayer) with opts; t fails at once when
// Load fails.
func loadMine(t testing.TB, files map[string]string, opts LoadOptions) *Engine {
	t.Helper()
	e, err := Load(policyLayer("mine", files), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// prepare loads files as the policy layer "mine" (loadMine) and prepares package pkg; t fails at
// once when either fails.
func prepare(t testing.TB, files map[string]string, pkg string) *Query {
	t.Helper()
	q, err := loadMine(t, files, LoadOptions{}).Prepare(context.Background(), pkg)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestRegoUnitTests(t *testing.T) {
	e := loadReal(t)
	run, err := e.RunTests(context.Background(), TestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	results := run.Results
	if len(results) < 50 {
		t.Fatalf("only %d Rego tests found", len(results))
	}
	for _, r := range results {
		t.Run(r.Package+"/"+r.Name, func(t *testing.T) {
			if !r.Pass {
				t.Errorf("%s: %s", r.Location, r.Fail)
			}
			if !strings.HasPrefix(r.Location, "policies") || strings.Count(r.Location, ":") != 2 {
				t.Errorf("location %q is not policies/file:row:col", r.Location)
			}
		})
	}
}

// Every package has a _test.rego beside it.
func TestEveryPackageHasTests(t *testing.T) {
	e := loadReal(t)
	pkgs := map[string]bool{}
	for _, p := range e.Packages() {
		pkgs[p] = true
	}
	for p := range pkgs {
		if strings.HasSuffix(p, "_test") {
			continue
		}
		if !pkgs[p+"_test"] {
			t.Errorf("package %s has no %s_test", p, p)
		}
	}
}

func TestPoliciesFormatted(t *testing.T) {
	var files []string
	err := fs.WalkDir(moduleFS, "policies", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".rego") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no policies")
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			src, err := fs.ReadFile(moduleFS, name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := format.SourceWithOpts(name, src, format.Opts{RegoVersion: ast.RegoV1})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(src) {
				t.Errorf("%s is not opa fmt-clean; formatted:\n%s", name, got)
			}
		})
	}
	// The check itself notices unformatted code.
	bad := []byte("package x\nr := 1 if {   true }\n")
	if got, _ := format.SourceWithOpts("x.rego", bad, format.Opts{RegoVersion: ast.RegoV1}); string(got) == string(bad) {
		t.Error("format.Source left unformatted code unchanged")
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error text
	}{
		{
			name: "syntax error",
			src:  "package bad\n\nr := 1 if {\n\tx := \n}\n",
			want: []string{"policies/bad.rego:5:1:", "rego_parse_error"},
		},
		{
			name: "http.send is not in the sandbox",
			src:  "package bad\n\nr := x if {\n\tx := http.send({\"method\": \"get\", \"url\": \"https://example.com\"})\n}\n",
			want: []string{"policies/bad.rego:4:7:", "http.send"},
		},
		{
			name: "time.now_ns is not in the sandbox",
			src:  "package bad\n\nr := time.now_ns()\n",
			want: []string{"policies/bad.rego:3:6:", "time.now_ns"},
		},
		{
			name: "rand.intn is not in the sandbox",
			src:  "package bad\n\nr := rand.intn(\"x\", 10)\n",
			want: []string{"policies/bad.rego:3:6:", "rand.intn"},
		},
		{
			name: "opa.runtime is not in the sandbox",
			src:  "package bad\n\nr := opa.runtime()\n",
			want: []string{"policies/bad.rego:3:6:", "opa.runtime"},
		},
		{
			name: "net.lookup_ip_addr is not in the sandbox",
			src:  "package bad\n\nr := net.lookup_ip_addr(\"example.com\")\n",
			want: []string{"policies/bad.rego:3:6:", "net.lookup_ip_addr"},
		},
		{
			name: "compile error",
			src:  "package bad\n\nr := y\n",
			want: []string{"policies/bad.rego:3:6:", "rego_", "y"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(policyLayer("policies", map[string]string{"bad.rego": tt.src}), LoadOptions{Tests: true})
			if err == nil {
				t.Fatal("Load succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var le *LoadError
			var aerrs ast.Errors
			if !errors.As(err, &le) || !errors.As(err, &aerrs) || len(aerrs) == 0 {
				t.Errorf("error %T does not wrap ast.Errors", err)
			}
		})
	}
}

func TestPrepareErrors(t *testing.T) {
	e := loadReal(t)
	for _, pkg := range []string{"contractcheck.tasks.t9", "contractcheck.lib.views", "not a package", ""} {
		t.Run(pkg, func(t *testing.T) {
			if _, err := e.Prepare(context.Background(), pkg); err == nil {
				t.Errorf("Prepare(%q) succeeded", pkg)
			}
		})
	}
	// A package without readout gets an empty readout.
	q := prepare(t, map[string]string{"c.rego": "package custom\n\ndiagnostics contains {\"atom\": \"x\"} if input.bad\n"}, "custom")
	v, err := q.Eval(context.Background(), mustInput(t, `{"bad": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Diagnostics) != 1 || len(v.Readout) != 0 {
		t.Errorf("got %+v", v)
	}
}

func mustInput(t testing.TB, s string) ast.Value {
	t.Helper()
	tree, err := strictjson.Decode("input.json", []byte(s), strictjson.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Input(tree)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

const contractAll = `{
  "atoms": ["block.count", "block.kind", "block.primary", "block.text", "block.payload", "block.mimeType",
            "block.uri", "block.name", "block.title", "block.description", "block.size", "block.icons",
            "block.annotations", "block._meta", "block.resourceMeta", "structured.state", "structured.type",
            "structured.value", "structured.relation", "error.decision", "result._meta"],
  "optional": ["block.title", "block.description", "block.size", "block.icons", "block.annotations",
               "block._meta", "block.resourceMeta", "result._meta"],
  "nullPolicy": "%NP%",
  "metaPolicy": %META%
}`

func input(t testing.TB, np, meta, source, observed string) ast.Value {
	t.Helper()
	if meta == "" {
		meta = `{"mode": "preserve"}`
	}
	c := strings.NewReplacer("%NP%", np, "%META%", meta).Replace(contractAll)
	return mustInput(t, `{"task": "T", "fixture": {"id": "C00", "family": "test"}, "contract": `+c+
		`, "source": `+source+`, "observed": `+observed+`}`)
}

func TestEvalTasks(t *testing.T) {
	e := loadReal(t)
	ctx := context.Background()
	const (
		c05     = `{"structured": {"status": "ok", "n": 12345678901234567891}, "content": [{"kind": "text", "text": "{\"status\": \"ok\", \"n\": 12345678901234567891}"}]}`
		c05Text = `{"content": [{"kind": "text", "text": "{\"status\": \"ok\", \"n\": 12345678901234567891}"}]}`
		c05Alt  = `{"structured": {"status": "fine", "n": 12345678901234567891}, "content": [{"kind": "text", "text": "{\"status\": \"ok\", \"n\": 12345678901234567891}"}]}`
		rich    = `{"content": [{"kind": "text", "text": "a"}, {"kind": "resource_link", "uri": "file:///x", "name": "x", "annotations": {"priority": 0.5}}, {"kind": "image", "payload": "AAEC", "mimeType": "image/png"}]}`
		richAlt = `{"content": [{"kind": "text", "text": "a"}, {"kind": "resource_link", "name": "x", "annotations": {"priority": 0.7}}, {"kind": "image", "payload": "AAEC", "mimeType": "image/png"}]}`
		meta    = `{"meta": {"com.example/private": "k", "trace": 1}}`
	)
	tests := []struct {
		name      string
		pkg, np   string
		meta      string
		src, obs  string
		want      string // JSON array of diagnostics
		wantRead  string // JSON readout, "" to skip
		wantError bool
	}{
		{name: "T1 pass", pkg: "t1", np: "strict", src: rich, obs: rich, want: `[]`, wantRead: `{"count": 3, "kinds": ["text", "resource_link", "image"]}`},
		{name: "T1 unmet", pkg: "t1", np: "strict", src: rich, obs: richAlt, want: `[{"atom": "block.primary", "block": 1, "kind": "altered", "path": "/1", "expected": {"uri": "file:///x"}, "observed": {}}]`},
		{name: "T2 pass", pkg: "t2", np: "strict", src: c05, obs: c05, want: `[]`, wantRead: `{"state": "populated", "type": "object", "relation": "equivalent"}`},
		{name: "T2 unmet text only", pkg: "t2", np: "optional-null", src: c05, obs: c05Text, want: `[
			{"atom": "structured.relation", "path": "", "kind": "altered", "expected": "equivalent", "observed": "text_only"},
			{"atom": "structured.state", "path": "", "kind": "missing", "expected": "populated", "observed": "missing"}]`,
			wantRead: `{"state": "missing", "relation": "text_only"}`},
		{name: "T2 unmet value", pkg: "t2", np: "strict", src: c05, obs: c05Alt, want: `[
			{"atom": "structured.relation", "path": "", "kind": "altered", "expected": "equivalent", "observed": "conflicting"},
			{"atom": "structured.value", "path": "/status", "kind": "altered", "expected": "ok", "observed": "fine"}]`},
		{name: "T2 big numbers exact", pkg: "t2", np: "strict", src: `{"structured": 12345678901234567891}`, obs: `{"structured": 12345678901234567000}`,
			want: `[{"atom": "structured.value", "path": "", "kind": "altered", "expected": 12345678901234567891, "observed": 12345678901234567000}]`},
		{name: "T2 decimal spellings equal", pkg: "t2", np: "strict", src: `{"structured": [1e2, 1.0, -0]}`, obs: `{"structured": [100, 1, 0]}`, want: `[]`},
		{name: "T2 float64 shortcut defeated", pkg: "t2", np: "strict", src: `{"structured": [0.10]}`, obs: `{"structured": [0.10000000000000000000010]}`,
			want: `[{"atom": "structured.value", "path": "/0", "kind": "altered", "expected": 0.10, "observed": 0.1000000000000000000001}]`},
		{name: "T2 float64 shortcut in JSON text", pkg: "t2", np: "strict",
			src:  `{"structured": {"x": 0.10}, "content": [{"kind": "text", "text": "{\"x\": 0.10}"}]}`,
			obs:  `{"structured": {"x": 0.10}, "content": [{"kind": "text", "text": "{\"x\": 0.10000000000000000000010}"}]}`,
			want: `[{"atom": "structured.relation", "path": "", "kind": "altered", "expected": "equivalent", "observed": "conflicting"}]`},
		{name: "T3 pass", pkg: "t3", np: "strict", src: `{"isError": false}`, obs: `{"isError": false}`, want: `[]`, wantRead: `{"decision": "continue"}`},
		{name: "T3 unmet", pkg: "t3", np: "optional-null", src: `{"isError": false}`, obs: `{"isError": null}`,
			want: `[{"atom": "error.decision", "path": "/isError", "kind": "altered", "expected": "continue", "observed": "unknown"}]`, wantRead: `{"decision": "unknown"}`},
		{name: "T4 pass", pkg: "t4", np: "strict", src: rich, obs: rich, want: `[]`},
		{name: "T4 unmet", pkg: "t4", np: "strict", src: rich, obs: richAlt, want: `[
			{"atom": "block.annotations", "block": 1, "path": "/1/annotations/priority", "kind": "altered", "expected": 0.5, "observed": 0.7},
			{"atom": "block.uri", "block": 1, "path": "/1/uri", "kind": "missing", "expected": "file:///x"}]`},
		{name: "T4 optional-null pass", pkg: "t4", np: "optional-null", src: `{"content": [{"kind": "text", "text": "a"}]}`, obs: `{"content": [{"kind": "text", "text": "a", "_meta": null, "annotations": null}]}`, want: `[]`},
		{name: "T4 strict unmet null", pkg: "t4", np: "strict", src: `{"content": [{"kind": "text", "text": "a"}]}`, obs: `{"content": [{"kind": "text", "text": "a", "_meta": null}]}`,
			want: `[{"atom": "block._meta", "block": 0, "path": "/0/_meta", "kind": "added", "observed": null}]`},
		{name: "T5 preserve pass", pkg: "t5", np: "strict", src: meta, obs: meta, want: `[]`},
		{name: "T5 preserve unmet", pkg: "t5", np: "strict", src: meta, obs: `{}`, want: `[{"atom": "result._meta", "path": "", "kind": "missing", "expected": {"com.example/private": "k", "trace": 1}}]`},
		{name: "T5 withhold pass", pkg: "t5", np: "strict", meta: `{"mode": "withhold", "keys": ["com.example/private"]}`, src: meta, obs: `{"meta": {"trace": 1}}`, want: `[]`},
		{name: "T5 withhold unmet", pkg: "t5", np: "strict", meta: `{"mode": "withhold", "keys": ["com.example/private"]}`, src: meta, obs: meta,
			want: `[{"atom": "result._meta", "path": "/com.example~1private", "kind": "added", "observed": "k"}]`},
	}
	queries := map[string]*Query{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := queries[tt.pkg]
			if q == nil {
				var err error
				if q, err = e.Prepare(ctx, "contractcheck.tasks."+tt.pkg); err != nil {
					t.Fatal(err)
				}
				queries[tt.pkg] = q
			}
			v, err := q.Eval(ctx, input(t, tt.np, tt.meta, tt.src, tt.obs))
			if tt.wantError {
				if err == nil {
					t.Fatalf("no error; got %+v", v)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := strictjson.Decode("want", []byte(tt.want), strictjson.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]any, len(v.Diagnostics))
			for i, d := range v.Diagnostics {
				got[i] = d
			}
			if !sameSet(got, want.([]any)) {
				b, _ := strictjson.Marshal(got)
				t.Errorf("diagnostics\n got %s\nwant %s", b, tt.want)
			}
			if v.Pass() != (len(got) == 0) {
				t.Error("Pass() disagrees with diagnostics")
			}
			if tt.wantRead != "" {
				wr, _ := strictjson.Decode("want", []byte(tt.wantRead), strictjson.DefaultLimits)
				if !strictjson.Equal(map[string]any(v.Readout), wr) {
					b, _ := strictjson.Marshal(v.Readout)
					t.Errorf("readout got %s want %s", b, tt.wantRead)
				}
			}
		})
	}
}

// sameSet compares two diagnostic lists as sets, with exact number spellings
// (the verdict must echo the input's digits).
func sameSet(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	key := func(v any) string { b, _ := strictjson.Marshal(v); return string(b) }
	m := map[string]int{}
	for _, g := range got {
		m[key(g)]++
	}
	for _, w := range want {
		m[key(w)]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// OPA panics comparing 1e9999999 with 2 (big.Rat refuses the exponent);
// Eval turns the panic into an error instead of crashing the checker.
func TestEvalRecoversOPAPanic(t *testing.T) {
	e := loadReal(t)
	q, err := e.Prepare(context.Background(), "contractcheck.tasks.t2")
	if err != nil {
		t.Fatal(err)
	}
	in := input(t, "strict", "", `{"structured": 1}`, `{"structured": 2}`).(ast.Object)
	src := ast.NewObject(ast.Item(ast.StringTerm("structured"), ast.NewTerm(ast.Number("1e9999999"))))
	in.Insert(ast.StringTerm("source"), ast.NewTerm(src))
	if v, err := q.Eval(context.Background(), in); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("got %+v, %v; want an OPA panic error", v, err)
	}
}

func TestVerdictNumbersAreJSONNumbers(t *testing.T) {
	e := loadReal(t)
	q, err := e.Prepare(context.Background(), "contractcheck.tasks.t4")
	if err != nil {
		t.Fatal(err)
	}
	v, err := q.Eval(context.Background(), input(t, "strict", "", `{"content": [{"kind": "text", "size": 12345678901234567891}]}`, `{"content": [{"kind": "text", "size": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Diagnostics) != 1 {
		t.Fatalf("got %+v", v.Diagnostics)
	}
	d := v.Diagnostics[0]
	if d["expected"] != json.Number("12345678901234567891") || d["block"] != json.Number("0") {
		t.Errorf("numbers not verbatim json.Number: %#v", d)
	}
}

// Verdicts are deterministic and Eval is safe for concurrent use.
func TestEvalConcurrent(t *testing.T) {
	e := loadReal(t)
	q, err := e.Prepare(context.Background(), "contractcheck.tasks.t4")
	if err != nil {
		t.Fatal(err)
	}
	in := input(t, "strict", "", benchRich, benchRichAlt)
	first, err := q.Eval(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var g errgroup.Group
	for range 8 {
		g.Go(func() error {
			for range 50 {
				v, err := q.Eval(context.Background(), in)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(v, first) {
					return errors.New("verdict differs between evaluations")
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Error(err)
	}
}

func TestJSONTextBuiltin(t *testing.T) {
	q := prepare(t, map[string]string{"j.rego": `package j

diagnostics contains {"s": s, "v": v} if {
	some s in input
	v := contractcheck.json_text(s)
}
`}, "j")
	in := []string{` {"a": 1.0} `, `12345678901234567891`, `"x"`, `null`, `prose {"a":1}`, `{"a":1}{"a":1}`, `{"a":1,"a":2}`, ``, "\"\xff\""}
	v, err := q.Eval(context.Background(), ast.NewArray(func() []*ast.Term {
		ts := make([]*ast.Term, len(in))
		for i, s := range in {
			ts[i] = ast.StringTerm(s)
		}
		return ts
	}()...))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range v.Diagnostics {
		b, _ := strictjson.Marshal(d["v"])
		got[d["s"].(string)] = string(b)
	}
	want := map[string]string{` {"a": 1.0} `: `{"a":1.0}`, `12345678901234567891`: `12345678901234567891`, `"x"`: `"x"`, `null`: `null`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestRespell(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"integer kept", "100", "100"},
		{"short fraction kept", "1.50", "1.50"},
		{"integral fraction kept", "1.000000000000000000000", "1.000000000000000000000"},
		{"no trailing zero kept", "0.1000000000000000000001", "0.1000000000000000000001"},
		{"long fraction trimmed", "0.10000000000000000000010", "0.1000000000000000000001"},
		{"negative long fraction", "-0.10000000000000000000010", "-0.1000000000000000000001"},
		{"exponent without dot", "1.50e10", "15e9"},
		{"exponent upper case", "-1.00000000000000000000100E+20", "-1000000000000000000001e-1"},
		{"exponent not ending in zero kept", "-1.0000000000000000000010E+2", "-1.0000000000000000000010E+2"},
		{"exponent kept without dot", "15e10", "15e10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := respell(tt.in)
			if got != tt.want {
				t.Errorf("respell(%s) = %s, want %s", tt.in, got, tt.want)
			}
			if !strictjson.Equal(json.Number(got), json.Number(tt.in)) {
				t.Errorf("respell(%s) = %s denotes another decimal", tt.in, got)
			}
		})
	}
}

const (
	benchStructured = `{"structured": {"status": "ok", "temperature": 21.5, "count": 12345678901234567891, "tags": ["a", "b", "c"],
		"nested": {"flag": true, "none": null, "list": [1, 2, {"k": "v"}]}},
		"content": [{"kind": "text", "text": "{\"status\": \"ok\", \"temperature\": 21.5, \"count\": 12345678901234567891, \"tags\": [\"a\", \"b\", \"c\"], \"nested\": {\"flag\": true, \"none\": null, \"list\": [1, 2, {\"k\": \"v\"}]}}"}]}`
	benchRich = `{"content": [
		{"kind": "text", "text": "Here are the files.", "annotations": {"audience": ["user"], "priority": 0.5}},
		{"kind": "resource", "uri": "file:///notes.txt", "mimeType": "text/plain", "text": "notes", "resourceMeta": {"etag": "1"}},
		{"kind": "image", "payload": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "mimeType": "image/png"},
		{"kind": "resource_link", "uri": "https://example.com/r", "name": "r", "title": "R", "description": "a link", "size": 1024,
		 "icons": [{"src": "https://example.com/i.png", "mimeType": "image/png", "sizes": ["48x48"]}],
		 "annotations": {"audience": ["user", "assistant"], "priority": 0.9, "lastModified": "2025-01-01T00:00:00Z"},
		 "_meta": {"com.example/trace": "abc"}}]}`
	benchRichAlt = `{"content": [
		{"kind": "text", "text": "Here are the files.", "annotations": {"audience": ["user"], "priority": 0.5}},
		{"kind": "resource", "uri": "file:///notes.txt", "mimeType": "text/plain", "text": "notes"},
		{"kind": "image", "payload": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "mimeType": "image/png"},
		{"kind": "resource_link", "uri": "https://example.com/r", "name": "r", "title": "R", "description": "a link", "size": 1024,
		 "annotations": {"audience": ["user"], "priority": 0.9}}]}`
)

// benchTextOnly is benchStructured with the structured slot dropped: the value
// survives only as JSON text.
const benchTextOnly = `{"content": [{"kind": "text", "text": "{\"status\": \"ok\", \"temperature\": 21.5, \"count\": 12345678901234567891, \"tags\": [\"a\", \"b\", \"c\"], \"nested\": {\"flag\": true, \"none\": null, \"list\": [1, 2, {\"k\": \"v\"}]}}"}]}`

// benchMeta carries a result-level _meta.
const benchMeta = `{"isError": false, "meta": {"com.example/private": "k", "trace": {"id": "abc", "spans": [1, 2, 3]}}}`

func BenchmarkEval(b *testing.B) {
	e := loadReal(b)
	ctx := context.Background()
	cases := []struct{ name, pkg, src, obs, np, meta string }{
		{"T2/pass", "contractcheck.tasks.t2", benchStructured, benchStructured, "", ""},
		{"T2/unmet", "contractcheck.tasks.t2", benchStructured, `{"structured": {"status": "fine"}}`, "", ""},
		{"T4/pass", "contractcheck.tasks.t4", benchRich, benchRich, "", ""},
		{"T4/unmet", "contractcheck.tasks.t4", benchRich, benchRichAlt, "", ""},
		{"T1/pass", "contractcheck.tasks.t1", benchRich, benchRich, "", ""},
		{"T1/unmet", "contractcheck.tasks.t1", benchRich, benchRichAlt, "", ""},
		{"T2/text-only", "contractcheck.tasks.t2", benchStructured, benchTextOnly, "optional-null", ""},
		{"T3/pass", "contractcheck.tasks.t3", `{"isError": false}`, `{"isError": false}`, "", ""},
		{"T3/unmet", "contractcheck.tasks.t3", `{"isError": false}`, `{"raised": {"message": "boom"}}`, "", ""},
		{"T4/pass-optional-null", "contractcheck.tasks.t4", benchRich, benchRich, "optional-null", ""},
		{"T4/unmet-optional-null", "contractcheck.tasks.t4", benchRich, benchRichAlt, "optional-null", ""},
		{"T5/preserve-pass", "contractcheck.tasks.t5", benchMeta, benchMeta, "", ""},
		{"T5/withhold-unmet", "contractcheck.tasks.t5", benchMeta, benchMeta, "", `{"mode": "withhold", "keys": ["com.example/private"]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			q, err := e.Prepare(ctx, c.pkg)
			if err != nil {
				b.Fatal(err)
			}
			np := c.np
			if np == "" {
				np = "strict"
			}
			in := input(b, np, c.meta, c.src, c.obs)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := q.Eval(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
