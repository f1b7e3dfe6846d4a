package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/spf13/cobra"
)

// helpExample says how TestHelpExamples runs one example of a --help text: in a work directory of
// its own holding files, after setup, as written, and with the exit code the help gives it.
type helpExample struct {
	// setup are testscript lines run first: what the example expects to find (a layer from init,
	// captured records, a suite), made with the built-in data.
	setup string
	// files are written into the work directory before setup (txtar sections), by path.
	files map[string]string
	// exit is the exit code the help gives the example (0 unless set).
	exit int
	// skip, when set, is why the fast tier does not run the example: it needs a program, a
	// server or a network the hermetic tier does not have.
	skip string
	// synopsis: the line shows a command's form with placeholders (DIR, ID, N), not a command to
	// run; it is checked to be one of the command's own forms, not run.
	synopsis bool
}

// Setups of helpExamples ($ROOT is the repository root, set by TestHelpExamples).
const (
	// directRecords are the control lane's built-in records.
	directRecords = "$ROOT/fixtures/observations/direct/v1/default.jsonl"
	// layerSplit makes my-contracts (CUE) and my-policies (Rego) from one init layer.
	layerSplit = "exits 0 contractcheck init my-contracts\nmkdir my-policies\n" +
		"cp my-contracts/t6.rego my-contracts/t6_test.rego my-policies\nrm my-contracts/t6.rego\nrm my-contracts/t6_test.rego\n"
	// captures holds the control lane's built-in records, as a capture a user brings.
	captures = "mkdir captures\ncp " + directRecords + " captures/direct.jsonl\n"
)

// firstItemDecoder is the decoder compare --help's example names: the target in the first text
// item alone (what json.loads(content[0].text) recovers).
const firstItemDecoder = `package my.decoders.first_item

import data.contractcheck.lib.decoders
import data.contractcheck.lib.views

readout := decoders.readout(decoders.expected, recovery)

recovery := decoders.found(contractcheck.json_text(views.text_items(input.observed)[0]), input.target) if {
	_ = contractcheck.json_text(views.text_items(input.observed)[0])
}

recovery := {"unparseable": [0]} if {
	t := views.text_items(input.observed)[0]
	not contractcheck.json_text(t)
}

recovery := {} if count(views.text_items(input.observed)) == 0
`

