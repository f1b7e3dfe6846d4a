package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// TestInspectRecord: inspect record prints each task's policy input for a record named by its
// place or its position, with the verdict check gives it; what cannot be inspected is exit 2.
func TestInspectRecord(t *testing.T) {
	t.Parallel()
	dir := uncataloguedLayer(t)
	obs := filepath.Join(dir, "observations", "direct.jsonl")
	runCases(t, true, []cliCase{
		{name: "a built-in record by its place",
			args: []string{"inspect", "record", "builtin:fixtures/observations/adk-go/v1.7.0/default.jsonl:6"},
			inOutput: []string{"record builtin:fixtures/observations/adk-go/v1.7.0/default.jsonl:6", "C02 adk-go v1.7.0 default A2 repetition 1: captured (captured)",
				"task T2 [structured] contractcheck.tasks.t2 (builtin:policies/tasks/t2.rego): unmet",
				// The input keeps a number's every digit, as the policy reads it.
				`"sequence": 9007199254740993`, `"sequence": 9007199254740992`, `"nullPolicy": "strict"`}},
		{name: "a user's record by its path", args: []string{"inspect", "record", "--fixtures", dir, obs + ":1"},
			inOutput: []string{"record " + filepath.ToSlash(filepath.Clean(obs)) + ":1", "U1 direct v1 default D1 repetition 1", ": pass"}},
		{name: "by position", args: []string{"inspect", "record", "--fixture", "C05", "--lane", "adk-go", "--version", "v1.7.0", "--stage", "A2", "--repetition", "2"},
			inOutput: []string{"C05 adk-go v1.7.0 default A2 repetition 2"}},
		{name: "no record named", args: []string{"inspect", "record"}, code: 2, inOutput: []string{"name a record: FILE:LINE"}},
		{name: "not FILE:LINE", args: []string{"inspect", "record", "x.jsonl"}, code: 2, inOutput: []string{"x.jsonl is not FILE:LINE"}},
		{name: "past the end", args: []string{"inspect", "record", obs + ":9999", "--fixtures", dir}, code: 2, inOutput: []string{":9999: no record there"}},
		{name: "a file that is not there", args: []string{"inspect", "record", filepath.Join(dir, "nope.jsonl") + ":1"}, code: 2, inOutput: []string{"nope.jsonl"}},
		{name: "too many", args: []string{"inspect", "record", "--lane", "adk-go"}, code: 2, inOutput: []string{"records match; inspect prints at most 100"}},
		{name: "no match", args: []string{"inspect", "record", "--lane", "adk-go", "--repetition", "99"}, code: 2, inOutput: []string{"no record within"}},
	})
}

// TestInspectRecordJSON: the JSON gives each task its input exactly as check builds it (the
// members the policy interface documents), and check's outcome; a record that was not captured
// has no input and its state as every outcome.
func TestInspectRecordJSON(t *testing.T) {
	t.Parallel()
	var got struct {
		Records []struct {
			Record struct {
				File  string
				Line  int
				State string
			}
			Tasks []struct {
				Task, Compartment, Policy, Outcome string
				Input                              map[string]any
				Diagnostics                        []map[string]any
			}
		}
	}
	stdout, _ := cliOK(t, "inspect", "record", "--fixture", "C02", "--lane", "adk-go", "--version", "v1.7.0", "--stage", "A2", "--repetition", "1", "--format", "json")
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Records) != 1 || len(got.Records[0].Tasks) != 2 {
		t.Fatalf("records %+v, want one with T1 and T2", got.Records)
	}
	for _, task := range got.Records[0].Tasks {
		keys := make([]string, 0, len(task.Input))
		for k := range task.Input {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []string{"configuration", "contract", "fixture", "lane", "laneVersion", "observed", "source", "stage", "task"}
		if !slices.Equal(keys, want) {
			t.Errorf("%s input members %v, want %v", task.Task, keys, want)
		}
		if task.Outcome != "unmet" || len(task.Diagnostics) == 0 {
			t.Errorf("%s: %s with %d diagnostics, want unmet as check gives it", task.Task, task.Outcome, len(task.Diagnostics))
		}
	}

	// A record that was not captured: its state is the outcome, and there is no input.
	dir := t.TempDir()
	src := `{"content":[{"type":"text","text":"hi"}]}`
	testkit.WriteFile(t, filepath.Join(dir, "sources", "mine", "N1.json"), src)
	sum := sha256.Sum256([]byte(src))
	testkit.WriteFile(t, filepath.Join(dir, "observations", "direct.jsonl"), `{"fixture":"N1","lane":"direct","laneVersion":"v1","configuration":"default","stage":"D1","repetition":1,"state":"execution_failed","error":"boom","sourceSha256":"`+hex.EncodeToString(sum[:])+`","origin":"captured"}`+"\n")
	stdout, _ = cliOK(t, "inspect", "record", "--fixtures", dir, "--format", "json", filepath.Join(dir, "observations", "direct.jsonl")+":1")
	got.Records = nil
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if r := got.Records[0]; r.Record.State != "execution_failed" || len(r.Tasks) != 1 || r.Tasks[0].Outcome != "execution_failed" || r.Tasks[0].Input != nil {
		t.Errorf("a failed record inspects as %+v", r)
	}
}

