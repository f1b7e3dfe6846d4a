package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/net/html"

	"github.com/contractcheck/contractcheck/internal/check"
	"github.com/contractcheck/contractcheck/internal/compare"
	"github.com/contractcheck/contractcheck/internal/escape"
	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/inputs"
	"github.com/contractcheck/contractcheck/internal/report"
	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/contractcheck/contractcheck/internal/validate"
)

// The hostile strings of a layer written by writeHostileLayer, where a test looks for them.
const (
	// hostileFixture, hostileTask and hostileFamily are a fixture id, a task id and a family
	// name: identifiers, which the contracts refuse to hold anything else
	// (TestHostileRestrictedPlaces), so these are the odd ones they allow.
	hostileFixture = "HX-2_b"
	hostileTask    = "T_hx-2"
	hostileFamily  = "fam.hx-2_b"
	// hostileRecordFile is the name of a .jsonl file of records, which every finding cites.
	hostileRecordFile = "rec\n::error file=X::file\x1b]0;t\x07\u202e|<s>.jsonl"
)

// issueKey is the carrier key of issue 25's report: workflow commands on their own lines, then
// ESC, BEL, NUL and U+202E.
const issueKey = "k\n::error file=X::pwned\n::add-mask::secret\n::stop-commands::tok\x1b[2J\x07\x00\u202e"

// hostileLayer is a contract, policy and fixture layer and its records, as check and compare read
// them (--contracts, --policies, --fixtures, --observations).
type hostileLayer struct {
	contracts, policies, fixtures, observations string
	// versions are lane hx's versions, "v1" first, and atoms the atoms of task HX: both from the
	// corpus (hostile.ID), in its order; carrierKeys the keys of the records' structuredContent.
	versions, atoms, carrierKeys []string
	// targets are the carrier keys that are targets of the fixtures, which compare reads.
	targets []string
	// failed is the version whose record failed, with the error failedError.
	failed, failedError string
	// sourceSha256 is the hash of every fixture's source, as a record names it.
	sourceSha256 string
}

// layerArgs are the flags that read the layer, with profile "hostile".
func (l *hostileLayer) args(verb string, more ...string) []string {
	args := []string{verb, "--contracts", l.contracts, "--policies", l.policies, "--fixtures", l.fixtures,
		"--observations", l.observations, "--profile", "hostile"}
	if verb == "check" {
		args = append(args, "--no-cache")
	}
	return append(args, more...)
}

