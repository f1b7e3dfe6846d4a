package reproduce

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template/parse"
	"unicode"

	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
)

// benign is the string the hostile cases are compared with: the same places, nothing to escape.
const benign = "benign"

// generated is one reproduction written for a test: the case, the options and the files.
type generated struct {
	name string
	o    Options
	r    *Reproduction
}

// TestHostileStrings puts each string of the hostile corpus in every place of a tool result a
// reproduction quotes (a content text, a structuredContent key and value, a result _meta key, the
// fixture's catalogue doc) and in the command line, generates the Go, Python and JS
// reproductions of each loss, and holds every generated artefact to what it must be:
//
//   - the generated source is ASCII only and parses (Go: go/parser and format.Source; Python:
//     ast.parse; JS: node --check), and differs from the benign string's only inside the string
//     literals reproduce writes through its language's escaper (Go: the AST with its string
//     literals blanked is the benign one's; Python: the AST dump with its strings blanked is the
//     benign one's, and running the module with the SDK blocked writes no file; Python and JS:
//     the lines that differ are exactly the TITLE and COMMAND literals, as escape.Python and
//     escape.JavaScript write them);
//   - testdata/checks.json is JSON holding the checks; go.mod, package.json and requirements.txt
//     are the benign ones; the raw servers are reproduce's own files;
//   - README.md and ISSUE.md hold only visible characters, no line a CI runner would read as a
//     command, their fences closed, and the benign one's lines outside the fences.
func TestHostileStrings(t *testing.T) {
	cases := append([]hostile.Case{{Name: benign, S: benign}}, hostile.Cases()...)
	ids := make([]string, len(cases))
	strs := make([]string, len(cases))
	for i, c := range cases {
		ids[i], strs[i] = fmt.Sprintf("H%03d", i), c.S
	}
	ctx := context.Background()
	layer := hostileLayer(t, t.TempDir(), ids, strs)
	in, err := instrument.Load(ctx, layer)
	if err != nil {
		t.Fatal(err)
	}
	// One reproduction per case, binding and task; the benign ones first.
	var all []generated
	baseline := map[string]generated{}
	for i, c := range cases {
		for _, b := range layerBindings {
			for _, task := range layerTasks[b.lane] {
				// Each build reads its fixture's records only.
				only := layer
				only.Observations = []string{filepath.Join(layer.Observations[0], ids[i])}
				o := Options{Options: only, Fixture: ids[i], Lane: b.lane, Version: b.version, Configuration: "default", Stage: b.stage, Task: task,
					Command: "contractcheck reproduce (test) " + c.S}
				r, err := build(ctx, in, o)
				if err != nil {
					t.Fatalf("%s %s %s: %v", c.Name, b.lane, task, err)
				}
				g := generated{name: c.Name, o: o, r: r}
				if c.Name == benign {
					baseline[b.lane+" "+task] = g
				}
				all = append(all, g)
			}
		}
	}
	facts := runtimeFacts{python: pythonFacts(t, all), js: jsFacts(t, all)}
	for _, g := range all {
		base := baseline[g.o.Lane+" "+g.o.Task]
		t.Run(g.name+"/"+g.o.Lane+"/"+g.o.Task, func(t *testing.T) {
			checkGenerated(t, g, base, facts)
		})
	}
}

// runtimeFacts are what python3 and node found of the generated tests, by generated.key; nil
// when the program is missing (those checks are then skipped).
type runtimeFacts struct {
	python map[string]pyFacts
	js     map[string]string // "ok" or node's SyntaxError
}