// helpExamples holds every example line of every --help text (Example, and the lines of Long that
// start with "contractcheck "), keyed by the command path and the line as written.
var helpExamples = map[string]helpExample{
	"contractcheck bundle|contractcheck bundle --output contracts.tar.gz": {},
	"contractcheck bundle|contractcheck bundle --profile withhold-private-meta --contracts ./mine --policies ./mine --output mine.tar.gz": {
		setup: "exits 0 contractcheck init mine\n"},
	"contractcheck bundle|opa run --server --addr 127.0.0.1:8181 --bundle contracts.tar.gz": {
		skip: "runs stock OPA as a server, not contractcheck (internal/bundle's TestStockOPAAgreesWithCheck serves a bundle so in the integration tier)"},
	"contractcheck capabilities|contractcheck capabilities > capabilities.json": {},
	"contractcheck capabilities|opa check --v1-compatible --strict --capabilities capabilities.json my-policies/": {
		skip: "runs stock OPA, not contractcheck"},
	"contractcheck challenge|contractcheck challenge alpha": {},
	"contractcheck challenge|contractcheck challenge ./my-suite --format json --output challenge.json": {
		setup: "exits 0 contractcheck mutate --fixture C16 --lane direct --stage A2 --output ./my-suite\n"},
	"contractcheck challenge|contractcheck challenge beta --contracts ./my-contracts --policies ./my-policies --score": {setup: layerSplit},
	"contractcheck check|contractcheck check":                                                                                              {},
	"contractcheck check|contractcheck check --profile optional-null --format json --output report.json":                                   {},
	"contractcheck check|contractcheck check --profile study":                                                                              {},
	"contractcheck check|contractcheck check --suite paper --configuration default --lane direct --lane openai-agents@application-context": {},
	"contractcheck check|contractcheck init my-layer && contractcheck check --contracts my-layer --policies my-layer --profile my-layer":   {},
	"contractcheck check|contractcheck check --contracts ./my-contracts --policies ./my-policies --observations ./captures": {
		setup: layerSplit + captures},
	"contractcheck check|contractcheck check --decision-logs opa-console.log --lane go-sdk --fixture 'C0*'": {
		skip: "needs the decision logs of a stock OPA serving the bundle with go-sdk's decisions posted (docs/opa.md; internal/bundle's TestStockOPADecisionLogsAgree runs that path in the integration tier)"},
	"contractcheck check|contractcheck check --stage D1 --census-out d1 && contractcheck check --stage A2 --stage M3 --stage H4 --census-out rest && contractcheck check --census d1 --census rest": {},
	"contractcheck study|contractcheck study":                                                                                                          {},
	"contractcheck study|contractcheck study --format markdown --output study.md":                                                                      {},
	"contractcheck study|contractcheck study --format json --output study.json":                                                                        {},
	"contractcheck study|contractcheck study --profile optional-null --null-profile strict --lane direct --lane openai-agents --configuration default": {},
	"contractcheck compare|contractcheck compare":                                                                                                      {},
	"contractcheck compare|contractcheck compare --details":                                                                                            {},
	"contractcheck compare|contractcheck compare --null-profile withhold-private-meta":                                                                 {},
	"contractcheck compare|contractcheck compare --decoder slot-or-json-text --format json --output compare.json":                                      {},
	"contractcheck compare|contractcheck compare --policies ./my-policies --decoder native-slot,my.decoders.first_item": {
		files: map[string]string{"my-policies/first_item.rego": firstItemDecoder}},
	"contractcheck export|contractcheck export builtin":                           {},
	"contractcheck export|contractcheck export --only contracts,policies builtin": {},
	"contractcheck init|contractcheck init my-contracts":                          {},
	"contractcheck init|contractcheck init --task LINKS my-contracts":             {},
	"contractcheck init|contractcheck init --lane acme-agent acme":                {},
	"contractcheck init|contractcheck init my-layer":                              {},
	"contractcheck init|contractcheck test  --policies my-layer":                  {setup: "exits 0 contractcheck init my-layer\n"},
	"contractcheck init|contractcheck check --contracts my-layer --policies my-layer --profile my-layer": {
		setup: "exits 0 contractcheck init my-layer\n"},
	"contractcheck inspect fixture|contractcheck inspect fixture C01": {},
	"contractcheck inspect fixture|contractcheck inspect fixture MYPROD-1 --fixtures ./my-results --format json": {
		setup: "mkdir my-results/sources/prod\ncp $ROOT/fixtures/sources/paper/C05.json my-results/sources/prod/MYPROD-1.json\n"},
	"contractcheck inspect record|contractcheck inspect record builtin:fixtures/observations/adk-go/v1.7.0/default.jsonl:6":           {},
	"contractcheck inspect record|contractcheck inspect record --fixture C05 --lane adk-go --version v1.7.0 --stage A2 --format json": {},
	"contractcheck inspect record|contractcheck inspect record captures/my-agent/1.0/default.jsonl:3 --contracts my-layer --policies my-layer --profile my-layer": {
		skip: "needs the records and lane declaration of a record or probe run of an agent my-agent (a server or an agent program)"},
	"contractcheck inspect traffic|contractcheck inspect traffic --probe-output probe-out --fixture C09 --repetition 2": {
		skip: "needs a probe run's output (an agent program)"},
	"contractcheck inspect traffic|contractcheck inspect traffic probe-out/traffic/acme-agent/1.0.0/default/C09/2.ndjson": {
		skip: "needs a probe run's output (an agent program)"},
	"contractcheck inspect traffic|contractcheck inspect traffic --probe-output probe-out --fixture C09 --lane acme-agent --version 1.0.0 --format json": {
		skip: "needs a probe run's output (an agent program)"},
	"contractcheck lock|contractcheck lock": {},
	"contractcheck lock|contractcheck lock --contracts my-layer --policies my-layer --observations captures": {
		setup: "exits 0 contractcheck init my-layer\n" + captures},
	"contractcheck lock|contractcheck check --locked --contracts my-layer --policies my-layer --observations captures": {
		setup: "exits 0 contractcheck init my-layer\n" + captures + "exits 0 contractcheck lock --contracts my-layer --policies my-layer --observations captures\n"},
	"contractcheck lock|contractcheck check --locked        (or --frozen)":                                                                     {synopsis: true},
	"contractcheck mutate|contractcheck mutate --fixture C16 --lane direct --stage A2 --output ./suite":                                        {},
	"contractcheck mutate|contractcheck mutate --fixture C11 --lane agent-framework --stage A2 --operators dataurl-vs-base64 --output ./suite": {},
	"contractcheck mutate|contractcheck mutate --list":                                                                                         {},
	"contractcheck mutate|contractcheck challenge DIR.":                                                                                        {synopsis: true},
	"contractcheck probe|contractcheck probe --lane my-agent --version 1.4.0 --output probe-out -- node agent.mjs": {
		skip: "runs an agent under Node.js (npm packages)"},
	"contractcheck probe|contractcheck probe --lane my-agent --version 1.4.0 --provider openai-chat --suite paper --output probe-out -- python agent.py": {
		skip: "runs an agent under Python"},
	"contractcheck probe|contractcheck probe --lane my-agent --version 1.4.0 --append-url --output probe-out -- ./conformance-client": {
		skip: "runs a conformance client the user brings"},
	"contractcheck probe|contractcheck check --observations probe-out --contracts probe-out --profile probe": {
		skip: "needs a probe run's output (an agent program)"},
	"contractcheck probe|contractcheck check --observations DIR --contracts DIR --profile probe":       {synopsis: true},
	"contractcheck probe|contractcheck inspect traffic --probe-output DIR --fixture ID --repetition N": {synopsis: true},
	"contractcheck record|contractcheck record --lane my-agent --version 1.4.0 --mcp http://localhost:3000/mcp --provider https://api.openai.com --output rec -- node agent.mjs": {
		skip: "needs an MCP server on the network, a model provider and an agent under Node.js"},
	"contractcheck record|contractcheck record --lane my-agent --version 1.4.0 --mcp-command 'python server.py' --provider https://api.anthropic.com --redact /structuredContent/email --output rec": {
		skip: "needs an MCP server under Python and a model provider on the network"},
	"contractcheck record|contractcheck check --fixtures rec --observations rec --contracts rec --profile record": {
		skip: "needs a record run's output (an MCP server and an agent)"},
	"contractcheck record|contractcheck check --fixtures DIR --observations DIR --contracts DIR --profile record":                                           {synopsis: true},
	"contractcheck reproduce|contractcheck reproduce --fixture C02 --lane go-sdk --version v1.8.0 --stage D1 --task T2 --output repro-go-sdk":               {},
	"contractcheck reproduce|contractcheck reproduce --fixture C02 --lane langchain-mcp-adapters-js --version 1.1.4 --stage A2 --task T2 --output repro-lc": {},
	"contractcheck collect|contractcheck collect --dir /var/lib/contractcheck/batches": {
		skip: "a server that runs until stopped (internal/collect's tests drive it in process, internal/bundle's TestStockOPAsUploadToCollect with stock OPAs)"},
	"contractcheck collect|contractcheck collect --dir batches --listen 10.0.0.5:8282 --tls-cert cert.pem --tls-key key.pem --token-file token": {
		skip: "a server on another machine's address, with TLS files (TestCollectListen holds the address rules)"},
	"contractcheck collect|contractcheck check --decision-logs /var/lib/contractcheck/batches": {
		skip: "reads the batches a running collect wrote (TestCollectAgreesWithCheck)"},
	"contractcheck collect|contractcheck collect --dir batches --census census && contractcheck check --census census --format json": {
		skip: "a server that runs until stopped, then a report on the census it folds (TestCollectCensusCommand runs both)"},
	"contractcheck serve|contractcheck serve --fixture C05 --stdio": {},
	"contractcheck serve|contractcheck serve --fixture C11 --listen 127.0.0.1:8931": {
		skip: "serves HTTP on a fixed port until stopped (the network)"},
	"contractcheck serve|npx @modelcontextprotocol/inspector contractcheck serve --fixture C05 --stdio": {
		skip: "runs the MCP Inspector from npm"},
	"contractcheck test|contractcheck test":                                                                             {},
	"contractcheck test|contractcheck test -v --run 'data.contractcheck.tasks.t2_test.test_unmet_'":                     {},
	"contractcheck test|contractcheck test --coverage":                                                                  {},
	"contractcheck test|contractcheck init my-layer && contractcheck test --policies my-layer --coverage --format json": {},
	"contractcheck validate|contractcheck validate":                                                                     {},
	"contractcheck validate|contractcheck validate --revision 2026-07-28 result.json": {
		setup: "cp $ROOT/fixtures/sources/extended/X01.json result.json\n"},
	"contractcheck validate|contractcheck validate - < result.json": {
		setup: "cp $ROOT/fixtures/sources/paper/C05.json result.json\n"},
	"contractcheck validate|contractcheck validate --format json --output validation.json":    {},
	"contractcheck capture direct|contractcheck capture direct --suite paper --repetitions 1": {},
	"contractcheck capture direct|contractcheck capture direct --schemas my-schemas --contracts my-contracts --fixtures mine --revision DRAFT-2026-12-01 --output mine/observations/direct/v1/default.jsonl": {
		setup: draftLayerSetup},
	"contractcheck validate|contractcheck validate --schemas my-schemas --fixtures mine --revision DRAFT-2026-12-01": {
		setup: draftLayerSetup},
}