// TestInspectRecordHostile: a source and a carrier holding every hostile string are printed
// without a control or bidi character reaching the terminal or a line starting a CI command, and
// exactly in the JSON. Each case is a fixture of one layer (H1, H2, …): one run of each format
// prints them all.
func TestInspectRecordHostile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var cases []hostile.Case
	var records []string
	for _, c := range hostile.Cases() {
		if c.Name == "invalid-utf8" || c.Name == "long" {
			continue // JSON holds text only; the long string is every other case repeated
		}
		cases = append(cases, c)
		id := fmt.Sprintf("H%d", len(cases))
		src := `{"content":[{"type":"text","text":` + jsonText(t, c.S) + `}]}`
		testkit.WriteFile(t, filepath.Join(dir, "sources", "mine", id+".json"), src)
		carrier := `{"content":[{"type":"text","text":` + jsonText(t, c.S+"x") + `}]}`
		records = append(records, capturedRecord(t, id, "direct", "D1", []byte(src), json.RawMessage(carrier)))
	}
	testkit.WriteFile(t, filepath.Join(dir, "observations", "direct.jsonl"), strings.Join(records, "\n")+"\n")
	stdout, _ := cliOK(t, "inspect", "record", "--fixtures", dir, "--fixture", "H*")
	testkit.TerminalSafe(t, "stdout", stdout, false)
	text := stdout
	stdout, _ = cliOK(t, "inspect", "record", "--fixtures", dir, "--fixture", "H*", "--format", "json")
	var got struct {
		Records []struct {
			Record struct{ Fixture string }
			Tasks  []struct {
				Input struct {
					Source, Observed struct{ Content []struct{ Text string } }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	inputs := map[string][2]string{} // fixture → the source's and the carrier's text
	for _, r := range got.Records {
		if len(r.Tasks) == 0 || len(r.Tasks[0].Input.Source.Content) == 0 || len(r.Tasks[0].Input.Observed.Content) == 0 {
			t.Errorf("%s: no input text: %+v", r.Record.Fixture, r)
			continue
		}
		in := r.Tasks[0].Input
		inputs[r.Record.Fixture] = [2]string{in.Source.Content[0].Text, in.Observed.Content[0].Text}
	}
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var want string // JSON holds text: each invalid UTF-8 byte reads as U+FFFD, as written
			if err := json.Unmarshal([]byte(jsonText(t, c.S)), &want); err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprintf("H%d", i+1)
			if !strings.Contains(text, "\n  "+id+" direct v1 default D1 repetition 1:") {
				t.Errorf("the text lacks the record of %s", id)
			}
			in, ok := inputs[id]
			if !ok {
				t.Fatalf("no record of %s inspected", id)
			}
			if in[0] != want || in[1] != want+"x" {
				t.Errorf("texts %q and %q, want %q and %q", in[0], in[1], want, want+"x")
			}
		})
	}
}

// jsonText is s as a JSON string.
func jsonText(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