// cueList is xs as a CUE list of strings (escape.CUE).
func cueList(xs []string) string {
	quoted := make([]string, len(xs))
	for i, x := range xs {
		quoted[i] = escape.CUE(x)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// writeHostileLayer writes a layer that puts the strings of cases in every place a layer and its
// records can hold one: lane hx's versions, atom names, a task's diagnostics (atom, path, expected
// and observed), a task id, a fixture id, a family name, a requirement's and a fixedBy clause's
// doc, a fixture's report (URL and atoms), the source's text and structuredContent keys, the
// records' carrier keys, values and texts, a record's execution error and the record file's name.
// The control lane (direct) reads the same fixtures unchanged, so the divergence census names
// them too.
func writeHostileLayer(t *testing.T, cases []hostile.Case) *hostileLayer {
	t.Helper()
	dir := t.TempDir()
	l := &hostileLayer{
		contracts: filepath.Join(dir, "contracts"), policies: filepath.Join(dir, "policies"),
		fixtures: filepath.Join(dir, "fixtures"), observations: filepath.Join(dir, "observations"),
		versions: []string{"v1"},
	}
	var all string
	for _, c := range cases {
		id := escape.ValidUTF8(hostile.ID(c, 48))
		l.versions = append(l.versions, "v-"+id)
		// CUE reads a label in NFC but a string as it is: an atom named with a combining
		// character would name no atom (TestHostileRestrictedPlaces), so its atom is composed.
		l.atoms = append(l.atoms, "hx."+strings.ReplaceAll(id, "e\u0301", "\u00e9"))
		l.carrierKeys = append(l.carrierKeys, id)
		if c.Name == "all" {
			all = c.S
		}
	}
	if all == "" {
		all = cases[len(cases)-1].S
	}
	l.carrierKeys = append(l.carrierKeys, issueKey)
	// The error of the failed record holds the whole of every string, the long one too; a
	// diagnostic, repeated at every binding, holds them cut (capped).
	var whole strings.Builder
	for _, c := range cases {
		whole.WriteString(c.S)
	}
	l.failed, l.failedError = l.versions[len(l.versions)-1], "the lane failed: "+whole.String()

	// The sources: a text and a structuredContent that the records change.
	structured := map[string]any{"a": json.Number("1")}
	for _, k := range l.carrierKeys {
		structured[k] = "source " + k
	}
	source, err := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": "source text " + all}}, "structuredContent": structured})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(source)
	l.sourceSha256 = hex.EncodeToString(sum[:])
	fixtureIDs := []string{"HX1", hostileFixture}
	for _, id := range fixtureIDs {
		testkit.WriteFile(t, filepath.Join(l.fixtures, "sources", "hostile", id+".json"), string(source))
	}

	// The contracts.
	var b strings.Builder
	fmt.Fprintf(&b, "package contracts\n\nlanes: hx: {\n\tdoc: %s\n\torigin: \"captured\"\n\tversions: %s\n", escape.CUE("A lane whose versions hold "+all), cueList(l.versions))
	b.WriteString("\tconfigurations: default: doc: \"The only configuration.\"\n\tstages: {\n")
	b.WriteString("\t\tD1: {exposure: \"observed\", doc: \"The carrier as recorded.\", carrier: _mcpSourceCarrier, compartments: _mcpCompartments}\n")
	for _, st := range []string{"A2", "M3", "H4"} {
		fmt.Fprintf(&b, "\t\t%s: {exposure: \"not_observable\", doc: \"No seam.\", compartments: {}}\n", st)
	}
	b.WriteString("\t}\n}\n\n")
	for _, a := range l.atoms {
		fmt.Fprintf(&b, "atoms: %s: doc: %s\n", escape.CUE(a), escape.CUE("The atom "+a))
	}
	tasks := []string{"T1", "T2", "HX", hostileTask}
	// A fixture's tasks and a profile's are task ids (#TaskID), which the hostile task's id is
	// not: it selects the fixtures itself, and the profile evaluates every task.
	for _, id := range tasks[2:] {
		fmt.Fprintf(&b, "\ntasks: %s: {\n\tdoc: %s\n\trole: \"primary\"\n\tpolicy: \"hostile.hx\"\n\tcompartment: \"structured\"\n\tatoms: %s\n\tappliesTo: fixtures: [\"HX*\"]\n}\n",
			escape.CUE(id), escape.CUE("Diagnostics that hold "+all), cueList(l.atoms))
	}
	fmt.Fprintf(&b, "\nfamilies: %s: {doc: %s, census: \"primary\"}\n", escape.CUE(hostileFamily), escape.CUE(all))
	targets := []string{"/a"}
	l.targets = l.carrierKeys[:min(4, len(l.carrierKeys))]
	for _, k := range l.targets {
		targets = append(targets, "/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
	}
	for i, id := range fixtureIDs {
		family := "structured"
		if i > 0 {
			family = hostileFamily
		}
		fmt.Fprintf(&b, "\nfixtures: %s: {\n\tsuite: \"hostile\"\n\tfamily: %s\n\trevision: \"2025-06-18\"\n\ttasks: %s\n\tdoc: %s\n\ttargets: %s\n",
			escape.CUE(id), escape.CUE(family), cueList(tasks[:2]), escape.CUE(all), cueList(targets))
		if i == 0 {
			fmt.Fprintf(&b, "\treport: {\n\t\turl: %s\n\t\tfix: []\n\t\tlane: \"hx\"\n\t\tbuggy: \"v1\"\n\t\tfixed: %s\n\t\tstages: [\"D1\"]\n\t\ttasks: [\"HX\"]\n\t\tatoms: %s\n\t\tloses: %s\n\t}\n",
				escape.CUE("https://github.com/o/r/issues/1) [x](javascript:alert(1)) "+all), escape.CUE(l.versions[1]), cueList(l.atoms[:min(2, len(l.atoms))]), escape.CUE(all))
		}
		b.WriteString("}\n")
	}
	fmt.Fprintf(&b, "\nprofiles: hostile: {\n\tdoc: %s\n\tnullPolicy: \"strict\"\n\trequire: [{doc: %s, lanes: [\"hx\"], outcomes: [\"pass\"]}]\n",
		escape.CUE(all), escape.CUE("Hostile requirement "+all))
	fmt.Fprintf(&b, "\tfixedBy: [{doc: %s, lane: \"hx\", from: \"v1\", to: %s, atoms: %s}]\n}\n",
		escape.CUE("Hostile fix "+all), escape.CUE(l.versions[1]), cueList(l.atoms[:1]))
	testkit.WriteFile(t, filepath.Join(l.contracts, "hostile.cue"), b.String())

	// The policy: a diagnostic per atom, its path and expected value the case's string, and one
	// per carrier key that the source does not hold as it is. Its strings are escape.JSON's: a
	// Rego string literal is a JSON string.
	var p strings.Builder
	p.WriteString("package hostile.hx\n\n_atoms := [\n")
	for _, a := range l.atoms {
		fmt.Fprintf(&p, "\t%s,\n", escape.JSON(a))
	}
	p.WriteString("]\n\n_strings := [\n")
	for _, c := range cases {
		fmt.Fprintf(&p, "\t%s,\n", escape.JSON(capped(c.S)))
	}
	p.WriteString("]\n\n")
	p.WriteString("diagnostics contains d if {\n\tsome i, a in _atoms\n\td := {\"atom\": a, \"path\": concat(\"\", [\"/\", _strings[i]]), \"kind\": \"missing\", \"expected\": _strings[i]}\n}\n\n")
	p.WriteString("diagnostics contains d if {\n\tsome k, v in object.get(input.observed, \"structured\", {})\n\tk != \"a\"\n\td := {\"atom\": _atoms[0], \"path\": concat(\"/\", [\"\", k]), \"kind\": \"altered\", \"expected\": k, \"observed\": v}\n}\n")
	testkit.WriteFile(t, filepath.Join(l.policies, "hostile.rego"), p.String())

	// The records: the control lane reads each source back; lane hx, at each version, changes
	// the text and every value of structuredContent; its last version failed.
	var hx, direct strings.Builder
	record := func(w *strings.Builder, fixture, lane, version string, carrier any, failed string) {
		rec := map[string]any{"fixture": fixture, "lane": lane, "laneVersion": version, "configuration": "default", "stage": "D1",
			"repetition": 1, "sourceSha256": hex.EncodeToString(sum[:]), "origin": "captured"}
		if failed != "" {
			rec["state"], rec["error"] = "execution_failed", failed
		} else {
			rec["state"], rec["carrier"] = "captured", carrier
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	var src any
	if err := json.Unmarshal(source, &src); err != nil {
		t.Fatal(err)
	}
	changed := map[string]any{"a": json.Number("1")}
	for _, k := range l.carrierKeys {
		changed[k] = "observed " + k
	}
	for _, id := range fixtureIDs {
		record(&direct, id, "direct", "v1", src, "")
		for i, v := range l.versions {
			if i > 0 && id != "HX1" {
				break
			}
			failed := ""
			if v == l.failed {
				failed = l.failedError
			}
			carrier := map[string]any{"content": []any{map[string]any{"type": "text", "text": "observed " + all}}, "structuredContent": changed}
			record(&hx, id, "hx", v, carrier, failed)
		}
	}
	testkit.WriteFile(t, filepath.Join(l.observations, hostileRecordFile), hx.String())
	testkit.WriteFile(t, filepath.Join(l.observations, "direct.jsonl"), direct.String())
	return l
}

// shorten cuts a line for a failure message.
func shorten(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestCheckDetailsCarrierKeyIsEscaped is issue 25's report: `check --details` printed a carrier
// key holding workflow commands on lines of their own, ESC, BEL, NUL and U+202E as it was, so
// that the commands started lines of the CI log and the controls reached the terminal. Each
// text format and the error output now show the key escaped, on the line of its finding.
func TestCheckDetailsCarrierKeyIsEscaped(t *testing.T) {
	l := writeHostileLayer(t, []hostile.Case{{Name: "issue", S: issueKey}})
	for _, tc := range []struct {
		name string
		args []string
	}{
		{name: "text details", args: []string{"--details"}},
		{name: "text", args: nil},
		{name: "table details", args: []string{"--format", "table", "--details"}},
		{name: "tap", args: []string{"--format", "tap"}},
		{name: "markdown", args: []string{"--format", "markdown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, l.args("check", tc.args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (violations); stderr:\n%s", code, stderr)
			}
			testkit.TerminalSafe(t, "stdout", stdout, false)
			testkit.TerminalSafe(t, "stderr", stderr, false)
		})
	}
	// The key is on the line of its diagnostic, every character of it visible (on a line wide
	// enough to hold it: a text line is cut at the width).
	t.Setenv("COLUMNS", "5000")
	_, stdout, _ := cli(t, l.args("check", "--details")...)
	if want := `/k\n::error file=X::pwned\n::add-mask::secret\n::stop-commands::tok\u001b[2J\u0007\u0000\u202e altered`; !strings.Contains(stdout, want) {
		t.Errorf("check --details does not show the key escaped on its line (%s):\n%s", want, stdout)
	}
}

// capped is s cut to 4 KiB: long enough for every line it reaches to be cut at the width, short
// enough that the reports of a few hundred bindings stay small.
func capped(s string) string {
	if len(s) > 4096 {
		return s[:4096]
	}
	return s
}

// sinkCheck holds one format's output to its grammar.
type sinkCheck func(t *testing.T, l *hostileLayer, out string)

// TestHostileStringsEveryFormat writes the whole hostile corpus into a layer (writeHostileLayer),
// checks and compares it, and writes the check's report in every format, with and without
// --details, and the compare's in every format. Each output is held to its grammar: text, table
// and stderr show no control or bidi character and no line a CI runner reads as a command; TAP
// parses as TAP; a markdown table keeps its columns and no raw HTML; JSON and SARIF parse and
// give the strings back; JUnit and HTML parse as XML and HTML with no element of the data;
// --format github writes only its own workflow commands, their properties and messages escaped
// as the Actions toolkit reads them.
//
// The check and the compare run once each on the command line, in JSON (what the CLI adds: the
// flags, the exit code, stderr); the other formats are those runs' reports, each made once in
// the process (check.Execute with the html format's views, compare.Run) and written by every
// formatter of the registries the CLI resolves its --format in. The JSON the process writes is
// the command line's, byte for byte: the reports the formats are given are the CLI's.
func TestHostileStringsEveryFormat(t *testing.T) {
	t.Parallel()
	l := writeHostileLayer(t, hostile.Cases())
	text := func(t *testing.T, _ *hostileLayer, out string) { testkit.TerminalSafe(t, "stdout", out, false) }
	cliJSON := func(args []string, exit int) string {
		code, stdout, stderr := cli(t, args...)
		if code != exit {
			t.Fatalf("%s: exit %d, want %d; stderr:\n%s", args[0], code, exit, shorten(stderr))
		}
		testkit.TerminalSafe(t, args[0]+" stderr", stderr, true)
		return stdout
	}
	checkJSON := cliJSON(l.args("check", "--format", "json"), 1)
	compareJSON := cliJSON(l.args("compare", "--format", "json"), 0)

	opts := inputs.Options{Contracts: []string{l.contracts}, Policies: []string{l.policies}, Fixtures: []string{l.fixtures},
		Observations: []string{l.observations}, Profile: "hostile"}
	run, err := check.Execute(t.Context(), check.Request{Options: opts, Views: true})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if got := run.Report.ExitCode(); got != 1 {
		t.Fatalf("check: the report's exit code is %d, want 1 (violations)", got)
	}
	cmp, err := compare.Run(t.Context(), compare.Options{Options: opts})
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	style := report.StyleFor(io.Discard, os.Getenv) // what the CLI writing to a pipe uses
	writeCheck := func(format string, details bool) (string, error) {
		f, err := report.Outputters().Resolve(format)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = f.New(report.Options{Details: details, Style: style, ToolVersion: toolVersion(), Views: run.Views}).Output(&buf, run.Report)
		return buf.String(), err
	}
	writeCompare := func(format string, details bool) (string, error) {
		var buf bytes.Buffer
		err := compare.Outputters().Write(&buf, format, report.Options{Details: details}, cmp)
		return buf.String(), err
	}
	for _, tc := range []struct {
		name    string
		write   func(format string, details bool) (string, error)
		format  string
		details bool
		check   sinkCheck
	}{
		{name: "check text", write: writeCheck, format: "text", check: text},
		{name: "check text details", write: writeCheck, format: "text", details: true, check: text},
		{name: "check table", write: writeCheck, format: "table", check: assertTable},
		{name: "check table details", write: writeCheck, format: "table", details: true, check: assertTable},
		{name: "check tap", write: writeCheck, format: "tap", check: assertTAP},
		{name: "check markdown", write: writeCheck, format: "markdown", check: assertMarkdown},
		{name: "check json", write: writeCheck, format: "json", check: assertJSONStrings(true, false)},
		{name: "check sarif", write: writeCheck, format: "sarif", check: assertJSONStrings(false, false)},
		{name: "check junit", write: writeCheck, format: "junit", check: assertJUnit},
		{name: "check github", write: writeCheck, format: "github", check: assertGitHub},
		{name: "check html", write: writeCheck, format: "html", check: assertHTML(2)},
		{name: "compare text", write: writeCompare, format: "text", check: text},
		{name: "compare text details", write: writeCompare, format: "text", details: true, check: text},
		{name: "compare markdown", write: writeCompare, format: "markdown", check: assertMarkdown},
		{name: "compare json", write: writeCompare, format: "json", check: assertJSONStrings(false, true)},
		{name: "compare html", write: writeCompare, format: "html", check: assertHTML(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.write(tc.format, tc.details)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, l, out)
			if want := map[string]string{"check json": checkJSON, "compare json": compareJSON}[tc.name]; want != "" && out != want {
				t.Errorf("the report written here is not the command line's (%d bytes, the CLI's %d): the formats were not given the CLI's report", len(out), len(want))
			}
		})
	}
}

// assertTable: the table is text, and, its rows never cut, shows every version as
// escape.Terminal writes it.
func assertTable(t *testing.T, l *hostileLayer, out string) {
	t.Helper()
	testkit.TerminalSafe(t, "stdout", out, false)
	for _, v := range l.versions {
		if !strings.Contains(out, escape.Terminal(v)) {
			t.Errorf("the table does not show version %q as %q", v, escape.Terminal(v))
		}
	}
}

var (
	tapTestLine = regexp.MustCompile(`^(not )?ok \d+( - (.*))?$`)
	tapPlan     = regexp.MustCompile(`^1\.\.(\d+)$`)
)

// assertTAP parses the output as TAP 14: the version, a plan, test points whose description
// holds no unescaped '#', comments, and YAML blocks (indented "---" to "...") that
// go.yaml.in/yaml/v3 parses; the plan counts the test points, and each block's record is the
// record file's path, read back whole.
func assertTAP(t *testing.T, l *hostileLayer, out string) {
	t.Helper()
	testkit.TerminalSafe(t, "stdout", out, false)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) == 0 || lines[0] != "TAP version 14" {
		t.Fatalf("no TAP version line: %q", shorten(out))
	}
	plan, points, blocks, ats := -1, 0, 0, 0
	for i := 1; i < len(lines); i++ {
		line := lines[i]
		switch {
		case tapPlan.MatchString(line):
			plan, _ = strconv.Atoi(tapPlan.FindStringSubmatch(line)[1])
		case tapTestLine.MatchString(line):
			points++
			desc := tapTestLine.FindStringSubmatch(line)[3]
			for j := 0; j < len(desc); j++ {
				if desc[j] == '\\' {
					j++
				} else if desc[j] == '#' {
					t.Errorf("line %d: the description holds an unescaped '#' (a directive): %q", i+1, shorten(line))
					break
				}
			}
		case strings.HasPrefix(line, "#"):
		case line == "  ---":
			var block []string
			for i++; i < len(lines) && lines[i] != "  ..."; i++ {
				if !strings.HasPrefix(lines[i], "  ") {
					t.Fatalf("line %d: a YAML block line not indented: %q", i+1, shorten(lines[i]))
				}
				block = append(block, lines[i][2:])
			}
			if i == len(lines) {
				t.Fatalf("a YAML block has no end")
			}
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(strings.Join(block, "\n")), &doc); err != nil {
				t.Fatalf("line %d: the YAML block does not parse: %v\n%s", i+1, err, shorten(strings.Join(block, "\n")))
			}
			blocks++
			if at, ok := doc["at"].(string); ok {
				ats++
				if !strings.Contains(at, hostileRecordFile+":") && !strings.HasSuffix(filepath.Dir(at), "observations") {
					t.Errorf("line %d: at %q is not a record of the layer", i+1, at)
				}
				if strings.Contains(at, "rec") && !strings.Contains(at, hostileRecordFile) {
					t.Errorf("line %d: at %q does not read back as the record file %q", i+1, at, hostileRecordFile)
				}
			}
		default:
			t.Errorf("line %d is not TAP: %q", i+1, shorten(line))
		}
	}
	if plan != points {
		t.Errorf("the plan says %d test points, the output has %d", plan, points)
	}
	if blocks == 0 || ats == 0 {
		t.Errorf("no failing test point with a record (%d YAML blocks)", blocks)
	}
}

// assertMarkdown: text for a log too; every row of a table has the header's cells; no raw
// '<' outside code spans.
func assertMarkdown(t *testing.T, _ *hostileLayer, out string) {
	t.Helper()
	testkit.TerminalSafe(t, "stdout", out, false)
	cells := -1
	for n, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = -1
		} else if cells < 0 {
			cells = hostile.MarkdownCells(line)
		} else if got := hostile.MarkdownCells(line); got != cells {
			t.Errorf("line %d: a table row of %d cells under a header of %d: %q", n+1, got-1, cells-1, shorten(line))
		}
		if strings.Contains(hostile.OutsideCode(line), "<") {
			t.Errorf("line %d: raw '<' outside code: %q", n+1, shorten(line))
		}
	}
}

