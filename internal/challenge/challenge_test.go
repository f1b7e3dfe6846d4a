package challenge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	contractcheck "github.com/contractcheck/contractcheck"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/mutate"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/schema"
)

func copyBuiltin(t *testing.T, name string) string {
	t.Helper()
	sub, err := fs.Sub(contractcheck.Builtin, name)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.CopyFS(dir, sub); err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(t *testing.T, opts Options) *Report {
	t.Helper()
	r, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The built-in contract set detects every fault and accepts every control of both shipped suites,
// and the suites were written independently: no shared case id, source file or fixture.
func TestBuiltinSuites(t *testing.T) {
	fixtures := map[string]map[string]bool{}
	ops := map[string]bool{}
	for _, name := range []string{"alpha", "beta"} {
		r := run(t, Options{Suite: name})
		for _, c := range r.Misclassified() {
			t.Errorf("%s: %s misclassified: oracle %s, tasks %+v", name, c.ID, c.Oracle, c.Tasks)
		}
		fixtures[name] = map[string]bool{}
		faults, controls := 0, 0
		for _, c := range r.Cases {
			fixtures[name][c.Fixture+"/"+c.SourceFile] = true
			ops[c.Operator] = true
			if c.Kind == mutate.Fault {
				faults++
			} else {
				controls++
			}
		}
		if faults == 0 || controls == 0 {
			t.Errorf("%s: %d faults, %d controls", name, faults, controls)
		}
		tl := Tallies(r.Cases)
		if tl["schemaOnly"].Detected != 0 || tl["schemaOnly"].Accepted != controls {
			t.Errorf("%s: the schema-only baseline detects nothing and accepts every control: %+v", name, tl["schemaOnly"])
		}
	}
	for k := range fixtures["alpha"] {
		if fixtures["beta"][k] {
			t.Errorf("source %s is in both suites", k)
		}
	}
	for _, o := range mutate.Operators() {
		if !ops[o.Name] {
			t.Errorf("operator %s is in neither suite", o.Name)
		}
	}
}

// A case the oracle classifies against its expectation is reported misclassified.
func TestMisclassified(t *testing.T) {
	dir := copyBuiltin(t, "fixtures/challenge/alpha")
	p := filepath.Join(dir, "cases", "C12.go-sdk.D1.drop-uri.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Claim the fault is a control: the oracle rejects it, which is now a misclassification.
	s := strings.Replace(string(data), `"kind": "fault"`, `"kind": "control"`, 1)
	s = strings.Replace(s, `"task": "T4"`, `"task": "*"`, 1)
	s = strings.Replace(s, `"outcome": "unmet"`, `"outcome": "pass"`, 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, Options{Suite: dir})
	mis := r.Misclassified()
	if len(mis) != 1 || mis[0].Oracle != Rejected {
		t.Fatalf("misclassified %+v", mis)
	}
	var sb strings.Builder
	if err := r.Write(&sb, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "block.uri missing") {
		t.Errorf("the text report shows no diagnostics for the misclassified case:\n%s", sb.String())
	}
}

// A custom contract set whose T4 lacks block.uri is blind to drop-uri, and the score says so.
func TestCustomContractBlind(t *testing.T) {
	contracts := copyBuiltin(t, "contracts")
	p := filepath.Join(contracts, "tasks.cue")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), `"block.mimeType", "block.uri",`, `"block.mimeType",`, 1)
	if s == string(data) {
		t.Fatal("tasks.cue no longer lists block.uri as the test expects")
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	// A fork of the contracts runs without the built-in layer, beside copies of the rest.
	r := run(t, Options{Suite: "alpha", Options: inputs.Options{NoBuiltin: true, Contracts: []string{contracts},
		Policies: []string{copyBuiltin(t, "policies")}, Fixtures: []string{copyBuiltin(t, "fixtures")}, Schemas: []string{copyBuiltin(t, "schemas")}}})
	verdict := map[string]string{}
	for _, sc := range r.Score() {
		verdict[sc.Operator] = sc.Verdicts["oracle"]
	}
	if verdict["drop-uri"] != "blind" {
		t.Errorf("drop-uri: %s, want blind", verdict["drop-uri"])
	}
	if verdict["alter-mime"] != "detects" {
		t.Errorf("alter-mime: %s, want detects", verdict["alter-mime"])
	}
}

// An invalid case is an input error naming the case file and the JSON pointer.
func TestInvalidCases(t *testing.T) {
	for _, c := range []struct{ name, from, to, want string }{
		{"schema", `"kind": "fault"`, `"kind": "bug"`, "/kind"},
		{"record", `"sourceSha256":"`, `"sourceSha256":"0`, "/sourceSha256"},
		{"source", `"file": "sources/C12.json"`, `"file": "sources/missing.json"`, "/source/file"},
		{"json", `"operator"`, `"operator`, "drop-uri.json:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyBuiltin(t, "fixtures/challenge/alpha")
			p := filepath.Join(dir, "cases", "C12.go-sdk.D1.drop-uri.json")
			data, _ := os.ReadFile(p)
			s := strings.Replace(string(data), c.from, c.to, 1)
			if s == string(data) {
				t.Fatalf("%q not in the case", c.from)
			}
			os.WriteFile(p, []byte(s), 0o644)
			_, err := Run(context.Background(), Options{Suite: dir})
			var ie *result.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an input error", err)
			}
			if !strings.Contains(err.Error(), "drop-uri.json") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q names neither the file nor %s", err, c.want)
			}
		})
	}
	// A source that is not a valid MCP result is refused with its pointer.
	dir := copyBuiltin(t, "fixtures/challenge/alpha")
	os.WriteFile(filepath.Join(dir, "sources", "alpha-yard-procedures.json"), []byte(`{"content":[{"type":"text"}]}`), 0o644)
	_, err := Run(context.Background(), Options{Suite: dir})
	var ve *schema.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "alpha-yard-procedures.json") {
		t.Errorf("got %v, want a schema error on the source", err)
	}
}

func TestUnknownSuite(t *testing.T) {
	if _, err := Run(context.Background(), Options{Suite: "gamma"}); err == nil || !strings.Contains(err.Error(), "alpha, beta") {
		t.Errorf("got %v", err)
	}
}

// The recursive search finds values in any channel: a swap keeps every text somewhere, a dropped
// URI is nowhere, a value moved into JSON text is still found.
func TestRecursiveSearch(t *testing.T) {
	src := map[string]any{"content": []any{map[string]any{"kind": "text", "text": "a"}}, "structured": map[string]any{"k": "v"}}
	c := &mutate.Case{Kind: mutate.Fault, Atoms: []string{"structured.value"}}
	if v, _ := recursiveSearch(c, src, map[string]any{"content": []any{map[string]any{"text": `{"k":"v"}`}}}); v != Missed {
		t.Errorf("a value kept as JSON text: %s, want missed", v)
	}
	c = &mutate.Case{Kind: mutate.Fault, Atoms: []string{"block.text"}, Blocks: []int{0}}
	if v, missing := recursiveSearch(c, src, map[string]any{"content": []any{}}); v != Detected || len(missing) != 1 {
		t.Errorf("a dropped text: %s %v, want detected", v, missing)
	}
}
