package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
)

// TestIssue43Frictions lists the seven frictions of issue 43 (a draft MCP revision whose results
// have no top-level content, tried as a user layer) and shows each gone, on the test layers
// testdata/draft-outputs (draftLayer) and testdata/draft-selectors (selectorLayer). Each case names
// the tests that cover the friction in depth; this table is the issue's done-when in one place.
func TestIssue43Frictions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// args are the command's arguments; setup, when set, returns them instead, from a
		// work directory of the case's own.
		args  []string
		setup func(t *testing.T, dir string) []string
		exit  int
		want  []string // substrings of the output, in order
		// check, when set, reads the output further.
		check func(t *testing.T, stdout, stderr string)
	}{{
		// 1. A dated draft directory (mcp/2026-12-01-draft/) was refused with "load schemas: load
		// schemas: … not an MCP revision name". Also: internal/schema TestRevisionNames and the
		// names step of docs/writing-a-contract.md (TestWalkthrough).
		name: "1 a dated draft is a revision name; another name is refused once, with the three forms",
		setup: func(t *testing.T, dir string) []string {
			schema, err := os.ReadFile(filepath.Join(draftLayer, "schemas", "mcp", "DRAFT-2026-12-01", "schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, filepath.Join(dir, "s", "mcp", "2026-12-01-draft", "schema.json"), strings.ReplaceAll(string(schema), "DRAFT-2026-12-01", "2026-12-01-draft"))
			copyFile(t, filepath.Join(draftLayer, "fixtures", "sources", "drafts", "D01.json"), filepath.Join(dir, "D01.json"))
			return []string{"validate", "--schemas", filepath.Join(dir, "s"), "--revision", "2026-12-01-draft", filepath.Join(dir, "D01.json")}
		},
		want: []string{"D01.json (2026-12-01-draft, result)"},
	}, {
		name: "1 a name that is none of the three forms: one message, no doubled prefix",
		setup: func(t *testing.T, dir string) []string {
			testkit.WriteFile(t, filepath.Join(dir, "n", "mcp", "next", "schema.json"), `{"$defs": {"CallToolResult": {"type": "object"}, "JSONRPCResultResponse": {}, "JSONRPCErrorResponse": {}}}`)
			return []string{"check", "--schemas", filepath.Join(dir, "n")}
		},
		exit: 2,
		want: []string{"contractcheck: load schemas: ", `not an MCP revision name: "next" is none of these`, "DRAFT-<name>"},
		check: func(t *testing.T, _, out string) {
			if n := strings.Count(out, "load schemas:"); n != 1 {
				t.Errorf("the message says \"load schemas:\" %d times, want once", n)
			}
		},
	}, {
		// 2. A draft whose $id is a urn: its relative $refs broke and a JSON-RPC envelope failed
		// with "causing reference cycle", blamed on the source. Also: internal/schema's $id tests,
		// TestCaptureDirect (draftLayer).
		name: "2 a urn $id: relative refs resolve, a JSON-RPC response of the draft validates",
		args: []string{"validate", "--schemas", filepath.Join(draftLayer, "schemas"), "--contracts", filepath.Join(draftLayer, "contracts"),
			"--fixtures", filepath.Join(draftLayer, "fixtures"), "--revision", "DRAFT-2026-12-01"},
		want: []string{"D01.json (DRAFT-2026-12-01, result)", "D04.json (DRAFT-2026-12-01, result response)"},
		check: func(t *testing.T, out, _ string) {
			if strings.Contains(out, "cycle") {
				t.Errorf("a reference cycle is reported:\n%s", out)
			}
		},
	}, {
		// 3. validate --revision said "no catalogued source has this revision: nothing to
		// validate" though the layer held sources of it.
		name: "3 validate --revision finds a layer's uncatalogued sources",
		args: append([]string{"validate"}, draftArgs("")...),
		want: []string{"D1.json (DRAFT-2026-12-01, result)", "D2.json (DRAFT-2026-12-01, result)", "D3.json (DRAFT-2026-12-01, result)"},
		check: func(t *testing.T, out, _ string) {
			if strings.Contains(out, "nothing to validate") {
				t.Errorf("validate found nothing:\n%s", out)
			}
		},
	}, {
		// 4. Uncatalogued sources of the draft got "no task applies to the fixture": what a source
		// holds was read from top-level content and structuredContent only. Also:
		// TestDraftRevisionBinding.
		name: "4 an uncatalogued draft source derives its tasks through its revision's binding",
		args: append([]string{"inspect", "fixture", "D1"}, draftArgs("")...),
		want: []string{"revision   DRAFT-2026-12-01", `binding    revisions."DRAFT-2026-12-01".source`, "tasks      T1, T2", "holds      structured, content"},
	}, {
		// 5. No verb wrote the control lane's records for a layer's sources, and the control lane's
		// carrier schema accepted only the pinned revisions. Also: TestCaptureDirect,
		// TestDraftControlLane.
		name: "5 capture direct writes the control's records of a draft, and the control passes them",
		setup: func(t *testing.T, dir string) []string {
			out := filepath.Join(dir, "obs", "direct", "v1", "default.jsonl")
			if code, _, stderr := cli(t, append([]string{"capture", "direct", "--repetitions", "1", "--output", out}, draftArgs("")...)...); code != 0 {
				t.Fatalf("capture direct: exit %d\n%s", code, stderr)
			}
			return append([]string{"check", "--lane", "direct", "--fixture", "D1", "--fixture", "D2", "--fixture", "D3", "--format", "json"}, draftArgs(filepath.Join(dir, "obs"))...)
		},
		check: func(t *testing.T, out, _ string) {
			got := outcomes(t, out)
			// D1 holds content and structured, D2 content, D3 content and an error flag: five
			// tasks, each at D1, A2, M3 and H4.
			if len(got) != 20 {
				t.Errorf("the control has %d (fixture, stage, task) outcomes on the draft, want 20: %v", len(got), got)
			}
			for k, o := range got {
				if o != "pass" {
					t.Errorf("%s: %s, want pass", k, o)
				}
			}
		},
	}, {
		// 6. The source binding was one global binding a layer could not rebind, and compartments
		// were JSON pointers only: T1–T4 read the draft's sources as empty, every verdict wrong.
		// Also: TestDraftRevisionVerdicts, TestDraftRevisionErrors ("the old global source
		// binding"), internal/bindpath's tests.
		name: "6 a host that drops the assistant's structured output is unmet at T2 (read as empty, it passed)",
		setup: func(t *testing.T, dir string) []string {
			return append([]string{"check", "--lane", "draft-host", "--lane", "direct", "--fixture", "D1", "--format", "json"}, draftRecorded(t, func(id string, src map[string]any) {
				if id != "D1" {
					return
				}
				var kept []any
				for _, o := range src["outputs"].([]any) {
					if o := o.(map[string]any); o["audience"] != "assistant" || o["format"] != "structured" {
						kept = append(kept, o)
					}
				}
				src["outputs"] = kept
			})...)
		},
		check: func(t *testing.T, out, _ string) {
			got := outcomes(t, out)
			if got["draft-host D1 A2 T2"] != "unmet" || got["draft-host D1 A2 T1"] != "pass" || got["direct D1 A2 T2"] != "pass" {
				t.Errorf("D1: %v, want draft-host unmet at T2 (the assistant's structured output dropped) and pass at T1, the control pass", got)
			}
		},
	}, {
		// 7. The only route that ran was export fork + --no-builtin, dropping every built-in lane
		// and fixture. Also: TestWalkthrough (docs/writing-a-contract.md, "Try a draft MCP
		// revision": the draft's lanes and its routing gate beside the built-in lanes and twins).
		name: "7 the draft's lane and fixtures are judged beside the built-in lanes and fixtures, no fork",
		setup: func(t *testing.T, dir string) []string {
			return append([]string{"check", "--fixture", "D1", "--fixture", "C05", "--stage", "A2", "--format", "json"}, draftRecorded(t, nil)...)
		},
		check: func(t *testing.T, out, _ string) {
			got := outcomes(t, out)
			for _, k := range []string{"draft-host D1 A2 T2", "direct D1 A2 T2", "direct C05 A2 T2"} {
				if got[k] == "" {
					t.Errorf("no %s outcome: the run is not the built-ins plus the layer (%v)", k, got)
				}
			}
			var r struct{ Results []struct{ Lane string } }
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			lanes := map[string]bool{}
			for _, x := range r.Results {
				lanes[x.Lane] = true
			}
			for _, l := range []string{"draft-host", "direct", "adk-js", "openai-agents"} {
				if !lanes[l] {
					t.Errorf("lane %s has no result beside the draft's (lanes: %v)", l, lanes)
				}
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.setup != nil {
				args = tc.setup(t, t.TempDir())
			}
			code, stdout, stderr := cli(t, args...)
			out := stdout + stderr
			if code != tc.exit {
				t.Fatalf("contractcheck %s: exit %d, want %d\n%s", strings.Join(args, " "), code, tc.exit, tail(out))
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the output lacks (in order) %q:\n%s", w, tail(out))
				}
				rest = rest[i+len(w):]
			}
			if tc.check != nil {
				tc.check(t, stdout, stderr)
			}
		})
	}
}

// outcomes reads a JSON report's results of the lanes direct and draft-host as "lane fixture
// stage task" → outcome.
func outcomes(t *testing.T, report string) map[string]string {
	t.Helper()
	var r struct {
		Results []struct{ Fixture, Lane, Stage, Task, Outcome string }
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("%v\n%s", err, tail(report))
	}
	out := map[string]string{}
	for _, x := range r.Results {
		if x.Lane == "direct" || x.Lane == "draft-host" {
			out[x.Lane+" "+x.Fixture+" "+x.Stage+" "+x.Task] = x.Outcome
		}
	}
	return out
}

// draftRecorded copies the selector layer with records in its fixtures layer's observations/, where
// check reads them beside the built-in records: draft-host's (draftRecords, edited by edit) and
// the control lane's (capture direct). It returns the input flags of a run on the copy (its
// contracts those of testdata, which it does not change).
func draftRecorded(t *testing.T, edit func(id string, src map[string]any)) []string {
	t.Helper()
	dir := draftCopy(t, nil)
	copyFile(t, filepath.Join(draftRecords(t, edit), "draft-host.jsonl"), filepath.Join(dir, "fixtures", "observations", "draft-host", "v1", "default.jsonl"))
	// The contracts are the layer's as they are: read from testdata, their model is evaluated once
	// for every run on them.
	args := []string{"--contracts", filepath.Join(selectorLayer, "contracts"), "--schemas", filepath.Join(dir, "schemas"),
		"--fixtures", filepath.Join(dir, "fixtures"), "--revision", "DRAFT-2026-12-01"}
	out := filepath.Join(dir, "fixtures", "observations", "direct", "v1", "default.jsonl")
	if code, _, stderr := cli(t, append([]string{"capture", "direct", "--repetitions", "1", "--output", out}, args...)...); code != 0 {
		t.Fatalf("capture direct: exit %d\n%s", code, stderr)
	}
	return args
}

// copyFile copies a file into a test's work directory.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	testkit.WriteFile(t, to, readFile(t, from))
}