// jsonStrings collects every key and string value of a JSON document.
func jsonStrings(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case []any:
		for _, e := range x {
			jsonStrings(e, into)
		}
	case map[string]any:
		for k, e := range x {
			into[k] = true
			jsonStrings(e, into)
		}
	}
}

// assertJSONStrings parses the output with encoding/json and finds the layer's hostile strings
// in it: as whole strings (exact), or inside longer ones (a message that names them); the
// carrier keys that are targets only, when targets (compare reads the targets, not the carrier).
func assertJSONStrings(exact, targets bool) sinkCheck {
	return func(t *testing.T, l *hostileLayer, out string) {
		t.Helper()
		var doc any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("the output is not JSON: %v", err)
		}
		all := map[string]bool{}
		jsonStrings(doc, all)
		keys := l.carrierKeys
		if targets {
			keys = l.targets
		}
		want := append(append([]string{hostileFixture}, l.versions...), keys...)
		if exact {
			want = append(append(want, hostileTask, hostileFamily), l.atoms...)
		}
		for _, s := range want {
			s = escape.ValidUTF8(s)
			if all[s] {
				continue
			}
			found := false
			for got := range all {
				if !exact && strings.Contains(got, s) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("the JSON does not give %q back", shorten(s))
			}
		}
	}
}

