package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/spf13/cobra"
)

// outputEnv is what the runs of TestOutputFlagsEveryVerb read: a copy of the direct lane's
// records, a layer from init, a copy of the built-in challenge suite alpha, a valid source and a
// probe run's traffic file.
type outputEnv struct {
	dir, obs, record, layer, policy, suite, suiteCase, source, traffic string
}

func newOutputEnv(t *testing.T) outputEnv {
	t.Helper()
	dir := t.TempDir()
	e := outputEnv{dir: dir, obs: filepath.Join(dir, "obs"), layer: filepath.Join(dir, "layer"), source: filepath.Join(dir, "source.json")}
	data, err := os.ReadFile("../../fixtures/observations/direct/v1/default.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e.record = filepath.Join(e.obs, "direct.jsonl")
	testkit.WriteFile(t, e.record, string(data))
	initLayer(t, e.layer)
	e.policy = filepath.Join(e.layer, "t6.rego")
	e.suite = filepath.Join(builtinCopy(t, "fixtures"), "challenge", "alpha")
	cases, err := filepath.Glob(filepath.Join(e.suite, "cases", "*.json"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("the suite alpha has no case: %v", err)
	}
	e.suiteCase = cases[0]
	testkit.WriteFile(t, e.source, `{"content": [{"type": "text", "text": "ok"}], "isError": false}`)
	e.traffic = filepath.Join(dir, "traffic", "1.ndjson")
	testkit.WriteFile(t, e.traffic, `{"format":"contractcheck-probe-traffic","formatVersion":1,"lane":"a","laneVersion":"1","configuration":"default","run":"C09","fixtures":["C09"],"repetition":1,"exchanges":1}`+"\n"+
		`{"seq":1,"endpoint":"mcp","method":"POST","path":"/mcp","request":"{}","status":200,"response":{"base64":"/w=="}}`+"\n")

	return e
}

// resultVerb is a verb that prints a result, and the runs that show its --format and --output.
type resultVerb struct {
	name string
	// run is a run that succeeds, with exit code code.
	run  func(e outputEnv) []string
	code int
	// input is a run and one of the files it reads, which --output must never replace (nil: the
	// verb reads no file).
	input func(e outputEnv) ([]string, string)
	// toFile: the default --output is a file, or --output is required (lock, bundle): the run
	// is not compared with a run to standard output.
	toFile bool
}

// resultVerbs are the verbs that print a result: each takes --format and --output through
// addOutputFlags.
var resultVerbs = []resultVerb{
	{name: "check", run: func(e outputEnv) []string { return []string{"check", "--no-cache", "--observations", e.obs} },
		input: func(e outputEnv) ([]string, string) { return []string{"check", "--observations", e.obs}, e.record }},
	{name: "compare", run: func(e outputEnv) []string { return []string{"compare", "--observations", e.obs} },
		input: func(e outputEnv) ([]string, string) { return []string{"compare", "--observations", e.obs}, e.record }},
	{name: "study", run: func(e outputEnv) []string { return []string{"study", "--observations", e.obs} },
		input: func(e outputEnv) ([]string, string) { return []string{"study", "--observations", e.obs}, e.record }},
	{name: "challenge", run: func(e outputEnv) []string { return []string{"challenge", e.suite} },
		input: func(e outputEnv) ([]string, string) { return []string{"challenge", e.suite}, e.suiteCase }},
	{name: "test", run: func(e outputEnv) []string { return []string{"test", "--policies", e.layer} },
		input: func(e outputEnv) ([]string, string) { return []string{"test", "--policies", e.layer}, e.policy }},
	{name: "version", run: func(outputEnv) []string { return []string{"version"} }},
	{name: "validate", run: func(e outputEnv) []string { return []string{"validate", e.source} },
		input: func(e outputEnv) ([]string, string) { return []string{"validate", e.source}, e.source }},
	{name: "capabilities", run: func(outputEnv) []string { return []string{"capabilities"} }},
	{name: "lock", run: func(e outputEnv) []string { return []string{"lock", "--observations", e.obs} }, toFile: true,
		input: func(e outputEnv) ([]string, string) { return []string{"lock", "--observations", e.obs}, e.record }},
	{name: "inspect fixture", run: func(outputEnv) []string { return []string{"inspect", "fixture", "C01"} }},
	{name: "inspect record", run: func(outputEnv) []string {
		return []string{"inspect", "record", "builtin:fixtures/observations/adk-go/v1.7.0/default.jsonl:6"}
	}},
	{name: "inspect traffic", run: func(e outputEnv) []string { return []string{"inspect", "traffic", e.traffic} },
		input: func(e outputEnv) ([]string, string) { return []string{"inspect", "traffic", e.traffic}, e.traffic }},
	{name: "bundle", run: func(outputEnv) []string { return []string{"bundle"} }, toFile: true,
		input: func(e outputEnv) ([]string, string) { return []string{"bundle", "--policies", e.layer}, e.policy }},
}

// notResultVerbs are the verbs that print no result of their own, and why they take no
// --format and no --output FILE.
var notResultVerbs = map[string]string{
	"mutate":       "--output DIR is the suite it writes (cases/, sources/); stdout lists the cases written",
	"reproduce":    "--output DIR is the reproduction it writes (a test, its data, ISSUE.md); stdout says what it wrote",
	"probe":        "--output DIR is the records, probe.json and probe.cue it writes; it speaks on stderr only",
	"init":         "DIR is the layer it writes; stdout names the files",
	"export":       "DIR is the built-in files it writes; stdout says how many",
	"record":       "--output DIR is the sources, records, record.json and record.cue it writes; it speaks on stderr only",
	"record stdio": "standard output is the MCP stream it relays",
	"serve":        "standard output is the MCP stream it serves",
	"capture direct": "it writes observation records, JSONL (their one format), to --output FILE or standard output, " +
		"whole or not at all and never over a source, contract or schema of the run; what it wrote is said on stderr",
	"collect": "--dir DIR is the batches it writes; it is a server and speaks on stderr only (its counters at GET /status)",
}

// TestOutputFlagsEveryVerb walks every command: each verb that prints a result takes --format
// (its formats in the help) and --output FILE, with the same meaning everywhere: an unknown
// format is exit 2 naming the flag, the name and the formats, and leaves an earlier --output file
// as it was; --output writes the result there, the bytes standard output would have had, and
// nothing on standard output; an --output that is one of the run's inputs is refused (exit 2)
// and the input is left as it was. Every other verb says why it has neither.
func TestOutputFlagsEveryVerb(t *testing.T) {
	t.Parallel()
	root := newRootCommand()
	var names []string
	for _, c := range root.Commands() {
		if !c.Runnable() || c.HasSubCommands() {
			// a group (inspect): its subcommands are the verbs
			for _, sc := range c.Commands() {
				names = append(names, c.Name()+" "+sc.Name())
			}
			continue
		}
		names = append(names, c.Name())
	}
	for _, v := range resultVerbs {
		if !slices.Contains(names, v.name) {
			t.Errorf("%s is listed as a verb that prints a result, and there is no such command", v.name)
		}
	}
	for _, name := range names {
		if _, ok := notResultVerbs[name]; !ok && !slices.ContainsFunc(resultVerbs, func(v resultVerb) bool { return v.name == name }) {
			t.Errorf("command %s is in neither resultVerbs nor notResultVerbs: say whether it prints a result", name)
		}
	}
	for name, why := range notResultVerbs {
		c, _, err := root.Find(strings.Fields(name))
		if err != nil || c.CommandPath() != "contractcheck "+name {
			t.Errorf("%s is listed as a verb without a result, and there is no such command", name)
			continue
		}
		if c.Flags().Lookup("format") != nil {
			t.Errorf("%s takes --format, yet notResultVerbs says it prints no result (%s)", name, why)
		}
	}

	e := newOutputEnv(t)
	for _, v := range resultVerbs {
		t.Run(v.name, func(t *testing.T) {
			c, _, err := root.Find(strings.Fields(v.name))
			if err != nil {
				t.Fatal(err)
			}
			formats := formatFlag(t, c)
			if c.Flags().Lookup("output") == nil {
				t.Fatalf("%s has no --output", v.name)
			}
			out := filepath.Join(t.TempDir(), "out")

			// An unknown format: exit 2 naming the flag, the name and every format; nothing
			// written, an earlier file left as it was.
			testkit.WriteFile(t, out, "earlier\n")
			code, stdout, stderr := cli(t, append(v.run(e), "--format", "no-such-format", "--output", out)...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, `--format: unknown format "no-such-format" (want one of `+strings.Join(formats, ", ")+")") {
				t.Errorf("--format no-such-format: exit %d, want 2 naming the flag, the name and %v\nstdout %q\nstderr %q", code, formats, stdout, stderr)
			}
			if data, _ := os.ReadFile(out); string(data) != "earlier\n" {
				t.Errorf("--format no-such-format changed the --output file: %q", data)
			}

			// --output: the result there, nothing on stdout; the same bytes stdout would have had.
			code, stdout, stderr = cli(t, append(v.run(e), "--output", out)...)
			if code != v.code || stdout != "" {
				t.Fatalf("--output %s: exit %d, want %d and nothing on stdout\nstdout %q\nstderr %s", out, code, v.code, stdout, stderr)
			}
			written, err := os.ReadFile(out)
			if err != nil || len(written) == 0 || string(written) == "earlier\n" {
				t.Fatalf("--output %s: the result was not written (%v)", out, err)
			}
			if !v.toFile {
				code, stdout, stderr = cli(t, v.run(e)...)
				if code != v.code || stdout != string(written) {
					t.Errorf("without --output: exit %d, and stdout differs from the --output file\nstdout %.500q\nfile   %.500q\n%s", code, stdout, written, stderr)
				}
			}

			// An --output that is an input of the run: refused before anything runs.
			if v.input == nil {
				return
			}
			args, input := v.input(e)
			before, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr = cli(t, append(args, "--output", input)...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, "--output "+input+" is ") || !strings.Contains(stderr, "refused") {
				t.Errorf("--output %s, an input: exit %d, want 2 and a refusal\nstdout %q\nstderr %q", input, code, stdout, stderr)
			}
			if after, _ := os.ReadFile(input); string(after) != string(before) {
				t.Errorf("--output %s, an input, changed it", input)
			}
		})
	}
}

// formatFlag returns the formats a command's --format offers, as its help lists them, and checks
// the flag is the one addOutputFlags binds: its default is one of them.
func formatFlag(t *testing.T, c *cobra.Command) []string {
	t.Helper()
	f := c.Flags().Lookup("format")
	if f == nil {
		t.Fatalf("%s has no --format", c.Name())
	}
	list, ok := strings.CutPrefix(f.Usage, "output format: ")
	if !ok {
		t.Fatalf("%s --format's help %q does not list the formats", c.Name(), f.Usage)
	}
	formats := strings.Split(list, ", ")
	if !slices.Contains(formats, f.DefValue) {
		t.Errorf("%s --format defaults to %q, not one of %v", c.Name(), f.DefValue, formats)
	}
	return formats
}

// TestCheckExit2Report holds check --help and the README to what an exit-2 run writes to
// --output: a gate that selected nothing writes its whole report, naming why, over a previous
// file; bad input writes none and leaves the previous file as it was. Each case names the words
// of check --help that say so.
func TestCheckExit2Report(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		// report is a line the written report holds; empty: no report is written.
		report string
		// help is what check --help says of the case (its words, whatever the line breaks).
		help string
	}{
		{name: "the gate selected nothing: the report is written",
			args:   []string{"check", "--no-cache", "--lane", "openai-agents"},
			report: "gate: profile strict selected nothing: no verdict (exit 2)",
			help:   "An exit-2 gate verdict (the gate selected nothing, or decision logs lack expected bindings) writes its whole report too"},
		{name: "bad input: no report, the previous file kept",
			args: []string{"check", "--no-cache", "--fixture", "NO-SUCH-FIXTURE"},
			help: "any other exit-2 run (usage, bad input, lock drift, an unwritable --output) writes none and leaves a previous --output file as it was"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(strings.Join(strings.Fields(checkLong), " "), tc.help) {
				t.Errorf("check --help does not say %q", tc.help)
			}
			out := filepath.Join(t.TempDir(), "report.txt")
			testkit.WriteFile(t, out, "previous\n")
			code, stdout, stderr := cli(t, append(tc.args, "--output", out)...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, want 2 and nothing on stdout\nstdout %q\nstderr %s", code, stdout, stderr)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if tc.report == "" {
				if string(got) != "previous\n" {
					t.Errorf("the previous --output file was replaced: %.300q", got)
				}
				return
			}
			if !strings.Contains(string(got), tc.report) {
				t.Errorf("the report lacks %q:\n%.2000s", tc.report, got)
			}
		})
	}
}