// checkGenerated holds one reproduction's files to the rules of TestHostileStrings.
func checkGenerated(t *testing.T, g, base generated, facts runtimeFacts) {
	r, o := g.r, g.o
	s := seams[o.Lane]
	// The fixture ids differ (one per case), in comments too: the shape is the rest.
	norm := func(gen generated, name string) []byte {
		return bytes.ReplaceAll(gen.r.Files[name], []byte(gen.o.Fixture), []byte("FIXTURE"))
	}
	ttl := title(o, r.Observed)
	id := strings.ToLower(o.Fixture)
	sameAsBase := func(name string, alsoID bool) {
		got, want := string(r.Files[name]), string(base.r.Files[name])
		if alsoID {
			got = strings.ReplaceAll(got, id, "ID")
			want = strings.ReplaceAll(want, strings.ToLower(base.o.Fixture), "ID")
		}
		if got != want {
			t.Errorf("%s differs from the benign one's:\n%s\nwant\n%s", name, got, want)
		}
	}
	switch s.language {
	case "go":
		src := norm(g, "repro_test.go")
		if !isASCII(src) {
			t.Error("repro_test.go holds a byte that is not ASCII")
		}
		if _, err := format.Source(src); err != nil {
			t.Errorf("repro_test.go does not format: %v", err)
		}
		got, err := goShape(src)
		if err != nil {
			t.Fatalf("repro_test.go does not parse: %v", err)
		}
		want, ok := baseShapes[base.key()]
		if !ok {
			want, _ = goShape(norm(base, "repro_test.go"))
			baseShapes[base.key()] = want
		}
		if got != want {
			t.Errorf("repro_test.go is not the benign one's but for its string literals:\n%s", diffLines(want, got))
		}
		for _, lit := range []string{escape.Go(ttl), escape.Go(o.Command)} {
			if !bytes.Contains(src, []byte(lit)) {
				t.Errorf("repro_test.go lacks the literal %.200s", lit)
			}
		}
		for _, c := range r.Observed {
			if !bytes.Contains(src, []byte("{message: "+escape.Go(c.Message)+",")) {
				t.Errorf("repro_test.go lacks the check %.200s", escape.Go(c.Message))
			}
		}
		sameAsBase("go.mod", true)
	case "python":
		src := norm(g, "test_repro.py")
		if !isASCII(src) {
			t.Error("test_repro.py holds a byte that is not ASCII")
		}
		if facts.python != nil {
			f, fb := facts.python[g.key()], facts.python[base.key()]
			if f.Error != "" {
				t.Fatalf("test_repro.py does not parse: %s", f.Error)
			}
			if f.Shape != fb.Shape {
				t.Errorf("test_repro.py is not the benign one's but for its strings:\n%s", diffLines(fb.Shape, f.Shape))
			}
			if f.Ran != "stopped at mcp" || len(f.Wrote) > 0 {
				t.Errorf("test_repro.py, run with the SDK blocked: %q, wrote %v", f.Ran, f.Wrote)
			}
		}
		literalLines(t, "test_repro.py", src, norm(base, "test_repro.py"),
			"TITLE = "+escape.Python(ttl), "COMMAND = "+escape.Python(o.Command))
		sameAsBase("rawmcp_server.py", false)
		sameAsBase("requirements.txt", false)
		checksFile(t, r)
	case "js":
		src := norm(g, "repro.test.mjs")
		if !isASCII(src) {
			t.Error("repro.test.mjs holds a byte that is not ASCII")
		}
		if facts.js != nil && facts.js[g.key()] != "ok" {
			t.Errorf("repro.test.mjs does not parse as a module: %s", facts.js[g.key()])
		}
		literalLines(t, "repro.test.mjs", src, norm(base, "repro.test.mjs"),
			"const TITLE = "+escape.JavaScript(ttl)+";", "const COMMAND = "+escape.JavaScript(o.Command)+";")
		sameAsBase("rawmcp-server.mjs", false)
		sameAsBase("package.json", true)
		checksFile(t, r)
	}
	for _, name := range []string{"README.md", "ISSUE.md"} {
		checkMarkdown(t, name, string(r.Files[name]), string(base.r.Files[name]))
	}
}

func (g generated) key() string { return g.name + " " + g.o.Lane + " " + g.o.Task }

// baseShapes are the benign reproductions' goShape, by generated.key (subtests run one at a time).
var baseShapes = map[string]string{}