// xmlText is s as encoding/xml writes it: each character XML 1.0 does not allow as U+FFFD.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 0x09 || r == 0x0a || r == 0x0d || (r >= 0x20 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= 0x10ffff) {
			return r
		}
		return 0xfffd
	}, escape.ValidUTF8(s))
}

// assertJUnit parses the output with encoding/xml to its end and finds every version of the
// layer in a test case, as XML 1.0 can hold it.
func assertJUnit(t *testing.T, l *hostileLayer, out string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(out))
	var texts []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the JUnit XML does not parse: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			for _, a := range x.Attr {
				texts = append(texts, a.Value)
			}
		case xml.CharData:
			texts = append(texts, string(x))
		}
	}
	joined := strings.Join(texts, "\x00")
	for _, v := range l.versions {
		if !strings.Contains(joined, xmlText(v)) {
			t.Errorf("the JUnit XML does not give version %q back", v)
		}
	}
}

// githubLine is a workflow command as --format github writes one.
var githubLine = regexp.MustCompile(`^::(error|warning|notice) ([^:]*)::(.*)$`)

// githubUnescape reads a command's escaped text back: %25, %0D, %0A, and in a property %3A and
// %2C. Any other '%' is an error: the toolkit writes no other.
func githubUnescape(s string, property bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("a dangling %% in %q", s)
		}
		switch code := s[i+1 : i+3]; {
		case code == "25":
			b.WriteByte('%')
		case code == "0D":
			b.WriteByte('\r')
		case code == "0A":
			b.WriteByte('\n')
		case property && code == "3A":
			b.WriteByte(':')
		case property && code == "2C":
			b.WriteByte(',')
		default:
			return "", fmt.Errorf("%%%s is not an escape of the toolkit in %q", code, s)
		}
		i += 2
	}
	return b.String(), nil
}