// routingLayer writes the layer of docs/writing-a-contract.md, "Try a draft MCP revision" (every
// file the page shows under my-schemas/ and outputs/, as the walkthrough writes them), into a new
// directory with the control lane's records (capture direct), and returns the directory.
func routingLayer(t *testing.T) string {
	t.Helper()
	doc, err := filepath.Abs(filepath.Join("..", "..", "docs", "writing-a-contract.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	n := 0
	for _, s := range parseWalkthrough(t, doc) {
		if s.file != "" && (strings.HasPrefix(s.file, "my-schemas/") || strings.HasPrefix(s.file, "outputs/")) {
			testkit.WriteFile(t, filepath.Join(dir, s.file), s.content)
			n++
		}
	}
	if n < 12 {
		t.Fatalf("the page shows %d files of the draft's layer: its markers are off", n)
	}
	for _, name := range []string{"tr.rego", "tr_test.rego"} {
		src := readFile(t, filepath.Join(dir, "outputs", name))
		formatted, err := format.SourceWithOpts(name, []byte(src), format.Opts{RegoVersion: ast.RegoV1})
		if err != nil || string(formatted) != src {
			t.Errorf("the page's outputs/%s is not as opa fmt writes it (%v):\n%s", name, err, formatted)
		}
	}
	out := filepath.Join(dir, "outputs", "observations", "direct", "v1", "default.jsonl")
	l := filepath.Join(dir, "outputs")
	if code, _, stderr := cli(t, "capture", "direct", "--repetitions", "1", "--output", out, "--schemas", filepath.Join(dir, "my-schemas"), "--contracts", l, "--fixtures", l); code != 0 {
		t.Fatalf("capture direct: exit %d\n%s", code, stderr)
	}
	return dir
}

// routingArgs are the input flags of a run on the page's draft layer in dir.
func routingArgs(dir string) []string {
	l := filepath.Join(dir, "outputs")
	return []string{"--schemas", filepath.Join(dir, "my-schemas"), "--contracts", l, "--policies", l, "--fixtures", l, "--profile", "outputs-routing"}
}

// TestDraftRoutingGate: the routing requirement of the page's draft layer gates CI. A host that
// hands the model an output for the user or for programs, or drops one for the assistant, makes
// the gate unmet (exit 1) with a violation at the record's position and a diagnostic naming the
// output (audience, format, block) and where it showed in the carrier; without such a host the
// gate is satisfied (exit 0). The runs are narrowed to the draft's suite (--suite outputs): the
// built-in lanes and fixtures beside it are TestWalkthrough's and TestIssue43Frictions' to show.
func TestDraftRoutingGate(t *testing.T) {
	t.Parallel()
	dir := routingLayer(t)
	host := filepath.Join(dir, "outputs", "observations", "outputs-host", "v1")
	assistantOnly, err := os.ReadFile(filepath.Join(host, "assistant-only.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	flatten, err := os.ReadFile(filepath.Join(host, "flatten.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// edit changes the carrier of the record of fixture id in a JSONL file's text.
	edit := func(t *testing.T, jsonl []byte, id string, change func(carrier map[string]any)) string {
		lines := strings.Split(strings.TrimSuffix(string(jsonl), "\n"), "\n")
		for i, l := range lines {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			if rec["fixture"] != id {
				continue
			}
			change(rec["carrier"].(map[string]any))
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			lines[i] = string(b)
		}
		return strings.Join(lines, "\n") + "\n"
	}
	const H = "outputs/observations/outputs-host/v1/"
	type violation struct{ fixture, configuration, record, diagnostic string }
	tests := []struct {
		name      string
		files     map[string]string // files of the layer, by path in it ("" removes one)
		exit      int
		violation []violation
		err       string // with exit 2: what stderr says
	}{
		{name: "as the page writes it: flatten leaks at every fixture", files: map[string]string{"outputs/observations/outputs-host/v1/assistant-only.jsonl": string(assistantOnly), "outputs/observations/outputs-host/v1/flatten.jsonl": string(flatten)}, exit: 1,
			violation: []violation{
				{"O1", "flatten", "flatten.jsonl:1", `route.withheld /programmatic/structured added block 2`},
				{"O1", "flatten", "flatten.jsonl:1", `route.withheld /user/content/0 added block 0`},
				{"O2", "flatten", "flatten.jsonl:2", `route.withheld /user/content/0 added block 1`},
				{"O3", "flatten", "flatten.jsonl:3", `route.withheld /programmatic/structured added block 0`},
			}},
		{name: "assistant-only alone satisfies the gate", files: map[string]string{"outputs/observations/outputs-host/v1/assistant-only.jsonl": string(assistantOnly), "outputs/observations/outputs-host/v1/flatten.jsonl": ""}, exit: 0},
		{name: "the user's apology appended to the assistant's reason", exit: 1,
			files: map[string]string{"outputs/observations/outputs-host/v1/flatten.jsonl": "", "outputs/observations/outputs-host/v1/assistant-only.jsonl": edit(t, assistantOnly, "O2", func(c map[string]any) {
				c["content"] = append(c["content"].([]any), map[string]any{"type": "text", "text": "We could not book your pickup. Please pick another date."})
			})},
			violation: []violation{{"O2", "assistant-only", "assistant-only.jsonl:2", `route.withheld /user/content/0 added block 1`}}},
		{name: "the programmatic record as the structured slot, the assistant's value dropped", exit: 1,
			files: map[string]string{"outputs/observations/outputs-host/v1/flatten.jsonl": "", "outputs/observations/outputs-host/v1/assistant-only.jsonl": edit(t, assistantOnly, "O1", func(c map[string]any) {
				c["structured"] = map[string]any{"cacheKey": "wx:EGNM:202511120750", "ttlSeconds": 1800}
				c["content"] = []any{}
			})},
			violation: []violation{
				{"O1", "assistant-only", "assistant-only.jsonl:1", `route.delivered /assistant/content/0 missing`},
				{"O1", "assistant-only", "assistant-only.jsonl:1", `route.delivered /assistant/structured missing`},
				{"O1", "assistant-only", "assistant-only.jsonl:1", `route.withheld /programmatic/structured added`},
			}},
		{name: "two sources alike but for the user's output: the verdict is not shared", exit: 1,
			files: map[string]string{
				"outputs/o4.cue":                  "package contracts\n\nfixtures: O4: {suite: \"outputs\", family: \"error\", revision: \"DRAFT-2026-v1\", tasks: [\"T1\", \"T3\"], targets: [], doc: \"O2 with another apology.\"}\n",
				"outputs/sources/outputs/O4.json": strings.Replace(readFile(t, filepath.Join(dir, "outputs", "sources", "outputs", "O2.json")), "We could not book your pickup.", "Sorry: no pickup that day.", 1),
				H + "flatten.jsonl":               "",
				H + "assistant-only.jsonl": edit(t, assistantOnly, "O2", func(c map[string]any) {
					c["content"] = append(c["content"].([]any), map[string]any{"type": "text", "text": "We could not book your pickup. Please pick another date."})
				}) + o4Record(t, dir, edit(t, assistantOnly, "O2", func(c map[string]any) {
					c["content"] = append(c["content"].([]any), map[string]any{"type": "text", "text": "We could not book your pickup. Please pick another date."})
				})),
			},
			violation: []violation{{"O2", "assistant-only", "assistant-only.jsonl:2", `route.withheld /user/content/0 added block 1`}}},
		{name: "a source with two outputs for the user in one format: bad input, not an outcome", exit: 2,
			files: map[string]string{
				"outputs/o5.cue": "package contracts\n\nfixtures: O5: {suite: \"outputs\", family: \"rich\", revision: \"DRAFT-2026-v1\", tasks: [\"T1\"], targets: [], doc: \"Two user outputs.\"}\n",
				"outputs/sources/outputs/O5.json": `{"outputs": [{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "ok"}]}, ` +
					`{"audience": "user", "format": "content", "content": [{"type": "text", "text": "a"}]}, {"audience": "user", "format": "content", "content": [{"type": "text", "text": "b"}]}]}`,
			},
			err: `O5.json: fixture O5: compartment revisions."DRAFT-2026-v1".compartments.user: path "/outputs[audience=\"user\",format=\"content\"]/content": 2 elements of the array at "/outputs" match its selector (indices 1, 2)`},
		{name: "every text joined into one string: the user's text inside it", exit: 1,
			files: map[string]string{H + "flatten.jsonl": "", H + "assistant-only.jsonl": edit(t, assistantOnly, "O2", func(c map[string]any) {
				c["content"] = []any{map[string]any{"type": "text", "text": "Cannot book pickup: depot LDS-2 is closed on 2025-12-25 (public holiday). Choose another collection date.\n\nWe could not book your pickup. Please pick another date."}}
			})},
			violation: []violation{{"O2", "assistant-only", "assistant-only.jsonl:2", `route.withheld /user/content/0 added block 0`}}},
		{name: "the resource link dropped", exit: 1,
			files:     map[string]string{"outputs/observations/outputs-host/v1/flatten.jsonl": "", "outputs/observations/outputs-host/v1/assistant-only.jsonl": edit(t, assistantOnly, "O3", func(c map[string]any) { c["content"] = []any{} })},
			violation: []violation{{"O3", "assistant-only", "assistant-only.jsonl:3", `route.delivered /assistant/content/0 missing`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			work := filepath.Join(t.TempDir(), "w")
			if err := os.CopyFS(work, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			for name, content := range tc.files {
				p := filepath.Join(work, filepath.FromSlash(name))
				if content == "" {
					if err := os.Remove(p); err != nil {
						t.Fatal(err)
					}
					continue
				}
				testkit.WriteFile(t, p, content)
			}
			args := routingArgs(work)
			if !editsAny(tc.files, func(name string) bool { return strings.HasSuffix(name, ".cue") }) {
				// The case's contracts are the page's as routingLayer evaluated them: read from
				// there, their model is the one cached then, not evaluated again.
				args[slices.Index(args, "--contracts")+1] = filepath.Join(dir, "outputs")
			}
			code, stdout, stderr := cli(t, append([]string{"check", "--format", "json", "--suite", "outputs"}, args...)...)
			if code != tc.exit {
				t.Fatalf("exit %d, want %d\n%s", code, tc.exit, tail(stderr))
			}
			if tc.exit == 2 {
				if !strings.Contains(stderr, tc.err) {
					t.Errorf("stderr lacks %q:\n%s", tc.err, stderr)
				}
				return
			}
			var r struct {
				Results []struct {
					Fixture, Lane, Configuration, Stage, Task, Outcome string
					Records                                            []struct {
						File string
						Line int
					}
					Diagnostics []struct {
						Atom, Path, Kind string
						Block            *int
					}
				}
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatal(err)
			}
			var got []violation
			for _, x := range r.Results {
				if x.Task != "TR" || x.Outcome == "pass" {
					continue
				}
				if x.Lane != "outputs-host" || x.Stage != "M3" || len(x.Records) == 0 {
					t.Errorf("TR %s at %s %s %s %s: %s, records %v", x.Outcome, x.Fixture, x.Lane, x.Configuration, x.Stage, x.Outcome, x.Records)
					continue
				}
				at := filepath.Base(x.Records[0].File) + ":" + strconv.Itoa(x.Records[0].Line)
				for _, d := range x.Diagnostics {
					s := d.Atom + " " + d.Path + " " + d.Kind
					if d.Block != nil {
						s += " block " + strconv.Itoa(*d.Block)
					}
					got = append(got, violation{x.Fixture, x.Configuration, at, s})
				}
			}
			slices.SortFunc(got, func(a, b violation) int { return strings.Compare(a.fixture+a.diagnostic, b.fixture+b.diagnostic) })
			if !slices.Equal(got, tc.violation) {
				t.Errorf("TR diagnostics:\n got %v\nwant %v", got, tc.violation)
			}
		})
	}
}

// readFile is a file's content.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// o4Record is the record of O2 in the JSONL text jsonl made a record of O4: the same carrier, the
// source hash of O4 (O2.json with another apology, as TestDraftRoutingGate writes it).
func o4Record(t *testing.T, dir, jsonl string) string {
	t.Helper()
	src := strings.Replace(readFile(t, filepath.Join(dir, "outputs", "sources", "outputs", "O2.json")), "We could not book your pickup.", "Sorry: no pickup that day.", 1)
	for l := range strings.SplitSeq(strings.TrimSuffix(jsonl, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["fixture"] != "O2" {
			continue
		}
		sum := sha256.Sum256([]byte(src))
		rec["fixture"], rec["sourceSha256"] = "O4", hex.EncodeToString(sum[:])
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	t.Fatal("no record of O2")
	return ""
}