// goShape is a Go file's syntax tree as text, with every string literal blanked: two files of
// one shape differ only inside string literals.
func goShape(src []byte) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "repro_test.go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			lit.Value = `"S"`
		}
		return true
	})
	var b strings.Builder
	pos := reflect.TypeOf(token.NoPos)
	// Positions shift with the literals' lengths; the shape is the rest.
	if err := ast.Fprint(&b, nil, f, func(name string, v reflect.Value) bool {
		return ast.NotNilFilter(name, v) && v.Type() != pos
	}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// literalLines holds a generated file to the benign one's lines: the same number, and every line
// that differs is one of want (a literal written through the language's escaper).
func literalLines(t *testing.T, name string, got, base []byte, want ...string) {
	t.Helper()
	g, b := strings.Split(string(got), "\n"), strings.Split(string(base), "\n")
	if len(g) != len(b) {
		t.Errorf("%s has %d lines, the benign one %d", name, len(g), len(b))
		return
	}
	for i := range g {
		if g[i] == b[i] {
			continue
		}
		ok := false
		for _, w := range want {
			ok = ok || g[i] == w
		}
		if !ok {
			t.Errorf("%s line %d differs from the benign one's outside a literal reproduce wrote:\n%.300s\nbenign\n%.300s", name, i+1, g[i], b[i])
		}
	}
}

// checksFile holds testdata/checks.json to the checks Generate returned.
func checksFile(t *testing.T, r *Reproduction) {
	t.Helper()
	var got struct{ Direct, Framework []Check }
	if err := json.Unmarshal(r.Files["testdata/checks.json"], &got); err != nil {
		t.Fatalf("testdata/checks.json: %v", err)
	}
	if !reflect.DeepEqual(got.Direct, r.Direct) || !reflect.DeepEqual(got.Framework, r.Observed) {
		t.Errorf("testdata/checks.json holds %+v, want %+v and %+v", got, r.Direct, r.Observed)
	}
}

// checkMarkdown holds a markdown file to visible characters only (a line feed apart), no line a
// CI runner reads as a command, fences that close, and the benign file's lines outside them.
func checkMarkdown(t *testing.T, name, md, base string) {
	t.Helper()
	for _, r := range md {
		if r != '\n' && (!unicode.IsGraphic(r) || unicode.Is(unicode.Cf, r)) {
			t.Errorf("%s holds %U", name, r)
			break
		}
	}
	outside, fences := unfenced(md)
	baseOutside, baseFences := unfenced(base)
	if fences != baseFences {
		t.Errorf("%s has %d closed fences, the benign one %d", name, fences, baseFences)
	}
	if len(outside) != len(baseOutside) {
		t.Errorf("%s has %d lines outside its fences, the benign one %d", name, len(outside), len(baseOutside))
	}
	for i, line := range strings.Split(md, "\n") {
		if escape.CommandStart(line) {
			t.Errorf("%s line %d starts a CI command: %.100q", name, i+1, line)
		}
	}
	for _, line := range outside {
		text := escapedChar.ReplaceAllString(hostile.OutsideCode(line), "E")
		if strings.ContainsAny(text, "<>") || strings.Contains(text, "](") {
			t.Errorf("%s: raw HTML or a link outside code: %.200q", name, line)
		}
	}
}

// unfenced is the lines of md outside fenced code blocks, and the number of blocks that close.
func unfenced(md string) (outside []string, closed int) {
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(line, "```"):
			fence = line[:len(line)-len(strings.TrimLeft(line, "`"))]
		case fence != "" && line == fence:
			fence = ""
			closed++
		case fence == "":
			outside = append(outside, line)
		}
	}
	return outside, closed
}

// escapedChar is a backslash-escaped character of markdown: text, never markup.
var escapedChar = regexp.MustCompile(`\\.`)

