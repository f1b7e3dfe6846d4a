// Package reproduce turns an unmet binding into a regression test a framework's maintainers can
// run (contractcheck reproduce): the W0 bytes, a raw MCP server that serves them, the seam the
// lane's capture program reads, in the framework's language and test conventions (go test for a
// Go SDK, node --test for a TypeScript framework, unittest for Python), and the consumer decision the loss breaks as
// assertions that fail while the loss exists and pass on the direct reading of what was sent;
// with a markdown issue body saying what was sent, what arrived, which decision it breaks, and
// the stage.
//
// The domain words (W0…H4, carrier, compartment, binding, reading, readout, lane, …) are
// defined in the glossary of the root package's doc (contractcheck.go).
package reproduce

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"go/format"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/contractcheck/contractcheck/internal/contract"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/instrument"
	"github.com/contractcheck/contractcheck/internal/result"
	"github.com/contractcheck/contractcheck/internal/strictjson"
)

//go:embed templates
var templates embed.FS

// Options select the binding to reproduce and the contract set that reports it.
type Options struct {
	inputs.Options
	Fixture, Lane, Version, Configuration, Stage, Task string
	// Command is the command line to name in the files (for their provenance).
	Command string
}

// Reproduction is what Generate writes: files by slash-separated path, and a summary.
type Reproduction struct {
	Files map[string][]byte
	// Language is go or js; Run is the command that runs the test where it was written.
	Language, Run string
	// Direct and Observed are the checks on the direct reading and on the framework's carrier.
	Direct, Observed []Check
	// Record is where the captured carrier the plan was read from is (file:line).
	Record string
}

// Supported lists the lanes and stages reproduce writes a test for, "lane stage" each, sorted.
func Supported() []string {
	var out []string
	for lane, s := range seams {
		for _, st := range s.stages {
			out = append(out, lane+" "+st)
		}
	}
	sort.Strings(out)
	return out
}