// assertGitHub: every line is one of the commands the format writes (error, warning, notice),
// its properties name=value without a raw ',' or ':', its message without a raw line break, and
// both read back with the toolkit's escapes; the hostile line breaks and commands of the data are
// inside them, read back whole.
func assertGitHub(t *testing.T, l *hostileLayer, out string) {
	t.Helper()
	// Every line is for the log and shows no control or bidi character: a record path that holds
	// one is named in the message, escaped, not in a file property.
	var unescaped []string
	for n, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := githubLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("line %d is not a workflow command of the format: %q", n+1, shorten(line))
			continue
		}
		if f := testkit.TerminalUnsafe(line, true); f != "" {
			t.Errorf("line %d holds %s: %q", n+1, f, shorten(line))
		}
		for _, p := range strings.Split(m[2], ",") {
			name, value, ok := strings.Cut(p, "=")
			if !ok || (name != "file" && name != "line" && name != "title") {
				t.Errorf("line %d: property %q is not one the format writes", n+1, shorten(p))
				continue
			}
			v, err := githubUnescape(value, true)
			if err != nil {
				t.Errorf("line %d: %v", n+1, err)
			}
			unescaped = append(unescaped, v)
		}
		msg, err := githubUnescape(m[3], false)
		if err != nil {
			t.Errorf("line %d: %v", n+1, err)
		}
		unescaped = append(unescaped, msg)
	}
	joined := strings.Join(unescaped, "\x00")
	for _, s := range []string{escape.TerminalLines(hostileRecordFile), l.versions[1], "\n::error file=X::"} {
		if !strings.Contains(joined, escape.ValidUTF8(s)) {
			t.Errorf("no annotation reads back as holding %q", s)
		}
	}
}