// diffLines shows the first lines where two texts differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d: got %.300q\nwant %.300q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// pyFacts is what python3 finds of a generated test_repro.py: a parse error, or the module's
// AST dump with every string blanked; and, run with the SDK blocked in a directory of its own,
// how it stopped and the files it wrote.
type pyFacts struct {
	Error, Shape, Ran string
	Wrote             []string
}

// pyProbe reads the files named on its command line, in one process for all of them.
const pyProbe = `import ast, json, os, runpy, sys, tempfile
for m in ("mcp", "mcp.client", "mcp.client.stdio"):
    sys.modules[m] = None
out = {}
for path in sys.argv[1:]:
    facts = {"Error": "", "Shape": "", "Ran": "", "Wrote": []}
    src = open(path, encoding="utf-8").read()
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        facts["Error"] = repr(e)
        out[path] = facts
        continue
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            n.value = "S"
    facts["Shape"] = ast.dump(tree, indent=1)
    with tempfile.TemporaryDirectory() as d:
        here = os.getcwd()
        os.chdir(d)
        try:
            runpy.run_path(path, run_name="__main__")
            facts["Ran"] = "ran to the end"
        except ImportError as e:
            facts["Ran"] = "stopped at " + str(e.name)
        except BaseException as e:
            facts["Ran"] = repr(e)
        finally:
            os.chdir(here)
        facts["Wrote"] = sorted(os.listdir(d))
    out[path] = facts
json.dump(out, sys.stdout)
`

// pythonFacts runs pyProbe on every Python reproduction of gs, by generated.key; nil when there
// is no python3.
func pythonFacts(t *testing.T, gs []generated) map[string]pyFacts {
	t.Helper()
	files := map[string][]byte{}
	for _, g := range gs {
		if seams[g.o.Lane].language == "python" {
			files[g.key()] = g.r.Files["test_repro.py"]
		}
	}
	return runProbe[pyFacts](t, "python3", ".py", []string{"-I", "-c", pyProbe}, files)
}

// jsProbe parses each file named on its command line as an ES module, as node --check does, in
// one process for all of them.
const jsProbe = `import vm from 'node:vm';
import { readFileSync } from 'node:fs';
const out = {};
for (const f of process.argv.slice(1)) {
  try {
    new vm.SourceTextModule(readFileSync(f, 'utf8'), { identifier: f });
    out[f] = 'ok';
  } catch (e) {
    out[f] = String(e);
  }
}
process.stdout.write(JSON.stringify(out));
`

// jsFacts parses every JS reproduction of gs with jsProbe: "ok" or the error, by generated.key;
// nil when there is no node.
func jsFacts(t *testing.T, gs []generated) map[string]string {
	t.Helper()
	files := map[string][]byte{}
	for _, g := range gs {
		if seams[g.o.Lane].language == "js" {
			files[g.key()] = g.r.Files["repro.test.mjs"]
		}
	}
	return parseModules(t, files)
}

// parseModules parses each file (by key) as an ES module with jsProbe, in one node process: "ok"
// or the error, by key; nil when there is no node.
func parseModules(t *testing.T, files map[string][]byte) map[string]string {
	t.Helper()
	return runProbe[string](t, "node", ".mjs", []string{"--no-warnings", "--experimental-vm-modules", "--input-type=module", "-e", jsProbe}, files)
}

// runProbe runs a probe script over files (by key) in one process of the interpreter name: it
// writes each file into a temporary directory with the extension ext, runs name with args and
// the files' paths, and reads the JSON object the probe writes, one T by path, back by key. It
// returns nil, and says so in the log, when name is not on PATH.
func runProbe[T any](t *testing.T, name, ext string, args []string, files map[string][]byte) map[string]T {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		t.Logf("no %s on PATH: the files it would read are not probed", name)
		return nil
	}
	dir := t.TempDir()
	var paths []string
	byPath := map[string]string{}
	for key, src := range files {
		p := filepath.Join(dir, strconv.Itoa(len(paths))+ext)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		byPath[p] = key
	}
	cmd := exec.Command(bin, append(slices.Clone(args), paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, stderr.String())
	}
	var probed map[string]T
	if err := json.Unmarshal(out, &probed); err != nil {
		t.Fatalf("%s probe: %v", name, err)
	}
	keyed := map[string]T{}
	for p, v := range probed {
		keyed[byPath[p]] = v
	}
	return keyed
}