// Generate loads the contract set, finds the binding's first captured record, evaluates the task
// on it, and writes the reproduction of its diagnostics. A binding that passes, or that was not
// captured, has nothing to reproduce: an input error. So is an option that is not an identifier
// of its kind (see checkOptions): the fixture, task, stage, version and configuration name files
// and code, and no other spelling of them is written.
func Generate(ctx context.Context, o Options) (*Reproduction, error) {
	if o.Configuration == "" {
		o.Configuration = "default"
	}
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	in, err := instrument.Load(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	return build(ctx, in, o)
}

// Identifiers reproduce writes into file names, code and comments as they are: each option must
// match its pattern, the contract model's own for fixture ids, task ids and names, and for a lane
// version letters, digits and ".+_-" (a Go module version, an npm or a PyPI release), so that
// none can end a comment, a line of go.mod or requirements.txt, or name a path or a URL.
var (
	fixturePattern       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
	taskPattern          = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	configurationPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	versionPattern       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$`)
)

// checkOptions refuses a missing option, a lane and stage reproduce has no seam for, and an
// option that does not match its identifier pattern.
func checkOptions(o Options) error {
	for _, f := range []struct{ flag, v string }{{"--fixture", o.Fixture}, {"--lane", o.Lane}, {"--version", o.Version}, {"--stage", o.Stage}, {"--task", o.Task}} {
		if f.v == "" {
			return &result.InputError{Err: fmt.Errorf("%s is required (see contractcheck reproduce --help)", f.flag)}
		}
	}
	s, ok := seams[o.Lane]
	if !ok || !slices.Contains(s.stages, o.Stage) {
		return &result.InputError{Err: fmt.Errorf("no reproduction for lane %s at stage %s: reproduce writes tests for %s", shown(o.Lane), shown(o.Stage), strings.Join(Supported(), ", "))}
	}
	for _, f := range []struct {
		flag, v, what string
		re            *regexp.Regexp
	}{
		{"--fixture", o.Fixture, "a fixture id: a letter or digit, then letters, digits, '_' and '-'", fixturePattern},
		{"--task", o.Task, "a task id: a letter, then letters, digits, '_' and '-'", taskPattern},
		{"--version", o.Version, "a lane version: a letter or digit, then letters, digits, '.', '+', '_' and '-'", versionPattern},
		{"--configuration", o.Configuration, "a configuration name: a lowercase letter or digit, then lowercase letters, digits, '.', '_' and '-'", configurationPattern},
	} {
		if !f.re.MatchString(f.v) {
			return &result.InputError{Err: fmt.Errorf("%s %s is not %s (at most 64): refused, reproduce writes it into file names and code", f.flag, shown(f.v), f.what)}
		}
	}
	return nil
}

// shown is a value for a message: as it is when it is a plain identifier (letters, digits and
// "._+-"), else as a Go string literal cut to about 60 bytes, ASCII only, so that nothing of it
// acts on the terminal or the log it is read in.
func shown(s string) string {
	const most = 60
	if plainPattern.MatchString(s) {
		return s
	}
	if len(s) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return escape.Go(s[:cut]) + "…"
	}
	return escape.Go(s)
}

var plainPattern = regexp.MustCompile(`^[A-Za-z0-9._+-]{1,64}$`)

// build is Generate on a loaded contract set, for options checkOptions accepts.
func build(ctx context.Context, in *instrument.Instrument, o Options) (*Reproduction, error) {
	s := seams[o.Lane]
	m := in.Model
	task, ok := m.Tasks[o.Task]
	if !ok {
		return nil, &result.InputError{Err: fmt.Errorf("unknown task %s (the contracts define %s)", o.Task, strings.Join(contract.SortedKeys(m.Tasks), ", "))}
	}
	src, ok := in.Sources[o.Fixture]
	if !ok {
		return nil, &result.InputError{Err: fmt.Errorf("unknown fixture %s", o.Fixture)}
	}
	rec, err := firstRecord(ctx, in, o)
	if err != nil {
		return nil, err
	}
	readings, err := in.Evaluate(ctx, rec)
	if err != nil {
		return nil, fmt.Errorf("reproduce: evaluating %s:%d: %w", rec.File, rec.Line, err)
	}
	var diags []map[string]any
	found := false
	for _, r := range readings {
		if r.Task != o.Task {
			continue
		}
		found = true
		if r.Outcome != result.Unmet {
			return nil, &result.InputError{Err: fmt.Errorf("%s %s %s %s %s %s is %s at %s:%d: nothing is lost to reproduce", o.Task, o.Fixture, o.Lane, o.Version, o.Configuration, o.Stage, r.Outcome, rec.File, rec.Line)}
		}
		diags = r.Diagnostics
	}
	if !found {
		return nil, &result.InputError{Err: fmt.Errorf("task %s is not evaluated on fixture %s under profile %s", o.Task, o.Fixture, in.Options().Profile)}
	}
	sd := m.Lanes[o.Lane].Stages[o.Stage]
	binding, bound := sd.Compartments[task.Compartment]
	if !bound {
		return nil, &result.InputError{Err: fmt.Errorf("lane %s stage %s binds no %s compartment: the loss is that the carrier has no place for it (%s), which no assertion on the carrier can show", o.Lane, o.Stage, task.Compartment, sd.Unbound[task.Compartment])}
	}
	rev := m.Fixtures[o.Fixture].Revision
	srcBinding, ok := m.SourceBinding(rev)
	if !ok {
		return nil, &result.InputError{Err: fmt.Errorf("fixture %s: %w", o.Fixture, m.NoBinding(rev))}
	}
	if srcBinding.Selects() || binding.Selects() {
		return nil, &result.InputError{Err: fmt.Errorf("%s %s %s %s: the source binding of revision %s or the lane's %s binding selects array elements by value, and a reproduction asserts on JSON pointers only", o.Task, o.Fixture, o.Lane, o.Stage, rev, task.Compartment)}
	}
	envelope := envelopeOf(src.Doc)
	sourceView := in.SourceView(o.Fixture)
	direct, observed, err := plan(diags, sourceView, newReading(srcBinding, envelope), newReading(binding, rec.Carrier), o.Stage)
	if err != nil {
		return nil, &result.InputError{Err: fmt.Errorf("%s %s %s %s: %w", o.Task, o.Fixture, o.Lane, o.Stage, err)}
	}
	code := s.code
	if s.codeFor != nil {
		code = s.codeFor(o.Version)
	}
	d := data{Fixture: o.Fixture, Task: o.Task, Stage: o.Stage, Framework: s.framework, SeamDoc: s.doc, Package: s.pkg,
		Std: s.std, Imports: s.imports, Seam: code,
		Title: title(o, observed), Command: o.Command, TaskDoc: o.Task + ": " + oneLine(task.Doc), CarrierDoc: oneLine(sd.Doc), Configuration: o.Configuration}
	r := &Reproduction{Files: map[string][]byte{"testdata/w0.json": src.Data}, Language: s.language, Direct: direct, Observed: observed,
		Record: fmt.Sprintf("%s:%d", rec.File, rec.Line)}
	if s.language != "go" {
		// The JS and Python tests read the checks from a data file: no word of the run is
		// written into their source but through an escaper.
		if r.Files["testdata/checks.json"], err = checksJSON(direct, observed); err != nil {
			return nil, err
		}
	}
	switch s.language {
	case "go":
		d.TestName = "Test" + goName(o.Lane) + o.Stage
		for _, c := range direct {
			d.Direct = append(d.Direct, goCheck(c))
		}
		for _, c := range observed {
			d.Observed = append(d.Observed, goCheck(c))
		}
		src, err := render("repro_test.go.tmpl", d)
		if err != nil {
			return nil, err
		}
		if r.Files["repro_test.go"], err = format.Source(src); err != nil {
			return nil, fmt.Errorf("reproduce: the generated test does not parse: %w", err)
		}
		r.Files["go.mod"] = []byte(fmt.Sprintf("module contractcheck.example/repro/%s-%s-%s\n\ngo 1.25\n\nrequire %s %s\n", strings.ToLower(o.Fixture), o.Lane, strings.ToLower(o.Stage), s.module, o.Version))
		r.Run = "go mod tidy && go test ./..."
	case "js":
		d.TestNameJS = fmt.Sprintf("%s %s %s: the consumer decision on what %s hands the application", o.Lane, o.Version, o.Stage, s.framework)
		if r.Files["repro.test.mjs"], err = render("repro.test.mjs.tmpl", d); err != nil {
			return nil, err
		}
		if r.Files["rawmcp-server.mjs"], err = templates.ReadFile("templates/rawmcp-server.mjs"); err != nil {
			return nil, fmt.Errorf("reproduce: %w", err)
		}
		r.Files["package.json"] = packageJSON(o, s)
		r.Run = "npm install && node --test"
	case "python":
		d.TestNamePy = "test_" + strings.ReplaceAll(o.Lane, "-", "_") + "_" + strings.ToLower(o.Stage)
		if r.Files["test_repro.py"], err = render("test_repro.py.tmpl", d); err != nil {
			return nil, err
		}
		if r.Files["rawmcp_server.py"], err = templates.ReadFile("templates/rawmcp_server.py"); err != nil {
			return nil, fmt.Errorf("reproduce: %w", err)
		}
		r.Files["requirements.txt"] = []byte(fmt.Sprintf("%s==%s\n", s.module, o.Version))
		r.Run = "pip install -r requirements.txt && python3 -m unittest -v"
	}
	r.Files["ISSUE.md"] = issue(o, s, r.Run, m, task, sd, binding, diags, src.Data, rec, observed)
	r.Files["README.md"] = readme(o, s, r)
	return r, nil
}

// firstRecord finds the binding's record of the lowest repetition among the captured ones, in
// the record files o names (Generate loads in from the same options).
func firstRecord(ctx context.Context, in *instrument.Instrument, o Options) (*instrument.Record, error) {
	files, err := o.Options.RecordFiles()
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	var best *instrument.Record
	var states []string
	err = in.ReadRecords(ctx, files, func(r *instrument.Record) error {
		if r.Fixture != o.Fixture || r.Lane != o.Lane || r.LaneVersion != o.Version || r.Configuration != o.Configuration || r.Stage != o.Stage {
			return nil
		}
		states = append(states, r.State)
		if r.State == "captured" && (best == nil || r.Repetition < best.Repetition) {
			best = r
		}
		return nil
	})
	if err != nil {
		return nil, &result.InputError{Err: err}
	}
	if best == nil {
		what := "no record"
		if len(states) > 0 {
			what = "records of state " + strings.Join(states, ", ")
		}
		return nil, &result.InputError{Err: fmt.Errorf("%s %s %s %s %s has %s: a reproduction needs a captured carrier", o.Fixture, o.Lane, o.Version, o.Configuration, o.Stage, what)}
	}
	return best, nil
}

// envelopeOf is the JSON-RPC response the raw server sends for a W0 document: the document as the
// result, or an envelope's own result or error member. doc is the document as instrument.Load decoded
// it (strictjson: numbers as json.Number).
func envelopeOf(doc any) any {
	env := map[string]any{"jsonrpc": "2.0", "id": json.Number("1"), "result": doc}
	if m, ok := doc.(map[string]any); ok {
		if _, rpc := m["jsonrpc"]; rpc {
			delete(env, "result")
			if e, isErr := m["error"]; isErr {
				env["error"] = e
			} else {
				env["result"] = m["result"]
			}
		}
	}
	return env
}

// data is what the templates read. The templates print the code fields as they are: fixed text
// and code of reproduce's own, and identifiers checkOptions matched against a pattern (the fixture,
// the task, the stage; test names made of them). The text fields hold the run's words (a
// message, a key, a document's doc, the command line): a template prints them only through
// the escaper of its language (go, js, py), as a string literal, never in a comment or a
// docstring; TestTemplatesPrintNoRawText holds the templates to that.
type data struct {
	// Code: printed as is.
	Fixture, Task, Stage, Framework, SeamDoc, Package, Seam, TestName, TestNamePy string
	Std, Imports                                                                  []string
	// Direct and Observed are the checks as Go composite literals, written by goCheck with
	// escape.Go.
	Direct, Observed []string
	// Text: printed only through an escaper.
	Title, Command, TaskDoc, CarrierDoc, Configuration, TestNameJS string
}

// rawFields are data's code fields, which a template may print as they are.
var rawFields = []string{"Fixture", "Task", "Stage", "Framework", "SeamDoc", "Package", "Seam", "TestName", "TestNamePy", "Std", "Imports", "Direct", "Observed"}

// funcs are the escapers a template prints a text field with: a string literal of its language.
var funcs = template.FuncMap{"go": escape.Go, "js": escape.JavaScript, "py": escape.Python}

func render(name string, d data) ([]byte, error) {
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").ParseFS(templates, "templates/"+name)
	if err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("reproduce: %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// goCheck writes a check as a Go composite literal.
func goCheck(c Check) string {
	var parts []string
	str := func(name, v string) {
		if v != "" {
			parts = append(parts, name+": "+escape.Go(v))
		}
	}
	t := c.Target
	str("pointer", t.Pointer)
	str("list", t.List)
	str("listDecode", t.ListDecode)
	if t.Item {
		parts = append(parts, fmt.Sprintf("index: %d", t.Index), "item: true")
	}
	str("discriminator", t.Discriminator)
	str("field", t.Field)
	str("decode", t.Decode)
	str("rest", t.Rest)
	str("isError", t.IsError)
	for _, l := range []struct {
		name string
		vals []string
	}{{"abort", t.Abort}, {"cont", t.Continue}} {
		if len(l.vals) > 0 {
			q := make([]string, len(l.vals))
			for i, v := range l.vals {
				q[i] = escape.Go(v)
			}
			parts = append(parts, l.name+": []string{"+strings.Join(q, ", ")+"}")
		}
	}
	str("raised", t.Raised)
	str("unbound", t.Unbound)
	return fmt.Sprintf("{message: %s, op: %s, target: target{%s}, want: %s}", escape.Go(c.Message), escape.Go(c.Op), strings.Join(parts, ", "), goString(c.Want))
}

// goString is s as a Go string literal: raw when that reads better (JSON with quotes) and s is
// printable ASCII without a backquote, which a raw string holds as it is; else escape.Go.
func goString(s string) string {
	printable := !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r > 0x7e || r == '`' })
	if printable && strings.Contains(s, `"`) {
		return "`" + s + "`"
	}
	return escape.Go(s)
}

// checksJSON is the data file the JS and Python tests read their checks from:
// {"direct": [...], "framework": [...]}.
func checksJSON(direct, observed []Check) ([]byte, error) {
	var b bytes.Buffer
	if err := strictjson.EncodeIndented(&b, struct {
		Direct    []Check `json:"direct"`
		Framework []Check `json:"framework"`
	}{direct, observed}); err != nil {
		return nil, fmt.Errorf("reproduce: the checks as JSON: %w", err)
	}
	return b.Bytes(), nil
}

func goName(lane string) string {
	var b strings.Builder
	up := true
	for _, r := range lane {
		if r == '-' || r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}

func title(o Options, checks []Check) string {
	return fmt.Sprintf("%s %s at %s: %s", o.Lane, o.Version, o.Stage, checks[0].Message)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// packageJSON pins the framework at the lane version, and the packages the seam imports at the
// versions the capture package pins.
func packageJSON(o Options, s seam) []byte {
	deps := map[string]string{s.module: o.Version}
	for name, v := range jsPins {
		if name != s.module {
			deps[name] = v
		}
	}
	doc := map[string]any{"name": "repro-" + strings.ToLower(o.Fixture) + "-" + o.Lane, "private": true, "type": "module",
		"engines": map[string]string{"node": ">=20.10"}, "scripts": map[string]string{"test": "node --test"}, "dependencies": deps}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n')
}

// jsPins are the versions examples/capture/js/package.json pins for the packages a JS seam
// imports beside the framework.
var jsPins = map[string]string{
	"@langchain/core":           "1.4.0",
	"@langchain/langgraph":      "1.7.3",
	"@modelcontextprotocol/sdk": "1.32.2",
}
