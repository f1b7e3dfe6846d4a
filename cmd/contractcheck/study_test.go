package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/testkit"
)

// myStudy is a layer's profile with a cohort of its own: the study's tables for two framework
// lanes at their default configurations, with the control lane.
const myStudy = `package contracts

profiles: "my-study": {
	doc:        "The study's tables for two frameworks at their default configurations, with the control lane."
	nullPolicy: "strict"
	cohort: {
		doc:   "openai-agents and agent-framework at default, the control lane direct, suite paper."
		lanes: ["direct", "openai-agents", "agent-framework"]
		configurations: ["default"]
		suites: ["paper"]
	}
	require: []
}
`

// TestStudy runs the study verb as a user does: the built-in tables in each format, to a file,
// a layer's own profile and cohort, and the inputs that must stop it with exit 2 or 3.
func TestStudy(t *testing.T) {
	t.Parallel()
	golden, err := os.ReadFile(filepath.Join("..", "..", "internal", "study", "testdata", "study.txt"))
	if err != nil {
		t.Fatal(err)
	}
	layer := filepath.Join(t.TempDir(), "contracts")
	testkit.WriteFile(t, filepath.Join(layer, "profiles.cue"), myStudy)
	rec := c04Record(t)
	rep2 := strings.Replace(rec, `"repetition":1`, `"repetition":2`, 1)
	altered := strings.Replace(rep2, `"structuredContent":{"decision":"deny"`, `"structuredContent":{"decision":"allow"`, 1)
	out := filepath.Join(t.TempDir(), "study.json")
	tests := []struct {
		cliCase
		stdout string // the whole of it, when set
		file   string // a file the run must have written, and what it holds
	}{
		{cliCase: cliCase{name: "built-in text: the tables as internal/study/testdata/study.txt holds them", code: 0}, stdout: string(golden)},
		{cliCase: cliCase{name: "built-in markdown", args: []string{"--format", "markdown"}, code: 0,
			inStdout: []string{"### Table IV. Pass counts per framework × stage × task", "### Table V.", "### Table VI.", "### Table VII.", "| native-slot | framework | 20 | 10 | 30 | 5 | 0 | 0 | 1 | 66 |"}}},
		{cliCase: cliCase{name: "built-in json to a file", args: []string{"--format", "json", "--output", out}, code: 0}, file: `"studyVersion": 1`},
		{cliCase: cliCase{name: "a layer's profile and cohort", args: []string{"--contracts", layer, "--profile", "my-study"}, code: 0,
			inStdout: []string{"profiles my-study (null policy strict)", "cohort lanes direct, openai-agents, agent-framework", "openai-agents     0.22.0   default        A2"}}},
		{cliCase: cliCase{name: "the null profile the profile", args: []string{"--null-profile", "study"}, code: 2, inStderr: []string{"is the profile itself"}}},
		{cliCase: cliCase{name: "a selection with no binding", args: []string{"--task", "TM"}, code: 2, inStderr: []string{"no binding of profile study within the selection"}}},
		{cliCase: cliCase{name: "unknown decoder", args: []string{"--decoder", "nope"}, code: 2, inStderr: []string{`unknown decoder policy "nope"`}}},
		{cliCase: cliCase{name: "unknown format", args: []string{"--format", "yaml"}, code: 2, inStderr: []string{`unknown format "yaml"`}}},
		{cliCase: cliCase{name: "disagreeing repetitions: exit 3, the tables written", records: []string{rec, altered},
			args: []string{"--profile", "strict", "--null-profile", "optional-null"}, code: 3, inStdout: []string{"repetitions disagree"}}},
		{cliCase: cliCase{name: "malformed record", records: []string{rec, `{"fixture": "C04",`}, code: 2, inStderr: []string{"obs/x.jsonl:2:"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _ := tc.run(t, "study")
			if tc.stdout != "" && stdout != tc.stdout {
				t.Errorf("stdout differs from the golden tables:\n%s", stdout)
			}
			if tc.file != "" {
				b, err := os.ReadFile(out)
				if err != nil || !strings.Contains(string(b), tc.file) {
					t.Errorf("%s: %v, lacks %q", out, err, tc.file)
				}
			}
		})
	}
}