// TestHostileTemplateText renders each template with every text field (the title, the command
// line, the task's and the carrier's docs a contract layer writes, the configuration, the JS
// test's name) holding a hostile string, and holds the result to the benign rendering's lines
// but for the literals the escaper wrote; the Go file must format, the JS file parse as a module.
func TestHostileTemplateText(t *testing.T) {
	render1 := func(t *testing.T, lang, s string) []byte {
		d := data{Fixture: "C02", Task: "T2", Stage: "D1", Framework: "the framework", SeamDoc: "The seam.", Package: "mcp_test",
			Seam: "func frameworkCall(t *testing.T) any { return nil }", TestName: "TestGoSdkD1", TestNamePy: "test_lane_d1",
			Title: s, Command: s, TaskDoc: s, CarrierDoc: s, Configuration: s, TestNameJS: s}
		name := map[string]string{"go": "repro_test.go.tmpl", "js": "repro.test.mjs.tmpl", "python": "test_repro.py.tmpl"}[lang]
		b, err := render(name, d)
		if err != nil {
			t.Fatal(err)
		}
		if lang == "go" {
			if b, err = format.Source(b); err != nil {
				t.Fatalf("the Go test does not format: %v", err)
			}
		}
		return b
	}
	base := map[string][]byte{}
	for _, lang := range []string{"go", "js", "python"} {
		base[lang] = render1(t, lang, benign)
	}
	js := map[string][]byte{}
	for _, c := range hostile.Cases() {
		js[c.Name] = render1(t, "js", c.S)
	}
	parsed := parseModules(t, js)
	for _, c := range hostile.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			for _, lang := range []string{"go", "js", "python"} {
				src := render1(t, lang, c.S)
				if !isASCII(src) {
					t.Errorf("%s: a byte that is not ASCII", lang)
				}
				switch lang {
				case "go":
					got, err := goShape(src)
					if err != nil {
						t.Fatalf("go: %v", err)
					}
					if want, _ := goShape(base["go"]); got != want {
						t.Errorf("go: not the benign file's shape:\n%s", diffLines(want, got))
					}
				case "js":
					q := escape.JavaScript(c.S)
					literalLines(t, "js", src, base["js"], "const CONFIGURATION = "+q+";", "const TITLE = "+q+";", "const COMMAND = "+q+";",
						"const TASK = "+q+";", "const CARRIER = "+q+";", "test("+q+", async (t) => {")
					if parsed != nil && parsed[c.Name] != "ok" {
						t.Errorf("js: does not parse as a module: %s", parsed[c.Name])
					}
				case "python":
					q := escape.Python(c.S)
					literalLines(t, "python", src, base["python"], "TITLE = "+q, "COMMAND = "+q, "TASK = "+q, "CARRIER = "+q)
				}
			}
		})
	}
}

