package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractcheck/contractcheck/internal/hostile"
	"github.com/contractcheck/contractcheck/internal/testkit"
)

// uncataloguedLayer is a fixtures layer of the sources no catalogue entry names
// (internal/instrument/testdata/uncatalogued), with the direct lane's records of each at every
// stage: the carrier is the source as it is.
func uncataloguedLayer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for _, src := range sourcesIn(t, filepath.Join("..", "..", "internal", "instrument", "testdata", "uncatalogued", "sources", "mine")) {
		testkit.WriteFile(t, filepath.Join(dir, "sources", "mine", src.name), string(src.data))
		for _, stage := range []string{"D1", "A2", "M3", "H4"} {
			lines = append(lines, capturedRecord(t, src.id, "direct", stage, src.data, json.RawMessage(strings.TrimSpace(string(src.data)))))
		}
	}
	testkit.WriteFile(t, filepath.Join(dir, "observations", "direct.jsonl"), strings.Join(lines, "\n")+"\n")
	return dir
}

// TestUncataloguedSources: a fixtures layer of results no catalogue entry names is checked with no
// CUE of the user's: each gets the tasks what it holds calls for, and the direct lane passes them.
func TestUncataloguedSources(t *testing.T) {
	t.Parallel()
	dir := uncataloguedLayer(t)
	stdout, _ := cliOK(t, "check", "--no-cache", "--fixtures", dir, "--observations", filepath.Join(dir, "observations"), "--format", "json")
	var r struct {
		Results []struct{ Fixture, Task, Stage, Outcome string }
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, x := range r.Results {
		if x.Outcome != "pass" {
			t.Errorf("%s %s %s: %s, want pass (the direct lane keeps everything)", x.Fixture, x.Task, x.Stage, x.Outcome)
		}
		got[x.Fixture+" "+x.Task]++
	}
	for _, want := range []string{"U1 T1", "U1 T2", "U2 T3", "U3 T4", "U4 T5", "U5 T1", "U6 T3"} {
		if got[want] != 4 {
			t.Errorf("%s: %d bindings, want one per stage (4)", want, got[want])
		}
	}
	if got["U5 T2"] != 0 || got["U6 T1"] != 0 {
		t.Errorf("tasks a source does not call for were evaluated: %v", got)
	}
}

// TestInspectFixture: inspect fixture prints the entry in use and where it came from.
func TestInspectFixture(t *testing.T) {
	t.Parallel()
	dir := uncataloguedLayer(t)
	runCases(t, false, []cliCase{
		{name: "a catalogued fixture", args: []string{"inspect", "fixture", "C01"}, inOutput: []string{"fixture C01: catalogue entry at builtin:contracts/fixtures.cue:", "tasks      T1, T2", "source     builtin:fixtures/sources/paper/C01.json"}},
		{name: "a derived fixture, as JSON", args: []string{"inspect", "fixture", "U1", "--fixtures", dir, "--format", "json"}, inOutput: []string{`"origin": "derived"`, `"family": "structured"`, `"targets": [`, `"/orderId"`}},
		{name: "an unknown fixture", args: []string{"inspect", "fixture", "NOPE"}, code: 2, inOutput: []string{`no fixture "NOPE"`}},
		{name: "nothing named", args: []string{"inspect"}, code: 2, inOutput: []string{"inspect fixture ID"}},
	})
}

// TestInspectFixtureHostileLayer: a fixtures layer whose directory holds hostile strings is named
// in the entry (its source, its doc) without a line of the text starting a CI command or a
// control or bidi character reaching the terminal, and exactly in the JSON.
func TestInspectFixtureHostileLayer(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "internal", "instrument", "testdata", "uncatalogued", "sources", "mine", "U1.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hostile.Cases() {
		if strings.ContainsAny(c.S, "\x00/") || len(c.S) > 200 || c.S == "" || c.S == "." || c.S == ".." {
			continue // no file name
		}
		t.Run(c.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "\n::error::x"+c.S)
			testkit.WriteFile(t, filepath.Join(dir, "sources", "mine", "U1.json"), string(data))
			stdout, _ := cliOK(t, "inspect", "fixture", "U1", "--fixtures", dir)
			testkit.TerminalSafe(t, "stdout", stdout, false)
			stdout, _ = cliOK(t, "inspect", "fixture", "U1", "--fixtures", dir, "--format", "json")
			var e struct{ Source string }
			if err := json.Unmarshal([]byte(stdout), &e); err != nil {
				t.Fatal(err)
			}
			// JSON holds text: a name's invalid UTF-8 bytes read as U+FFFD.
			want := strings.ToValidUTF8(filepath.ToSlash(filepath.Join(dir, "sources", "mine", "U1.json")), "")
			if strings.ReplaceAll(e.Source, "\ufffd", "") != strings.ReplaceAll(want, "\ufffd", "") {
				t.Errorf("source %q, want %q", e.Source, want)
			}
		})
	}
}
