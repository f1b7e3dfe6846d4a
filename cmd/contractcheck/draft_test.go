package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// The layer of testdata/draft-selectors adds a draft MCP revision, DRAFT-2026-12-01, whose results
// have no top-level content: a list of outputs, each for an audience (assistant, user,
// programmatic) in a format (content, structured). Its contracts bind the revision's source with
// value selectors (the assistant's outputs, by audience and format, never by position) and declare
// a lane, draft-host, whose A2 carrier is such a result. Its fixtures layer holds three sources no
// catalogue entry names: the run's --revision gives their revision.
var selectorLayer = filepath.Join("testdata", "draft-selectors")

// draftArgs are the input flags of a run on the draft layer, with observations when obs is set.
func draftArgs(obs string, more ...string) []string {
	args := []string{"--contracts", filepath.Join(selectorLayer, "contracts"), "--schemas", filepath.Join(selectorLayer, "schemas"),
		"--fixtures", filepath.Join(selectorLayer, "fixtures"), "--revision", "DRAFT-2026-12-01"}
	if obs != "" {
		args = append(args, "--observations", obs)
	}
	return append(args, more...)
}

// draftRecords writes draft-host's A2 records of the draft sources into a new directory and
// returns it: each carrier is the source, changed by edit when it is not nil.
func draftRecords(t *testing.T, edit func(id string, src map[string]any)) string {
	t.Helper()
	var lines []string
	for _, src := range sourcesIn(t, filepath.Join(selectorLayer, "fixtures", "sources", "draft")) {
		var carrier map[string]any
		if err := json.Unmarshal(src.data, &carrier); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			edit(src.id, carrier)
		}
		lines = append(lines, capturedRecord(t, src.id, "draft-host", "A2", src.data, carrier))
	}
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "draft-host.jsonl"), strings.Join(lines, "\n")+"\n")
	return dir
}