// draftLayerSetup copies testdata/draft-outputs (draftLayer) into an example's work directory:
// its schemas/ as my-schemas, its revision's source binding (contracts/revision.cue) as
// my-contracts, its sources (not their catalogue entries) as mine.
const draftLayerSetup = "mkdir my-schemas/mcp/DRAFT-2026-12-01 my-contracts mine/sources/drafts\n" +
	"cp $ROOT/cmd/contractcheck/" + draftLayer + "/schemas/mcp/DRAFT-2026-12-01/schema.json my-schemas/mcp/DRAFT-2026-12-01/schema.json\n" +
	"cp $ROOT/cmd/contractcheck/" + draftLayer + "/contracts/revision.cue my-contracts/revision.cue\n" +
	"cp $ROOT/cmd/contractcheck/" + draftLayer + "/fixtures/sources/drafts/D01.json $ROOT/cmd/contractcheck/" + draftLayer + "/fixtures/sources/drafts/D02.json " +
	"$ROOT/cmd/contractcheck/" + draftLayer + "/fixtures/sources/drafts/D03.json $ROOT/cmd/contractcheck/" + draftLayer + "/fixtures/sources/drafts/D04.json mine/sources/drafts\n"

// helpLines returns every example of every command's help: each line of Example (a line ending
// in a backslash continued by the next), and each line of Long that starts with "contractcheck ",
// keyed as helpExamples is.
func helpLines(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var cont string
		for _, l := range strings.Split(c.Example, "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			if cont != "" {
				l = cont + " " + l
			}
			if rest, ok := strings.CutSuffix(l, "\\"); ok {
				cont = strings.TrimSpace(rest)
				continue
			}
			cont = ""
			out = append(out, c.CommandPath()+"|"+l)
		}
		for _, l := range strings.Split(c.Long, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "contractcheck ") {
				out = append(out, c.CommandPath()+"|"+l)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// placeholder is a word of a synopsis that stands for something (DIR, ID, N).
var placeholder = regexp.MustCompile(`^[A-Z]+\.?$`)

// exampleScript turns an example line into testscript lines: commands joined by && run in turn
// (each before the last must exit 0), "< FILE" becomes the command's standard input and
// "> FILE" a copy of its standard output.
func exampleScript(line string, exit int) (string, error) {
	var b strings.Builder
	parts := strings.Split(line, " && ")
	for i, p := range parts {
		words := strings.Fields(p)
		if len(words) == 0 || words[0] != "contractcheck" {
			return "", fmt.Errorf("%q is not a contractcheck command", p)
		}
		var redirectOut string
		if n := len(words); n >= 2 && words[n-2] == "<" {
			fmt.Fprintf(&b, "stdin %s\n", words[n-1])
			p = strings.Join(words[:n-2], " ")
		} else if n >= 2 && words[n-2] == ">" {
			redirectOut = words[n-1]
			p = strings.Join(words[:n-2], " ")
		}
		code := 0
		if i == len(parts)-1 {
			code = exit
		}
		fmt.Fprintf(&b, "exits %d %s\n", code, p)
		if redirectOut != "" {
			fmt.Fprintf(&b, "cp stdout %s\n", redirectOut)
		}
	}
	return b.String(), nil
}

// TestHelpExamples runs every example of every --help text (the Example lines, and the lines of
// Long that start with "contractcheck "), each in a work directory of its own with the built-in
// data and the files it names, as written, and requires the exit code the help gives it (two
// examples that are the same commands with the same files, in two help texts, run once). A new
// example must be listed in helpExamples: run, a synopsis with placeholders, or skipped in this
// tier with the reason (a program, a server or the network).
func TestHelpExamples(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	lines := helpLines(newRootCommand())
	dir := t.TempDir()
	n := 0
	scripts := map[string]string{} // a script's commands and files → the name it runs under
	for i, key := range lines {
		ex, ok := helpExamples[key]
		if !ok {
			t.Errorf("the help example %q is not in helpExamples: say how it runs, or why it does not", key)
			continue
		}
		path, line, _ := strings.Cut(key, "|")
		switch {
		case ex.synopsis:
			words := strings.Fields(line)
			if !slices.ContainsFunc(words, placeholder.MatchString) && !strings.Contains(line, "(") {
				t.Errorf("%s: %q is listed as a synopsis but has no placeholder: run it", path, line)
			}
			continue
		case ex.skip != "":
			t.Logf("%s: %q not run in this tier: %s", path, line, ex.skip)
			continue
		}
		script, err := exampleScript(line, ex.exit)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s%s", ex.setup, script)
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range ex.files {
				if !yield(k) {
					return
				}
			}
		}) {
			fmt.Fprintf(&b, "-- %s --\n%s", name, ex.files[name])
		}
		name := fmt.Sprintf("%02d-%s.txtar", i, strings.NewReplacer(" ", "-", "/", "-").Replace(strings.TrimPrefix(path, "contractcheck ")))
		// Two help texts may show the same commands (check's and init's both show a check of
		// an init layer): the script runs once, under the first name, for both.
		if first, ok := scripts[b.String()]; ok {
			t.Logf("%s: %q runs as %s, the same commands", path, line, first)
			continue
		}
		scripts[b.String()] = name
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("# %s --help: %s\n\n%s", path, line, b.String())), 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	for key := range helpExamples {
		if !slices.Contains(lines, key) {
			t.Errorf("helpExamples lists %q, which no --help text holds any more", key)
		}
	}
	if n == 0 {
		t.Fatal("no help example to run")
	}
	// The examples share the test binary's model and result caches (TestMain's): an example shows
	// what a command does, not how its caches fill, which testdata/script/result-cache.txtar
	// covers; a command an earlier example ran on the same inputs reads its report back. They
	// run paced as the test process's other children are (testkit.Pace, testkit.PaceVars),
	// which changes no byte a command writes; how a user's plain run is paced is the scripts'
	// (TestScripts) and the benchmarks'.
	cache := os.Getenv("CONTRACTCHECK_CACHE")
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("LC_ALL", "C.UTF-8")
			env.Setenv("CONTRACTCHECK_CACHE", cache)
			env.Setenv("ROOT", root)
			for _, v := range testkit.PaceVars {
				env.Setenv(v, os.Getenv(v))
			}
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits},
	})
}