// assertHTML parses the page with golang.org/x/net/html: it holds the page's own scripts only,
// and no element or event handler of the data (the corpus holds <script>, <img onerror=…>); and
// no line of it, printed to a CI log, starts a command (the data's line breaks are references).
func assertHTML(scripts int) sinkCheck {
	return func(t *testing.T, _ *hostileLayer, out string) {
		t.Helper()
		doc, err := html.Parse(strings.NewReader(out))
		if err != nil {
			t.Fatalf("the HTML does not parse: %v", err)
		}
		n := 0
		var walk func(*html.Node)
		walk = func(node *html.Node) {
			if node.Type == html.ElementNode {
				switch node.Data {
				case "script":
					n++
					if node.FirstChild != nil && strings.Contains(node.FirstChild.Data, `alert("x")`) {
						t.Errorf("a script holds the data's script")
					}
				case "img", "iframe", "object", "embed":
					t.Errorf("an element <%s> of the data", node.Data)
				}
				for _, a := range node.Attr {
					if strings.HasPrefix(a.Key, "on") {
						t.Errorf("an event handler %s=%q of the data", a.Key, shorten(a.Val))
					}
				}
			}
			for c := node.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		for i, line := range strings.Split(out, "\n") {
			if escape.CommandStart(line) {
				t.Errorf("line %d of the page starts a CI command: %q", i+1, shorten(line))
			}
		}
		if n != scripts {
			t.Errorf("%d script elements, want the page's own %d", n, scripts)
		}
	}
}

// TestHostileRestrictedPlaces covers the places that cannot hold a hostile string: the
// run refuses it with exit 2, naming the file and line (of the record, or of the contract), and
// the message that names the string is as safe for the log as any other output.
func TestHostileRestrictedPlaces(t *testing.T) {
	t.Parallel()
	bad := "x\n::error file=X::pwned\x1b[31m\x07\x00\u202e"
	record := func(l *hostileLayer, field string, value any) string {
		rec := map[string]any{"fixture": "HX1", "lane": "hx", "laneVersion": "v1", "configuration": "default", "stage": "D1",
			"repetition": 1, "state": "captured", "carrier": map[string]any{"content": []any{}}, "origin": "captured",
			"sourceSha256": l.sourceSha256}
		rec[field] = value
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	// The cases that change only the records share one layer of contracts, policies and fixtures
	// (its model evaluated once), each with a copy of its records of its own.
	shared := writeHostileLayer(t, []hostile.Case{{Name: "newline", S: "k\n::error::x"}})
	for _, tc := range []struct {
		name string
		// edit changes the layer; the run must fail at the file:line that at matches.
		edit func(t *testing.T, l *hostileLayer)
		at   string
		// records: edit changes only the layer's records.
		records bool
	}{
		{name: "lane name", at: `bad\.jsonl:1: /lane`, records: true, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.observations, "bad.jsonl"), record(l, "lane", bad))
		}},
		{name: "configuration", at: `bad\.jsonl:1: /configuration`, records: true, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.observations, "bad.jsonl"), record(l, "configuration", bad))
		}},
		{name: "unknown fixture id", at: `bad\.jsonl:1: /fixture`, records: true, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.observations, "bad.jsonl"), record(l, "fixture", bad))
		}},
		{name: "undeclared lane version", at: `bad\.jsonl:1: /laneVersion`, records: true, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.observations, "bad.jsonl"), record(l, "laneVersion", bad))
		}},
		{name: "invalid UTF-8 in a record", at: `bad\.jsonl:1`, records: true, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.observations, "bad.jsonl"), strings.Replace(record(l, "notes", "NOTES"), "NOTES", "\xff\xfe\x1b\n::error::x", 1))
		}},
		{name: "task id", at: `hostile3\.cue:\d+:\d+: task "Tx\\n::error`, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.contracts, "hostile3.cue"), "package contracts\n\ntasks: "+escape.CUE("T"+bad)+
				": {doc: \"x\", role: \"guard\", policy: \"hostile.hx\", compartment: \"structured\", atoms: []}\n")

		}},
		{name: "fixture id", at: `hostile3\.cue:\d+:\d+: fixture "HXx\\n::error`, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.contracts, "hostile3.cue"), "package contracts\n\nfixtures: "+escape.CUE("HX"+bad)+
				": {suite: \"hx\", family: \"structured\", revision: \"2025-11-25\", tasks: [], doc: \"x\", targets: []}\n")

		}},
		{name: "family name", at: `hostile3\.cue:\d+:\d+: family "famx\\n::error`, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.contracts, "hostile3.cue"), "package contracts\n\nfamilies: "+escape.CUE("fam"+bad)+": {doc: \"x\", census: \"primary\"}\n")
		}},
		{name: "profile name", at: `hostile3\.cue:\d+:\d+: profile "px\\n::error`, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.contracts, "hostile3.cue"), "package contracts\n\nprofiles: "+escape.CUE("p"+bad)+": {doc: \"x\", nullPolicy: \"strict\", require: []}\n")
		}},
		{name: "lane configuration", at: `hostile3\.cue:\d+:\d+: lanes\.hx\.configurations\."cx\\n::error.*: field not allowed`, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.contracts, "hostile3.cue"), "package contracts\n\nlanes: hx: configurations: "+escape.CUE("c"+bad)+": doc: \"x\"\n")
		}},
		{name: "atom name with a combining character", at: `hostile2\.cue:\d+:\d+: `, edit: func(t *testing.T, l *hostileLayer) {
			testkit.WriteFile(t, filepath.Join(l.contracts, "hostile2.cue"), "package contracts\n\natoms: \"hx.e\\u0301\": doc: \"Decomposed.\"\n\n"+
				"tasks: HY: {doc: \"x\", role: \"guard\", policy: \"hostile.hx\", compartment: \"structured\", atoms: [\"hx.e\\u0301\"]}\n")

		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l *hostileLayer
			if tc.records {
				own := *shared
				own.observations = filepath.Join(t.TempDir(), "observations")
				if err := os.CopyFS(own.observations, os.DirFS(shared.observations)); err != nil {
					t.Fatal(err)
				}
				l = &own
			} else {
				l = writeHostileLayer(t, []hostile.Case{{Name: "newline", S: "k\n::error::x"}})
			}
			tc.edit(t, l)
			code, stdout, stderr := cli(t, l.args("check")...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, shorten(stderr))
			}
			if !regexp.MustCompile(tc.at).MatchString(stderr) {
				t.Errorf("stderr names no %s:\n%s", tc.at, shorten(stderr))
			}
			testkit.TerminalSafe(t, "stdout", stdout, false)
			testkit.TerminalSafe(t, "stderr", stderr, true)
		})
	}
}