// TestTemplatesPrintNoRawText parses each template and holds every action that prints to a code
// field of data or a call of an escaper on a text field: no template prints the run's words raw.
func TestTemplatesPrintNoRawText(t *testing.T) {
	raw := map[string]bool{}
	for _, f := range rawFields {
		raw[f] = true
	}
	// The code fields a comment or a docstring prints are reproduce's own text: printable ASCII
	// with no backslash or quote, which ends nothing in any of the three languages.
	for lane, sm := range seams {
		for _, text := range []string{sm.framework, sm.doc} {
			if strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 || r > 0x7e || r == '\\' || r == '"' || r == '`' }) {
				t.Errorf("seam %s: %q is printed into comments and docstrings: keep it printable ASCII without \\, \" or `", lane, text)
			}
		}
	}
	entries, err := templates.ReadDir("templates")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".tmpl") {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			text, err := templates.ReadFile("templates/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			trees, err := parse.Parse(e.Name(), string(text), "", "", funcs, map[string]any{"printf": fmt.Sprintf})
			if err != nil {
				t.Fatal(err)
			}
			var cur *parse.Tree
			pos := func(n parse.Node) string {
				loc, _ := cur.ErrorContext(n)
				return loc
			}
			var walk func(n parse.Node, inRange string)
			walk = func(n parse.Node, inRange string) {
				switch n := n.(type) {
				case *parse.ListNode:
					if n == nil {
						return
					}
					for _, c := range n.Nodes {
						walk(c, inRange)
					}
				case *parse.RangeNode:
					field := ""
					if f, ok := n.Pipe.Cmds[0].Args[0].(*parse.FieldNode); ok && len(n.Pipe.Cmds) == 1 {
						field = f.Ident[0]
					}
					if !raw[field] {
						t.Errorf("%s: range over %s, not a code field", pos(n), n.Pipe)
					}
					walk(n.List, field)
					walk(n.ElseList, inRange)
				case *parse.IfNode, *parse.WithNode:
					t.Errorf("%s: an if or with: hold it to the rule before using it", pos(n))
				case *parse.ActionNode:
					if len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) != 1 {
						t.Errorf("%s: %s: one command, no variable", pos(n), n)
						return
					}
					args := n.Pipe.Cmds[0].Args
					switch a := args[0].(type) {
					case *parse.FieldNode:
						if len(args) != 1 || len(a.Ident) != 1 || !raw[a.Ident[0]] {
							t.Errorf("%s: %s prints a text field raw", pos(n), n)
						}
					case *parse.DotNode:
						if inRange == "" {
							t.Errorf("%s: %s prints dot outside a range over a code field", pos(n), n)
						}
					case *parse.IdentifierNode:
						if _, ok := funcs[a.Ident]; !ok || len(args) != 2 {
							t.Errorf("%s: %s is not one escaper call", pos(n), n)
						}
					default:
						t.Errorf("%s: %s", pos(n), n)
					}
				}
			}
			for _, tree := range trees {
				cur = tree
				walk(tree.Root, "")
			}
		})
	}
}

// TestHostileOptionsRefused: the fixture, task, version and configuration are written into file
// names, go.mod, requirements.txt and code as they are, so each must be an identifier of its
// kind; every hostile string in each is refused before anything is loaded, naming the flag.
func TestHostileOptionsRefused(t *testing.T) {
	for _, c := range hostile.Cases() {
		for _, flag := range []string{"--fixture", "--task", "--version", "--configuration"} {
			t.Run(c.Name+"/"+flag, func(t *testing.T) {
				o := opts("C02", "go-sdk", "v1.8.0", "D1", "T2")
				o.Configuration = "default"
				switch flag {
				case "--fixture":
					o.Fixture = c.S
				case "--task":
					o.Task = c.S
				case "--version":
					o.Version = c.S
				case "--configuration":
					o.Configuration = c.S
				}
				err := checkOptions(o)
				if c.S == "" && flag != "--configuration" {
					if err == nil || !strings.Contains(err.Error(), flag+" is required") {
						t.Errorf("error %v, want %s is required", err, flag)
					}
					return
				}
				if c.S == "" {
					return // Generate reads an empty configuration as default
				}
				var in *result.InputError
				if err == nil || !errors.As(err, &in) || !strings.HasPrefix(err.Error(), flag+" ") || !strings.Contains(err.Error(), "refused") {
					t.Fatalf("error %v, want an input error naming %s", err, flag)
				}
				if !isASCII([]byte(strings.ReplaceAll(err.Error(), "…", ""))) {
					t.Errorf("the message holds the value raw: %q", err)
				}
				if len(err.Error()) > 400 {
					t.Errorf("the message is %d bytes long", len(err.Error()))
				}
			})
		}
	}
}