// TestDraftRevisionBinding: a layer adds a revision whose results have no top-level content, with
// its own source binding (value selectors), and its uncatalogued sources get the tasks what the
// binding reads calls for (friction 4 of issue 43: before, what a source held was read from its
// top-level content and structuredContent only, and a layer could not bind a revision at all, so
// these sources had no task, or were read as empty). inspect fixture names the binding.
func TestDraftRevisionBinding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		id   string
		want []string
	}{
		{name: "structured and content, the user's and the programmatic outputs left out", id: "D1", want: []string{
			"revision   DRAFT-2026-12-01",
			`binding    revisions."DRAFT-2026-12-01".source at ` + filepath.ToSlash(filepath.Join(selectorLayer, "contracts", "draft.cue")) + ":17:2",
			"tasks      T1, T2", `targets    "" (the whole value), /orderId, /status`, "holds      structured, content"}},
		{name: "a structured output for the user only: no T2", id: "D2", want: []string{"tasks      T1\n", "targets    (none)", "holds      content\n"}},
		{name: "an error flag", id: "D3", want: []string{"tasks      T1, T3\n", "holds      error, content\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _ := cliOK(t, append([]string{"inspect", "fixture", tc.id}, draftArgs("")...)...)
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the entry lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
	stdout, _ := cliOK(t, append([]string{"inspect", "fixture", "C01", "--format", "json"}, draftArgs("")...)...)
	var e struct{ Binding, BindingAt string }
	if err := json.Unmarshal([]byte(stdout), &e); err != nil {
		t.Fatal(err)
	}
	if e.Binding != `revisions."2025-11-25".source` || !strings.HasPrefix(e.BindingAt, "builtin:contracts/source.cue:") {
		t.Errorf("C01 beside the layer: binding %q at %q, want the pinned revision's built-in binding", e.Binding, e.BindingAt)
	}
}

// TestDraftRevisionVerdicts: T1–T3 judge a lane's carriers of the draft against the source as its
// revision's binding reads it. A host that keeps every output passes; one that keeps the user's
// structured output but drops the assistant's is unmet at T2 with the assistant's value expected
// (with the source read as empty, as before the binding belonged to the revision, it passed); and
// the policy input's source view holds the assistant's outputs, not the user's.
func TestDraftRevisionVerdicts(t *testing.T) {
	t.Parallel()
	type result struct{ Fixture, Lane, Task, Stage, Outcome string }
	run := func(t *testing.T, obs string) []result {
		t.Helper()
		_, stdout, stderr := cli(t, append([]string{"check", "--format", "json", "--lane", "draft-host"}, draftArgs(obs)...)...)
		var r struct{ Results []result }
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v\n%s%s", err, stdout, stderr)
		}
		return r.Results
	}
	faithful := run(t, draftRecords(t, nil))
	got := map[string]string{}
	for _, r := range faithful {
		got[r.Fixture+" "+r.Task] = r.Outcome
	}
	want := map[string]string{"D1 T1": "pass", "D1 T2": "pass", "D2 T1": "pass", "D3 T1": "pass", "D3 T3": "pass"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("faithful host: %s is %q, want %q (all: %v)", k, got[k], w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("faithful host: bindings %v, want %v", got, want)
	}

	dropped := run(t, draftRecords(t, func(id string, src map[string]any) {
		if id != "D1" {
			return
		}
		var kept []any
		for _, o := range src["outputs"].([]any) {
			if o := o.(map[string]any); o["audience"] == "assistant" && o["format"] == "structured" {
				continue
			}
			kept = append(kept, o)
		}
		src["outputs"] = kept
	}))
	for _, r := range dropped {
		if r.Fixture == "D1" && r.Task == "T2" && r.Outcome != "unmet" {
			t.Errorf("a host that drops the assistant's structured output: D1 T2 is %s, want unmet", r.Outcome)
		}
		if r.Fixture == "D1" && r.Task == "T1" && r.Outcome != "pass" {
			t.Errorf("a host that drops the assistant's structured output only: D1 T1 is %s, want pass", r.Outcome)
		}
	}

	obs := draftRecords(t, nil)
	stdout, _ := cliOK(t, append([]string{"inspect", "record", "--fixture", "D1", "--lane", "draft-host", "--format", "json"}, draftArgs(obs)...)...)
	var in struct {
		Records []struct {
			Tasks []struct {
				Task  string
				Input struct {
					Source struct {
						Structured map[string]any
						Content    []struct{ Kind, Text string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &in); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range in.Records {
		for _, tk := range r.Tasks {
			src := tk.Input.Source
			switch tk.Task {
			case "T2":
				seen++
				if src.Structured["orderId"] != "B-7" || src.Structured["table"] != nil || src.Structured["trace"] != nil {
					t.Errorf("T2's source view holds %v, want the assistant's structured output", src.Structured)
				}
			case "T1":
				seen++
				if len(src.Content) != 1 || src.Content[0].Kind != "text" || !strings.Contains(src.Content[0].Text, `"orderId"`) {
					t.Errorf("T1's source view holds %v, want the assistant's one text block", src.Content)
				}
			}
		}
	}
	if seen != 2 {
		t.Errorf("inspect record showed %d of T1 and T2's inputs, want 2:\n%s", seen, stdout)
	}
}

// draftCopy copies the draft layer into a new directory, applying edits (a path inside the layer
// → its new content; "" removes the file), and returns it.
func draftCopy(t *testing.T, edits map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "draft")
	if err := os.CopyFS(dir, os.DirFS(selectorLayer)); err != nil {
		t.Fatal(err)
	}
	for p, content := range edits {
		if content == "" {
			if err := os.Remove(filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		testkit.WriteFile(t, filepath.Join(dir, p), content)
	}
	return dir
}

// TestDraftRevisionErrors: what cannot be read one way is bad input (exit 2) naming the file and
// the place: a selector that does not parse (at its file:line:col, when the contracts load), a
// source or a record in which a selector matches several outputs (the file, the path and the
// array), a fixture of a revision no layer binds (the fixture and the revision), and a layer that
// writes the old global source binding (friction 6 of issue 43: it was "source.doc: conflicting
// values").
func TestDraftRevisionErrors(t *testing.T) {
	t.Parallel()
	cue, err := os.ReadFile(filepath.Join(selectorLayer, "contracts", "draft.cue"))
	if err != nil {
		t.Fatal(err)
	}
	twoAssistants := `{"outputs": [{"audience": "assistant", "format": "structured", "structuredContent": {"a": 1}}, {"audience": "assistant", "format": "structured", "structuredContent": {"a": 2}}]}`
	tests := []struct {
		name  string
		edits map[string]string
		args  func(dir string) []string
		want  []string
	}{
		{name: "a selector that does not parse",
			edits: map[string]string{"contracts/draft.cue": strings.Replace(string(cue), `format="structured"]/structuredContent`, `format=structured]/structuredContent`, 1)},
			want:  []string{"contracts/draft.cue:9:14: revisions.DRAFT-2026-12-01.source.structured.path: path \"/outputs[audience=\\\"assistant\\\", format=structured]/structuredContent\": at byte 38: a selector compares a member with a JSON string (quoted), true, false or null"}},
		{name: "a source in which a selector matches two outputs",
			edits: map[string]string{"fixtures/sources/draft/D4.json": twoAssistants},
			want:  []string{"fixtures/sources/draft/D4.json: fixture D4 (no catalogue entry), revision DRAFT-2026-12-01: compartment revisions.\"DRAFT-2026-12-01\".source: path \"/outputs[audience=\\\"assistant\\\", format=\\\"structured\\\"]/structuredContent\": 2 elements of the array at \"/outputs\" match its selector (indices 0, 1)"}},
		{name: "a record in which a selector matches two outputs",
			args: func(dir string) []string {
				obs := filepath.Join(dir, "obs")
				src, err := os.ReadFile(filepath.Join(dir, "fixtures", "sources", "draft", "D2.json"))
				if err != nil {
					t.Fatal(err)
				}
				testkit.WriteFile(t, filepath.Join(obs, "draft-host.jsonl"), capturedRecord(t, "D2", "draft-host", "A2", src, json.RawMessage(twoAssistants))+"\n")
				return []string{"--observations", obs}
			},
			want: []string{"obs/draft-host.jsonl:1: /carrier: compartment lanes.draft-host.stages.A2.compartments.", `: 2 elements of the array at "/outputs" match its selector (indices 0, 1)`}},
		{name: "a derived fixture of a revision no layer binds",
			edits: map[string]string{"contracts/draft.cue": strings.Replace(string(cue), `revisions: "DRAFT-2026-12-01"`, `revisions: "DRAFT-2026-12-02"`, 1)},
			want:  []string{"fixtures/sources/draft/D1.json: fixture D1 (no catalogue entry): revision DRAFT-2026-12-01 has no source binding", `revisions: "DRAFT-2026-12-01": source: {…}`, "the model binds 2025-06-18, 2025-11-25, 2026-07-28, DRAFT-2026-12-02"}},
		{name: "a catalogued fixture of a revision no layer binds",
			edits: map[string]string{"contracts/draft.cue": strings.Replace(string(cue), `revisions: "DRAFT-2026-12-01"`, `revisions: "DRAFT-2026-12-02"`, 1),
				"contracts/catalog.cue": "package contracts\n\nfixtures: D1: {suite: \"draft\", family: \"structured\", revision: \"DRAFT-2026-12-01\", tasks: [\"T2\"], doc: \"d\", targets: []}\n"},
			want: []string{"contracts/catalog.cue:3:54: fixtures.D1: revision DRAFT-2026-12-01 has no source binding"}},
		{name: "a task reading a source compartment no revision binds",
			edits: map[string]string{"contracts/tr.cue": "package contracts\n\natoms: \"route.withheld\": doc: \"d\"\n\ntasks: TR: {doc: \"d\", role: \"primary\", policy: \"outputs.tasks.tr\", compartment: \"structured\", atoms: [\"route.withheld\"], sources: [\"user\"]}\n"},
			want:  []string{"contracts/tr.cue:5:132: tasks.TR.sources: no revision binds the source compartment \"user\" (revisions: \"<revision>\": compartments: \"user\": {…})"}},
		{name: "the old global source binding",
			edits: map[string]string{"contracts/old.cue": "package contracts\n\nsource: _draftResult\n"},
			want:  []string{"contracts/old.cue:3:1: source: the source binding belongs to a revision: write revisions: \"<revision>\": source: {…}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := draftCopy(t, tc.edits)
			contracts := filepath.Join(dir, "contracts")
			if !editsAny(tc.edits, func(p string) bool { return strings.HasPrefix(p, "contracts/") }) {
				// The layer's contracts as they are: read from testdata, their model is the one
				// cached by the first run on it, not evaluated again.
				contracts = filepath.Join(selectorLayer, "contracts")
			}
			args := []string{"check", "--lane", "draft-host", "--contracts", contracts, "--schemas", filepath.Join(dir, "schemas"),
				"--fixtures", filepath.Join(dir, "fixtures"), "--revision", "DRAFT-2026-12-01"}
			if tc.args != nil {
				args = append(args, tc.args(dir)...)
			} else {
				args = append(args, "--observations", draftRecords(t, nil))
			}
			cliCase{args: args, code: 2, inStderr: tc.want}.run(t)
		})
	}
}

// TestDraftControlLane: the control lane's records of the draft sources, written by capture
// direct, pass every task: a carrier of a layer's revision that is its fixture's source is read
// through that revision's source binding, as the source is (before, the control lane read it
// through the CallToolResult binding of contracts/lanes.cue and was unmet at T1 and T2 on every
// draft source that had an assistant output: the control itself failed on the draft).
func TestDraftControlLane(t *testing.T) {
	t.Parallel()
	obs := t.TempDir()
	out := filepath.Join(obs, "direct", "v1", "default.jsonl")
	if code, _, stderr := cli(t, append([]string{"capture", "direct", "--repetitions", "1", "--output", out}, draftArgs("")...)...); code != 0 {
		t.Fatalf("capture direct: exit %d\n%s", code, stderr)
	}
	_, stdout, stderr := cli(t, append([]string{"check", "--format", "json", "--lane", "direct", "--fixture", "D*"}, draftArgs(obs)...)...)
	var r struct {
		Results []struct{ Fixture, Task, Stage, Outcome string }
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s%s", err, stdout, stderr)
	}
	got := map[string]int{}
	for _, x := range r.Results {
		if x.Outcome != "pass" {
			t.Errorf("direct %s %s %s: %s, want pass", x.Fixture, x.Stage, x.Task, x.Outcome)
		}
		got[x.Fixture+" "+x.Task]++
	}
	// D1 holds content and structured, D2 content, D3 content and an error flag: 5 tasks at 4 stages.
	want := map[string]int{"D1 T1": 4, "D1 T2": 4, "D2 T1": 4, "D3 T1": 4, "D3 T3": 4}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d bindings, want %d (all: %v)", k, got[k], n, got)
		}
	}
}