// TestHostileStringsValidateFormats writes validate's results in every format of the verb, a
// valid and an invalid source named, revisioned and refused with each string of the corpus:
// text shows no control or bidi character and no line a CI runner reads as a command, and JSON
// parses and gives every string back (invalid UTF-8 as U+FFFD, as encoding/json writes it).
func TestHostileStringsValidateFormats(t *testing.T) {
	t.Parallel()
	sinks := map[string]func(t *testing.T, s, out string){
		"text": func(t *testing.T, s, out string) {
			testkit.TerminalSafe(t, "validate text", out, false)
			if n := strings.Count(out, "\n"); n != 1 {
				t.Errorf("validate text: %d lines, want the valid source's one:\n%s", n, out)
			}
		},
		"json": func(t *testing.T, s, out string) {
			var doc struct {
				Sources []struct {
					File, Revision, Kind, Error string
					Valid                       bool
				}
				Valid, Invalid int
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("validate json does not parse: %v\n%s", err, shorten(out))
			}
			want := escape.ValidUTF8(s)
			if len(doc.Sources) != 2 || doc.Valid != 1 || doc.Invalid != 1 {
				t.Fatalf("validate json: %+v, want a valid and an invalid source", doc)
			}
			ok, bad := doc.Sources[0], doc.Sources[1]
			if ok.File != "dir/"+want || ok.Kind != want || !ok.Valid || ok.Error != "" {
				t.Errorf("validate json: the valid source is %+v", ok)
			}
			if bad.File != want || bad.Revision != want || bad.Valid || bad.Error != want+": /content/0/uri "+want {
				t.Errorf("validate json: the invalid source is %+v", bad)
			}
		},
	}
	for _, format := range validateOutputters.Names() {
		if sinks[format] == nil {
			t.Errorf("validate --format %s: no hostile-string check for it here", format)
		}
	}
	for _, c := range hostile.Cases() {
		for _, format := range validateOutputters.Names() {
			t.Run(c.Name+"/"+format, func(t *testing.T) {
				results := []validate.Validated{
					{File: "dir/" + c.S, Revision: "2025-11-25", Kind: c.S},
					{File: c.S, Revision: c.S, Err: errors.New(c.S + ": /content/0/uri " + c.S)},
				}
				out := output[[]validate.Validated]{Format: format, formats: validateOutputters}
				f, err := out.resolve(report.Options{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				if err := f.Output(&b, results); err != nil {
					t.Fatal(err)
				}
				if assert := sinks[format]; assert != nil {
					assert(t, c.S, b.String())
				}
			})
		}
	}
}
